"""The read poller against Feishu's documented answers: pages of readers, refusals that stay, and its rate limit."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.pipeline import tick
from tests.fakes import feishu_server as fs
from tests.fakes.telegram_server import FakeTelegram
from tests.integration import read_state_helpers as h
from tests.integration.test_read_state import FEISHU, SLOW, start


@pytest.fixture
def platforms():
    feishu, telegram = fs.FakeFeishu().start(), FakeTelegram().start()
    yield feishu, telegram
    feishu.stop()
    telegram.stop()


def test_a_reader_on_a_later_page_of_a_big_group_is_found(database_url, clock, platforms):
    feishu, _ = platforms
    group = [{"channel": "feishu", "external_user_id": "ou_zs", "chat_id": "oc_all"}]
    ctx, api = start(database_url, clock, platforms, bindings=group, follow_up_schedule=SLOW)
    with api:
        concern_id = h.ask(api, priority="P2")
        message_id = feishu.sent_to("oc_all")[0]["message_id"]
        for n in range(150):  # read_users answers 100 a page at most
            feishu.mark_read(message_id, f"ou_member_{n}")
        feishu.mark_read(message_id, "ou_zs")
        clock.advance(timedelta(minutes=5))
        tick(ctx)
        assert h.loop(api, concern_id)["read_at"] is not None
    pages = h.lookups(feishu)
    assert [p.query.get("page_token") for p in pages] == [None, "100"]
    assert all(p.query["page_size"] == "100" for p in pages)
    ctx.close()


def test_a_message_feishu_will_not_look_up_any_more_is_not_asked_about_again(database_url, clock, platforms):
    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, follow_up_schedule=SLOW)
    with api:
        concern_id = h.ask(api, priority="P2")
        feishu.advance(8 * 86400)  # to Feishu the message is older than 7 days: 230033
        clock.advance(timedelta(minutes=5))
        tick(ctx)
        clock.advance(timedelta(hours=6))
        tick(ctx)
        assert h.loop(api, concern_id)["read_at"] is None
    assert len(h.lookups(feishu)) == 1
    ctx.close()


def test_feishus_rate_limit_ends_the_pass_without_failing_it(database_url, clock, platforms):
    feishu, _ = platforms
    feishu.rate_limit = 1  # one read_users a second: the second lookup of the pass is refused (99991400)
    feishu.rate_clock = lambda: 0.0  # the pass stays within that second however slow the machine running it
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, follow_up_schedule=SLOW)
    with api:
        first, second, third = (h.ask(api, q, priority="P2") for q in ("预算？", "合同？", "排期？"))
        for message in feishu.sent_to("ou_zs")[:3]:
            feishu.mark_read(message["message_id"], "ou_zs")
        clock.advance(timedelta(minutes=5))
        result = tick(ctx)
        read = [h.loop(api, c)["read_at"] is not None for c in (first, second, third)]
    assert result["reads_found"] == 1 and read.count(True) == 1
    assert len(h.lookups(feishu)) == 2  # the third was not asked: the pass stopped at the refusal
    ctx.close()
