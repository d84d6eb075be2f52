"""The loop page says whether its person read the latest message: in the viewer's language, the person's clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.inbound import PerceptionInbound
from app.pipeline import tick
from channels.inbound import InboundRead
from tests.console.conftest import open_loop
from tests.integration.action_helpers import add_memory_channels, add_person

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
NOON = datetime(2026, 3, 18, 7, 0, tzinfo=UTC)  # 15:00 in Shanghai (the deployment), 07:00 in London (the person)


@pytest.fixture
def feishu_loop(ctx, clock):
    """A loop whose question reached Zhang San (in London) on Feishu; (concern id, the question's message id)."""
    clock.set(NOON)
    feishu, _ = add_memory_channels(ctx)
    add_person(ctx, "p_zhangsan", display_name="张三", timezone="Europe/London",
               bindings=[{"channel": "feishu", "external_user_id": "ou_zs"}])  # fmt: skip
    concern_id = open_loop(ctx, target="p_zhangsan")
    tick(ctx)
    return concern_id, next(d.message_id for d in feishu.sent if d.message.external_user_id == "ou_zs")


def read_state(html: str) -> str | None:
    if 'id="read-state"' not in html:
        return None
    return html.split('id="read-state">', 1)[1].split("<", 1)[0]


def test_an_unread_feishu_loop_says_unread_in_the_viewers_language(viewer, feishu_loop):
    concern_id, _ = feishu_loop
    assert read_state(viewer.get(f"/console/concerns/{concern_id}").text) == "unread"
    assert read_state(viewer.get(f"/console/concerns/{concern_id}", headers=ZH).text) == "未读"


def test_a_read_loop_says_when_in_the_persons_clock(viewer, ctx, clock, feishu_loop):
    concern_id, message_id = feishu_loop
    when = datetime(2026, 3, 18, 7, 2, tzinfo=UTC)
    receipt = InboundRead(channel="feishu", event_id="ev_r", external_user_id="ou_zs", message_ids=[message_id],
                          read_at=when)  # fmt: skip
    clock.set(datetime(2026, 3, 18, 7, 5, tzinfo=UTC))
    assert PerceptionInbound(ctx).read(receipt) is True
    assert read_state(viewer.get(f"/console/concerns/{concern_id}").text) == "read 07:02"
    assert read_state(viewer.get(f"/console/concerns/{concern_id}", headers=ZH).text) == "已读 07:02"


def test_a_telegram_loop_shows_no_read_state(viewer, ctx, zhangsan):
    add_memory_channels(ctx)
    concern_id = open_loop(ctx, target=zhangsan)
    tick(ctx)
    assert read_state(viewer.get(f"/console/concerns/{concern_id}").text) is None


def test_an_urgent_call_in_an_actions_attempts_reads_as_words(viewer, ctx, feishu_loop):
    from sqlalchemy import update

    from action.models import ActionRow

    concern_id, message_id = feishu_loop
    call = {"channel": "feishu", "call": "urgent_app", "message_id": message_id, "result": "success"}
    with ctx.uow(actor="test") as uow:
        row = uow.session.query(ActionRow).filter(ActionRow.concern_id == concern_id).first()
        detail = {**row.result_detail, "attempts": [*row.result_detail["attempts"], call]}
        uow.session.execute(update(ActionRow).where(ActionRow.pk == row.pk).values(result_detail=detail))
        action_id = row.action_id
    assert "made urgent in the app" in viewer.get(f"/console/actions/{action_id}").text
    assert "应用内加急" in viewer.get(f"/console/actions/{action_id}", headers=ZH).text
