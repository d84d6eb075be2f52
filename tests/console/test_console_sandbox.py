"""The console's sandbox: a chat per person, typed and pressed as them through the inbound port, admins only."""

from __future__ import annotations

import re

import pytest

from app.pipeline import tick
from channels.dryrun import DryRunChannel
from fact import service as facts
from fact.service import FactFilter
from tests.conftest import VIEWER_TOKEN
from tests.console.conftest import Browser
from tests.integration.action_helpers import add_person

TOKEN = re.compile(r'name="token" value="([^"]+)"')
LABEL = re.compile(r'class="sandbox-button">([^<]+)</button>')


@pytest.fixture
def dry(ctx):
    """Every installed channel dry-run, 老板 (principal) and 张三 on Telegram."""
    ctx.settings.dry_run_channels = ["feishu", "telegram"]
    for name in ("feishu", "telegram"):
        ctx.channels.register(DryRunChannel(name))
    add_person(
        ctx,
        "p_boss",
        display_name="老板",
        role="principal",
        bindings=[{"channel": "telegram", "external_user_id": "tg_boss"}],
    )
    add_person(ctx, display_name="张三", bindings=[{"channel": "telegram", "external_user_id": "tg_zs"}])
    return ctx


def _say(admin: Browser, person_id: str, text: str):
    return admin.post("/console/sandbox/say", {"person_id": person_id, "text": text})


def test_a_sandbox_ask_reaches_the_target_as_a_chat_with_working_buttons(dry, admin):
    assert _say(admin, "p_boss", "/ask @p_zhangsan 周报呢？").status_code == 303
    tick(dry)
    page = admin.get("/console/sandbox?person_id=p_zhangsan", headers={"accept-language": "zh"}).text
    assert "周报呢" in page and "沙盒" in page
    tokens = TOKEN.findall(page)
    assert tokens, "张三's question carries its buttons"
    pressed = admin.post("/console/sandbox/press", {"person_id": "p_zhangsan", "token": tokens[0]})
    assert pressed.status_code == 200 and 'id="sandbox-toast"' in pressed.text
    with dry.reader() as uow:
        found, _ = facts.list_(uow, filters=FactFilter(fact_type="button_pressed"))
    assert [f.content["sandbox"] for f in found] == [True]
    tick(dry)
    again = admin.get("/console/sandbox?person_id=p_zhangsan").text
    label = LABEL.search(page[page.index(tokens[0]) :]).group(1)
    assert tokens[0] not in again and f'class="sandbox-button" disabled>{label}</button>' in again


def test_what_the_sandbox_types_is_a_message_fact_marked_sandbox(dry, admin):
    _say(admin, "p_zhangsan", "/help")
    with dry.reader() as uow:
        found, _ = facts.list_(uow, filters=FactFilter(fact_type="message_received"))
    assert [(f.content["text"], f.content["sandbox"], f.content["person_id"]) for f in found] == [
        ("/help", True, "p_zhangsan")
    ]
    tick(dry)
    assert admin.get("/console/sandbox?person_id=p_zhangsan").text.count('class="bubble bot"') >= 1


def test_the_sandbox_is_off_and_says_why_while_a_channel_is_live(ctx, admin):
    add_person(ctx, display_name="张三")
    ctx.settings.dry_run_channels = ["feishu"]
    page = admin.get("/console/sandbox", headers={"accept-language": "zh"})
    assert page.status_code == 200 and "沙盒关闭" in page.text and "Telegram" in page.text
    refused = _say(admin, "p_zhangsan", "/help")
    assert refused.status_code == 409
    with ctx.reader() as uow:
        assert facts.list_(uow, filters=FactFilter(fact_type="message_received"))[0] == []


def test_viewers_neither_see_nor_use_the_sandbox(dry, open_browser):
    viewer = open_browser().login(VIEWER_TOKEN)
    assert viewer.get("/console/sandbox").status_code == 403
    assert 'href="/console/sandbox"' not in viewer.get("/console").text
    assert _say(viewer, "p_zhangsan", "/help").status_code == 403


def test_a_sandbox_post_without_the_csrf_token_is_refused(dry, admin):
    response = admin.post("/console/sandbox/say", {"person_id": "p_zhangsan", "text": "/help"}, csrf=False)
    assert response.status_code == 403
    with dry.reader() as uow:
        assert facts.list_(uow, filters=FactFilter(fact_type="message_received"))[0] == []


def test_an_empty_message_or_an_unknown_person_is_named_and_nothing_recorded(dry, admin):
    assert _say(admin, "p_zhangsan", "   ").status_code == 422
    unknown = _say(admin, "p_nobody", "/help")
    assert unknown.status_code == 422 and "sandbox-problem" in unknown.text
    with dry.reader() as uow:
        assert facts.list_(uow, filters=FactFilter(fact_type="message_received"))[0] == []


def test_a_viewer_reading_the_action_records_finds_no_button_token_to_press(dry, admin, client):
    _say(admin, "p_boss", "/ask @p_zhangsan 周报呢？")
    tick(dry)
    tokens = TOKEN.findall(admin.get("/console/sandbox?person_id=p_zhangsan").text)
    assert tokens, "the sandbox still shows the question's buttons, pressable"
    records = client.get("/v1/actions", headers={"Authorization": f"Bearer {VIEWER_TOKEN}"})
    assert records.status_code == 200 and "周报呢" in records.text
    assert not [token for token in tokens if token in records.text]
    with dry.reader() as uow:
        events, _ = facts.list_(uow, filters=FactFilter(), limit=500)
    assert not [token for token in tokens if any(token in str(f.content) for f in events)]
