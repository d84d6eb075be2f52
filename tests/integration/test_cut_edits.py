"""An edit too long for the platform arrives cut at a word, ending with where the whole text is, in the reader's
language: through the action layer, the real lark-oapi and python-telegram-bot clients and the fakes."""

from __future__ import annotations

import pytest

from action import service
from action.models import Destination
from app.wiring import build_context
from channels.base import Button, OutboundMessage
from channels.feishu import FeishuChannel
from channels.feishu.pacing import LocalPacer
from channels.telegram import TelegramChannel
from tests.conftest import make_settings
from tests.fakes import feishu_server as fs
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person, notify

PUBLIC = "https://deputy.example"
LONG = {"zh": "进展顺利，" * 1200, "en": "progress is fine " * 400}
NOTE = {
    "zh": "（未完，全文见控制台：https://deputy.example/console/actions/{action_id}）",
    "en": "(Cut short: the whole text is in the console: https://deputy.example/console/actions/{action_id})",
}


@pytest.fixture
def feishu_fake():
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


@pytest.fixture
def telegram_fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


def wired(database_url, clock, feishu_fake, telegram_fake, **settings):
    """A context over the fakes, with a person of each language bound on both platforms."""
    ctx = build_context(make_settings(database_url, **settings), clock=clock)
    feishu = FeishuChannel(
        app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=feishu_fake.domain, pacer=LocalPacer(max_wait=0)
    )
    feishu.api.forget_token()
    ctx.channels.register(feishu)
    ctx.channels.register(TelegramChannel(TOKEN, api_base=telegram_fake.base_url, chat_interval=0.01, timeout=5.0))
    for person_id, locale, chat in (("p_zhangsan", "zh", "5001"), ("p_smith", "en", "5002")):
        bindings = [
            {"channel": "feishu", "external_user_id": f"ou_{person_id}"},
            {"channel": "telegram", "external_user_id": chat, "chat_id": chat},
        ]
        add_person(ctx, person_id, locale=locale, bindings=bindings)
    return ctx


def first_message(ctx, channel: str, person_id: str) -> tuple[str, str]:
    """(chat id, message id) of a message with a button, sent straight through the channel."""
    to = f"ou_{person_id}" if channel == "feishu" else {"p_zhangsan": "5001", "p_smith": "5002"}[person_id]
    sent = ctx.channels.get(channel).send(
        OutboundMessage(
            f"act_first_{person_id}",
            to,
            None if channel == "feishu" else to,
            "张三，提测什么时候给？",
            buttons=(Button("稍后 2小时", "b1later"),),
        )
    )
    return to, sent.message_id


def shown(channel: str, feishu_fake, telegram_fake, chat: str, message_id: str) -> str:
    if channel == "telegram":
        return telegram_fake.message(chat, message_id)["text"]
    [element] = feishu_fake.card(message_id)["body"]["elements"]
    return element["text"]["content"]


@pytest.mark.parametrize("channel", ["feishu", "telegram"])
@pytest.mark.parametrize("person_id, locale", [("p_zhangsan", "zh"), ("p_smith", "en")])
def test_an_edit_too_long_for_the_platform_is_cut_and_points_to_its_console_page_in_the_readers_language(
    database_url, clock, feishu_fake, telegram_fake, channel, person_id, locale
):
    ctx = wired(database_url, clock, feishu_fake, telegram_fake, public_url=PUBLIC + "/")
    try:
        chat, message_id = first_message(ctx, channel, person_id)
        where = Destination(channel=channel, chat_id=chat, message_id=message_id)
        record = service.execute(ctx, request=notify(person_id, text=LONG[locale], destination=where, reactive=True))
        assert record.result == "success" and record.result_detail["attempts"][-1]["cut"] is True
        said = shown(channel, feishu_fake, telegram_fake, chat, message_id)
        kept, _, note = said.partition("…\n")
        assert note == NOTE[locale].format(action_id=record.action_id)
        assert LONG[locale].startswith(kept) and kept.endswith(("顺利，", "fine", "is", "progress"))
    finally:
        ctx.close()


def test_without_a_public_address_the_note_names_the_console_without_a_link(
    database_url, clock, feishu_fake, telegram_fake
):
    ctx = wired(database_url, clock, feishu_fake, telegram_fake)
    try:
        chat, message_id = first_message(ctx, "feishu", "p_zhangsan")
        where = Destination(channel="feishu", chat_id=chat, message_id=message_id)
        service.execute(ctx, request=notify("p_zhangsan", text=LONG["zh"], destination=where, reactive=True))
        said = shown("feishu", feishu_fake, telegram_fake, chat, message_id)
        assert said.endswith("…\n（未完，全文见 Deputy 控制台）") and len(feishu_fake.messages) == 1
    finally:
        ctx.close()
