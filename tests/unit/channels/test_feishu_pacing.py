"""Feishu send pacing: at most 5 messages per second to one receiver, in one process or across processes via Redis."""

from __future__ import annotations

import uuid

import pytest

from channels.errors import Paced, RateLimited
from channels.feishu.pacing import LocalPacer, RedisPacer
from tests.conftest import redis_url
from tests.fakes.pace_clock import FakeTime


def take(pacer, receiver: str, times: int) -> None:
    for _ in range(times):
        pacer.acquire(receiver)


def test_five_messages_a_second_pass_and_the_sixth_is_paced_without_waiting():
    t = FakeTime()
    pacer = LocalPacer(max_wait=0, clock=t.clock, sleep=t.sleep)
    take(pacer, "open_id:ou_a", 5)
    with pytest.raises(Paced) as caught:
        pacer.acquire("open_id:ou_a")
    assert isinstance(caught.value, RateLimited) and caught.value.code == "pacing"
    assert caught.value.retry_after == 1.0 and caught.value.to_attempt()["paced"] is True and t.slept == []
    pacer.acquire("open_id:ou_b")  # every receiver has its own budget


def test_the_sixth_send_within_the_default_half_second_wait_is_paced_with_the_time_to_the_free_slot():
    t = FakeTime()
    pacer = LocalPacer(clock=t.clock, sleep=t.sleep)
    take(pacer, "open_id:ou_a", 5)
    with pytest.raises(Paced) as caught:
        pacer.acquire("open_id:ou_a")
    assert caught.value.retry_after == 1.0 and t.slept == []  # 1 s away: beyond the 0.5 s wait, so not waited for


def test_a_slot_freeing_within_the_bound_is_waited_for():
    t = FakeTime()
    pacer = LocalPacer(max_wait=0.5, clock=t.clock, sleep=t.sleep)
    pacer.acquire("chat_id:oc_1")
    t.now += 0.7
    take(pacer, "chat_id:oc_1", 4)
    pacer.acquire("chat_id:oc_1")  # the first slot frees 0.3 s later: within the bound
    assert t.slept == [pytest.approx(0.3)]
    with pytest.raises(Paced) as caught:
        pacer.acquire("chat_id:oc_1")  # the next frees 0.7 s later: beyond it
    assert caught.value.retry_after == pytest.approx(0.7)


def test_a_message_in_parts_takes_its_slots_together_or_not_at_all():
    t = FakeTime()
    pacer = LocalPacer(max_wait=0, clock=t.clock, sleep=t.sleep)
    take(pacer, "open_id:ou_a", 3)
    with pytest.raises(Paced):
        pacer.acquire("open_id:ou_a", parts=3)  # only two slots are free: nothing is taken
    assert pacer.acquire("open_id:ou_a", parts=2) == 2
    with pytest.raises(Paced):
        pacer.acquire("open_id:ou_a")


def test_parts_beyond_the_window_follow_with_short_waits_and_are_never_refused():
    t = FakeTime()
    pacer = LocalPacer(max_wait=0, clock=t.clock, sleep=t.sleep)
    assert pacer.acquire("open_id:ou_a", parts=7) == 5
    pacer.follow("open_id:ou_a")  # the sixth part waits for the window to move on
    pacer.follow("open_id:ou_a")
    assert t.slept == [1.0]
    take(pacer, "open_id:ou_a", 3)
    t.on_sleep = lambda: pacer.acquire("open_id:ou_a", parts=5)  # others take every slot freed meanwhile
    pacer.follow("open_id:ou_a")  # no slot within a second: the part goes anyway rather than cut the message
    assert t.slept == [1.0, 1.0]


@pytest.mark.redis
def test_two_processes_sharing_redis_share_one_budget_per_receiver():
    import redis

    client = redis.Redis.from_url(redis_url())
    t = FakeTime(start=2_000_000_000.0)
    prefix = f"deputy:test:pace:{uuid.uuid4().hex}:"
    first, second = (RedisPacer(client, prefix=prefix, max_wait=0, clock=t.clock, sleep=t.sleep) for _ in range(2))
    try:
        take(first, "open_id:ou_a", 3)
        take(second, "open_id:ou_a", 2)
        with pytest.raises(Paced) as caught:
            first.acquire("open_id:ou_a")
        assert caught.value.retry_after == 1.0
        t.now += 1.0
        assert second.acquire("open_id:ou_a", parts=4) == 4  # a second later the window has moved on
        with pytest.raises(Paced) as caught:
            first.acquire("open_id:ou_a", parts=2)  # a message's parts are taken together in Redis too
        first.acquire("open_id:ou_a")
    finally:
        for key in client.scan_iter(prefix + "*"):
            client.delete(key)
        client.close()


def test_redis_trouble_falls_back_to_pacing_in_this_process():
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    t = FakeTime()
    broken = redis.Redis(
        host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
    )  # nothing listens on port 1
    pacer = RedisPacer(broken, max_wait=0, clock=t.clock, sleep=t.sleep)
    take(pacer, "open_id:ou_a", 5)
    with pytest.raises(Paced):
        pacer.acquire("open_id:ou_a")
