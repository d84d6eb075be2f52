"""Several processors share the read poller: a message is looked up once per interval, whoever looks."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from app.pipeline import tick
from app.receipts import ChannelReceipts
from concern import receipts
from tests.fakes import feishu_server as fs
from tests.fakes.telegram_server import FakeTelegram
from tests.integration import read_state_helpers as h
from tests.integration.action_helpers import add_person
from tests.integration.test_read_state import FEISHU, SLOW, T1500


@pytest.fixture
def replicas(database_url, clock):
    """Two processes' contexts over one database and the fakes; one open loop whose question went at 15:00."""
    feishu, telegram = fs.FakeFeishu().start(), FakeTelegram().start()
    clock.set(T1500)
    first, second = (h.context(database_url, clock, feishu, telegram, follow_up_schedule=SLOW) for _ in range(2))
    add_person(first, "p_boss", role="principal", bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}])
    add_person(first, "p_zhangsan", bindings=FEISHU)
    with h.client(first) as api:
        h.ask(api, priority="P2")
    clock.advance(timedelta(minutes=5))
    yield first, second, feishu
    first.close()
    second.close()
    feishu.stop()
    telegram.stop()


def test_two_processors_ticking_in_turn_look_a_message_up_once_per_interval(replicas, clock):
    first, second, feishu = replicas
    tick(first)
    tick(second)
    assert len(h.lookups(feishu)) == 1
    clock.advance(timedelta(minutes=5))
    tick(second)
    tick(first)
    assert len(h.lookups(feishu)) == 2


def test_a_message_claimed_by_one_processor_is_skipped_by_another_meanwhile(replicas, database_url):
    if database_url.startswith("sqlite"):
        pytest.skip("SQLite has one writer at a time: the second processor waits for the first instead")
    first, second, feishu = replicas
    claimed, release = threading.Event(), threading.Event()

    def claim_and_hold() -> None:
        with first.uow(actor="read_poller") as uow:
            assert len(receipts._claim(uow, channels=["feishu"], interval=timedelta(minutes=5), limit=20)) == 1
            claimed.set()
            assert release.wait(30)

    holder = threading.Thread(target=claim_and_hold, daemon=True)
    holder.start()
    assert claimed.wait(30)
    try:  # SKIP LOCKED: the other processor neither waits for the row nor looks the message up
        assert receipts.poll(second, ChannelReceipts(second.channels), interval=timedelta(minutes=5)) == 0
        assert h.lookups(feishu) == []
    finally:
        release.set()
        holder.join(30)
    receipts.poll(second, ChannelReceipts(second.channels), interval=timedelta(minutes=5))
    assert h.lookups(feishu) == []  # the first processor's claim counts: not due again for an interval
