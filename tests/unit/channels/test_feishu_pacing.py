"""Feishu send pacing: at most 5 messages per second to one receiver, in one process or across processes via Redis."""

from __future__ import annotations

import uuid

import pytest

from channels.errors import RateLimited
from channels.feishu.pacing import LocalPacer, RedisPacer
from tests.conftest import redis_url


class FakeTime:
    """A clock that only moves when the pacer sleeps."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now, self.slept = start, []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def take(pacer, receiver: str, times: int) -> None:
    for _ in range(times):
        pacer.acquire(receiver)


def test_five_messages_a_second_pass_and_the_sixth_is_rate_limited_without_waiting():
    t = FakeTime()
    pacer = LocalPacer(max_wait=0, clock=t.clock, sleep=t.sleep)
    take(pacer, "open_id:ou_a", 5)
    with pytest.raises(RateLimited) as caught:
        pacer.acquire("open_id:ou_a")
    assert caught.value.retry_after == 1.0 and t.slept == []
    pacer.acquire("open_id:ou_b")  # every receiver has its own budget


def test_a_slot_freeing_within_the_bound_is_waited_for():
    t = FakeTime()
    pacer = LocalPacer(max_wait=0.5, clock=t.clock, sleep=t.sleep)
    pacer.acquire("chat_id:oc_1")
    t.now += 0.7
    take(pacer, "chat_id:oc_1", 4)
    pacer.acquire("chat_id:oc_1")  # the first slot frees 0.3 s later: within the bound
    assert t.slept == [pytest.approx(0.3)]
    with pytest.raises(RateLimited):
        pacer.acquire("chat_id:oc_1")  # the next frees 0.7 s later: beyond it


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
        with pytest.raises(RateLimited) as caught:
            first.acquire("open_id:ou_a")
        assert caught.value.retry_after == 1.0
        t.now += 1.0
        second.acquire("open_id:ou_a")  # a second later the window has moved on
    finally:
        for key in client.scan_iter(prefix + "*"):
            client.delete(key)
        client.close()


def test_redis_trouble_falls_back_to_pacing_in_this_process():
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    t = FakeTime()
    broken = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))  # nothing listens on port 1
    pacer = RedisPacer(broken, max_wait=0, clock=t.clock, sleep=t.sleep)
    take(pacer, "open_id:ou_a", 5)
    with pytest.raises(RateLimited):
        pacer.acquire("open_id:ou_a")
