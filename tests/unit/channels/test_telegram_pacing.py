"""Telegram send pacing: 1 message/s per chat and 30/s per bot, waits of at most 1 s, else Paced (defer, not fail)."""

from __future__ import annotations

import uuid

import pytest

from channels.errors import Paced, RateLimited
from channels.telegram.pacing import Pacer
from tests.conftest import redis_url
from tests.fakes.pace_clock import FakeTime

CHAT = "5001"


def make_pacer(t: FakeTime, **kw) -> Pacer:
    return Pacer(namespace="123456", clock=t.clock, sleep=t.sleep, **kw)


def paced(call) -> Paced:
    with pytest.raises(Paced) as caught:
        call()
    return caught.value


def test_three_sends_to_one_chat_at_once_two_go_and_the_third_is_paced_until_its_free_slot():
    t = FakeTime()
    third: list[Paced] = []

    def sleep(seconds: float) -> None:  # the third send asks at the instant the second starts waiting
        if not third:
            third.append(paced(lambda: pacer.reserve(CHAT)))
        t.sleep(seconds)

    pacer = Pacer(namespace="123456", clock=t.clock, sleep=sleep)
    pacer.reserve(CHAT)
    pacer.reserve(CHAT)  # the second takes the next slot and waits for it
    assert t.slept == [1.0]
    [refused] = third  # the slot after the second's is 2 s away: beyond the 1 s wait, and it waited for nothing
    assert refused.retry_after == 2.0 and refused.detail == {"scope": "chat"}
    pacer.reserve("5002")  # another chat has its own pace: it waits only for the bot-wide slot
    assert t.slept[1:] == [pytest.approx(1 / 30)]


def test_a_paced_error_is_rate_limited_carries_retry_after_and_is_marked_paced():
    error = Paced("telegram chat 5001 send pace full", retry_after=2.5)
    assert isinstance(error, RateLimited) and error.kind == "rate_limited" and error.code == "pacing"
    assert error.to_attempt() == {
        "error": "rate_limited",
        "message": "telegram chat 5001 send pace full",
        "code": "pacing",
        "retry_after": 2.5,
        "paced": True,
    }
    assert "paced" not in RateLimited("Too Many Requests", code=429, retry_after=5).to_attempt()
    with pytest.raises(ValueError):
        Paced("no time given", retry_after=0)


def test_no_single_wait_is_longer_than_a_second():
    t = FakeTime()
    pacer = make_pacer(t, bot_rate=2.0)  # bot slots 0.5 s apart, so parts wait for the bot too
    refused: list[Paced] = []

    def attempt(chat: str, parts: int = 1):
        try:
            return pacer.reserve(chat, parts=parts)
        except Paced as exc:
            refused.append(exc)

    long, other = attempt(CHAT, parts=3), attempt("5002", parts=2)
    attempt(CHAT)
    long.wait(1)
    other.wait(1)
    attempt("5003", parts=2)
    long.wait(2)
    attempt(CHAT)
    assert [exc.retry_after for exc in refused] == [2.5]  # asked at 0.5 s for the chat held until 3 s
    assert len(t.slept) == 6 and max(t.slept) <= 1.0
    for too_long in ({"chat_interval": 2.0}, {"max_wait": 1.5}):
        with pytest.raises(ValueError):
            make_pacer(t, **too_long)


def test_a_three_part_message_holds_the_chat_until_its_last_parts_slot():
    t = FakeTime()
    pacer = make_pacer(t)
    turns = pacer.reserve(CHAT, parts=3)
    assert paced(lambda: pacer.reserve(CHAT)).retry_after == 3.0
    turns.wait(1)
    assert paced(lambda: pacer.reserve(CHAT)).retry_after == 2.0
    turns.wait(2)
    assert t.slept == [1.0, 1.0]  # the parts went a chat interval apart
    pacer.reserve(CHAT)  # the next slot is the one after the last part's, 1 s away: waited for
    assert t.slept == [1.0, 1.0, 1.0]


def test_a_full_bot_pace_never_cuts_a_message_already_underway():
    t = FakeTime()
    pacer = make_pacer(t, bot_rate=0.4)  # one part per 2.5 s for the whole bot
    turns = pacer.reserve(CHAT, parts=2)
    turns.wait(1)  # the bot's next slot is 1.5 s away: the part goes at its chat slot rather than not at all
    assert t.slept == [1.0]


def test_a_send_refused_by_the_bot_pace_gives_its_chat_slots_back():
    t = FakeTime()
    pacer = make_pacer(t, bot_rate=1 / 1.5)  # one message per 1.5 s for the whole bot
    pacer.reserve("5002")
    refused = paced(lambda: pacer.reserve(CHAT, parts=3))
    assert refused.retry_after == 1.5 and refused.detail == {"scope": "bot"}
    t.now += 0.6
    pacer.reserve(CHAT)  # had the refused message kept the chat for 3 s, this would be paced by the chat
    assert t.slept == [pytest.approx(0.9)]


@pytest.fixture
def redis_client():
    import redis

    client = redis.Redis.from_url(redis_url())
    namespace = f"test{uuid.uuid4().hex}"
    yield client, namespace
    for key in client.scan_iter(f"deputy:telegram:{namespace}:*"):
        client.delete(key)
    client.close()


@pytest.mark.redis
def test_two_pacers_sharing_redis_share_one_pace_per_chat(redis_client):
    client, namespace = redis_client
    t = FakeTime()  # the pace itself runs on Redis's clock; only the sleeps are fake
    first, second = (Pacer(namespace=namespace, redis=client, clock=t.clock, sleep=t.sleep) for _ in range(2))
    first.reserve(CHAT)
    second.reserve(CHAT)
    assert t.slept[0] == pytest.approx(1.0, abs=0.1) and sum(t.slept) <= 1.1
    assert paced(lambda: first.reserve(CHAT)).retry_after == pytest.approx(2.0, abs=0.1)
    first.reserve("5002", parts=3)
    assert paced(lambda: second.reserve("5002")).retry_after == pytest.approx(3.0, abs=0.1)
    assert 2_000 < client.pttl(f"deputy:telegram:{namespace}:chat:5002") <= 3_000


@pytest.mark.redis
def test_a_send_refused_by_the_bot_pace_gives_its_chat_slots_back_in_redis(redis_client):
    client, namespace = redis_client
    t = FakeTime()
    pacer = Pacer(namespace=namespace, redis=client, bot_rate=1 / 1.5, clock=t.clock, sleep=t.sleep)
    pacer.reserve("5002")
    assert paced(lambda: pacer.reserve(CHAT, parts=3)).detail == {"scope": "bot"}
    assert client.exists(f"deputy:telegram:{namespace}:chat:{CHAT}") == 0


def test_redis_trouble_falls_back_to_pacing_in_this_process():
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    t = FakeTime()
    broken = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))
    pacer = Pacer(namespace="123456", redis=broken, clock=t.clock, sleep=t.sleep)
    pacer.reserve(CHAT, parts=2)
    assert paced(lambda: pacer.reserve(CHAT)).retry_after == 2.0 and t.slept == []
