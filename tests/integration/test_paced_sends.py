"""The service's own pacing defers a send to its slot (same action, same idempotency key); it never fails one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from action import service as actions
from action.models import ActionRow
from app.pipeline import tick
from channels.telegram import TelegramChannel
from channels.telegram.pacing import Pacer
from tests.fakes.memory_channel import MemoryChannel
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person

CHAT = "5001"


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


@pytest.fixture
def telegram(ctx, fake):
    """The real Telegram channel; its pacer reads the app's frozen clock and never sleeps for real."""
    channel = TelegramChannel(TOKEN, api_base=fake.base_url, timeout=5.0)
    channel.pacer = Pacer(namespace=channel.bot_id, clock=lambda: ctx.clock.now().timestamp(), sleep=lambda _: None)
    ctx.channels.register(channel)
    ctx.channels.register(MemoryChannel("feishu"))
    add_person(
        ctx,
        policy={"max_proactive_contacts_per_day": 3, "preferred_channel": "telegram"},
        bindings=[
            {"channel": "telegram", "external_user_id": CHAT, "chat_id": CHAT},
            {"channel": "feishu", "external_user_id": "ou_zs"},
        ],
    )
    yield channel
    channel.close()


def _notify(client, n: int):
    return client.post(
        "/v1/notifications",
        json={"target_person_id": "p_zhangsan", "text": f"第{n}条", "notification_type": f"kind_{n}"},
    )


def test_three_notices_at_once_to_one_chat_all_arrive_the_third_at_its_slot(ctx, clock, client, fake, telegram):
    first, second, third = (_notify(client, n) for n in range(3))
    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 202]
    assert third.json()["result"] == "pending" and "deferred_until" in third.json()["result_detail"]
    assert [c["text"] for c in fake.calls("sendMessage")] == ["第0条", "第1条"]
    tick(ctx)  # the slot has not come yet: nothing is sent, nothing fails
    assert len(fake.calls("sendMessage")) == 2
    clock.advance(timedelta(seconds=2))
    tick(ctx)
    assert [c["text"] for c in fake.calls("sendMessage")] == ["第0条", "第1条", "第2条"]
    record = client.get(f"/v1/actions/{third.json()['action_id']}").json()
    assert record["result"] == "success" and record["channel"] == "telegram"  # deferred on its channel, not failed over
    with ctx.reader() as uow:
        assert [r.result for r in uow.session.scalars(select(ActionRow))] == ["success"] * 3


def test_a_deferred_send_holds_its_cap_slot_and_is_not_swept_as_interrupted(ctx, clock, client, fake, telegram):
    for n in range(3):
        _notify(client, n)
    assert (
        _notify(client, 3).json()["result_detail"]["blocked_by"] == "L1:daily_cap"
    )  # the pending third holds its slot
    clock.advance(ctx.settings.action_pending_timeout + timedelta(seconds=1))
    assert actions.recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout) == []
    tick(ctx)
    assert len(fake.calls("sendMessage")) == 3


def test_pacing_never_costs_a_cap_slot_or_a_failure(ctx, clock, client, fake, telegram):
    results = [_notify(client, n).json()["result"] for n in range(3)]
    assert "failed" not in results
    clock.advance(timedelta(seconds=5))
    tick(ctx)
    with ctx.reader() as uow:
        rows = list(uow.session.scalars(select(ActionRow)))
    assert [r.result for r in rows] == ["success"] * 3 and all(r.counted for r in rows)
    assert not any(a.get("error") for r in rows for a in r.result_detail.get("attempts", []))
