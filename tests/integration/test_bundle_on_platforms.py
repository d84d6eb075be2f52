"""A bundle of follow-ups through the real clients: Feishu draws one card with each item's buttons under it,
Telegram one keyboard with a row per item (lark-oapi and python-telegram-bot against the strict fakes)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.pipeline import tick
from channels.feishu.channel import FeishuChannel
from channels.feishu.pacing import LocalPacer
from channels.telegram.channel import TelegramChannel
from tests.fakes import feishu_server as fs
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person
from tests.integration.concern_fixtures import NOON
from tests.integration.story_helpers import say

H, M = timedelta(hours=1), timedelta(minutes=1)


@pytest.fixture
def platforms(ctx, clock):
    """The real Feishu and Telegram channels on the context, over local fakes; a principal and two members."""
    clock.set(NOON)
    feishu_fake, telegram_fake = fs.FakeFeishu().start(), FakeTelegram().start()
    feishu = FeishuChannel(
        app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=feishu_fake.domain, pacer=LocalPacer(max_wait=0)
    )
    telegram = TelegramChannel(TOKEN, api_base=telegram_fake.base_url, chat_interval=0.01, timeout=5.0)
    ctx.channels.register(feishu)
    ctx.channels.register(telegram)
    add_person(ctx, "p_boss", display_name="老板", role="principal",
               bindings=[{"channel": "telegram", "external_user_id": "9001", "chat_id": "9001"}])  # fmt: skip
    add_person(ctx, "p_zhangsan", display_name="张三",
               bindings=[{"channel": "feishu", "external_user_id": "ou_zhangsan"}])  # fmt: skip
    add_person(ctx, "p_lisi", display_name="李四",
               bindings=[{"channel": "telegram", "external_user_id": "9002", "chat_id": "9002"}])  # fmt: skip
    yield feishu_fake, telegram_fake
    telegram.close()
    feishu_fake.stop()
    telegram_fake.stop()


def _two_asks_then_the_follow_ups(ctx, clock, who: str) -> None:
    for question in ("提测什么时候能给？", "周报写了吗？"):
        say(ctx, channel="telegram", user="9001", text=f"/ask @{who} P1 {question}")
        clock.advance(10 * M)
    clock.advance(4 * H - 20 * M)  # the first's follow-up is due, the second's within the window
    tick(ctx)


def test_a_bundle_on_feishu_is_one_card_with_each_items_buttons_under_it(ctx, clock, platforms):
    feishu_fake, _ = platforms
    _two_asks_then_the_follow_ups(ctx, clock, "p_zhangsan")
    sent = feishu_fake.sent_to("ou_zhangsan")
    assert len(sent) == 3  # two questions, one card for both follow-ups
    elements = feishu_fake.card(sent[-1]["message_id"])["body"]["elements"]
    shown = [
        e["text"]["content"].split("\n")[0][:3] if e["tag"] == "div" else [c["elements"][0]["text"]["content"][:1]
                                                                          for c in e["columns"]]
        for e in elements
    ]  # fmt: skip
    first, second = shown.index("[1]"), shown.index("[2]")
    assert set(shown[first + 1]) == {"1"} and set(shown[second + 1]) == {"2"}  # each item's row right under it
    assert first < second


def test_a_bundle_on_telegram_is_one_keyboard_with_a_row_per_item(ctx, clock, platforms):
    _, telegram_fake = platforms
    _two_asks_then_the_follow_ups(ctx, clock, "p_lisi")
    mine = sorted(key for key in telegram_fake.sent if key[0] == "9002")
    assert len(mine) == 3
    rows = telegram_fake.keyboard(*mine[-1])
    firsts = [{label[:1] for label, _ in row} for row in rows]
    assert {"1"} in firsts and {"2"} in firsts  # an item's buttons share a row, never another item's
