"""A Redis that accepts connections and never answers: each call is cut short by the timeout, then skipped."""

from __future__ import annotations

import logging

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import select

from action.models import ActionRow
from app.main import create_app
from app.wiring import build_context
from fact.models import Fact
from kernel.breaker import Skipped
from kernel.redis_guard import THRESHOLD, GuardedRedis, connect, redis_breaker
from tests.conftest import make_settings, redis_url
from tests.fakes.silent_server import SilentServer
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person

SECRET = "wh-secret-0123456789"


class Ticks:
    """A monotonic clock the test moves by hand (the breaker's cooldown)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def breaker_logs(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "deputy.redis"]


def calls(client: GuardedRedis) -> list:
    """One of every kind of call: de-duplication, a plain read, a pacing script, the probe."""
    script = client.register_script("return 1")
    return [
        lambda: client.set("deputy:dedup:x", "1", nx=True, ex=60),
        lambda: client.get("deputy:dedup:x"),
        lambda: script(keys=["k"], args=[1]),
        lambda: client.ping(),
    ]


def test_every_call_is_cut_off_by_the_timeout_and_none_reaches_redis_once_the_breaker_is_open(caplog):
    with SilentServer() as silent, caplog.at_level(logging.DEBUG, logger="deputy.redis"):
        client = GuardedRedis(connect(silent.url(), timeout=0.2), redis_breaker(cooldown=30, clock=Ticks()))
        raised = []
        for call in calls(client) * 3:
            with pytest.raises((redis.TimeoutError, Skipped)) as caught:
                call()
            raised.append(type(caught.value))
        reached = (silent.connections, silent.bytes_received)
        for call in calls(client):
            with pytest.raises(Skipped):
                call()
        assert (silent.connections, silent.bytes_received) == reached  # nothing more reached the socket
    breaker = client.breaker
    # The first calls each timed out on the socket (the timeout bounds them); no call was retried: one connection
    # per call that went through. Then the breaker opened and every other call was skipped without a connection.
    assert raised == [redis.TimeoutError] * THRESHOLD + [Skipped] * (12 - THRESHOLD)
    assert (breaker.attempted, breaker.failed, breaker.skipped) == (THRESHOLD, THRESHOLD, 16 - THRESHOLD)
    assert reached[0] == THRESHOLD and breaker.state == "open"
    assert [m for m in breaker_logs(caplog) if "circuit" in m] == [
        "redis unavailable (TimeoutError): circuit open, skipping it for 30s"
    ]


@pytest.mark.redis
def test_after_the_cooldown_one_trial_call_closes_the_breaker_once_redis_answers_again(caplog):
    real = redis.Redis.from_url(redis_url()).connection_pool.connection_kwargs
    ticks = Ticks()
    with SilentServer() as silent, caplog.at_level(logging.DEBUG, logger="deputy.redis"):
        client = GuardedRedis(connect(silent.url(), timeout=0.2), redis_breaker(cooldown=30, clock=ticks))
        for _ in range(THRESHOLD):
            with pytest.raises(redis.TimeoutError):
                client.ping()
        silent.relay_to(real["host"], real["port"])
        ticks.now += 29
        with pytest.raises(Skipped):  # still cooling down: not even tried
            client.ping()
        ticks.now += 1
        assert client.ping() is True  # the trial goes through and answers
        assert client.publish("deputy:test:nobody", "1") == 0 and client.breaker.state == "closed"
        with pytest.raises(redis.ResponseError):  # an error answer is an answer: Redis is up
            client.execute_command("NO-SUCH-COMMAND")
    assert client.breaker.state == "closed"
    assert [m for m in breaker_logs(caplog) if "circuit" in m] == [
        "redis unavailable (TimeoutError): circuit open, skipping it for 30s",
        "redis answers again: circuit closed",
    ]


def test_a_failed_trial_reopens_the_breaker_without_logging_again(caplog):
    ticks = Ticks()
    with SilentServer() as silent, caplog.at_level(logging.DEBUG, logger="deputy.redis"):
        client = GuardedRedis(connect(silent.url(), timeout=0.2), redis_breaker(cooldown=30, clock=ticks))
        for _ in range(THRESHOLD):
            with pytest.raises(redis.TimeoutError):
                client.get("k")
        ticks.now += 30
        with pytest.raises(redis.TimeoutError):  # the one trial call reaches the silent socket
            client.get("k")
        with pytest.raises(Skipped):  # and the breaker is open again
            client.get("k")
        assert silent.connections == THRESHOLD + 1
    assert len([m for m in breaker_logs(caplog) if "circuit" in m]) == 1


def telegram_update(update_id: int, text: str) -> dict:
    message = {"message_id": update_id, "date": 1773799200, "text": text}
    return {
        "update_id": update_id,
        "message": {
            **message,
            "from": {"id": 2001, "is_bot": False, "first_name": "Boss"},
            "chat": {"id": 2001, "type": "private"},
        },
    }


def test_with_a_hung_redis_webhooks_are_recorded_and_answered_and_readyz_stays_200(database_url, clock, caplog):
    fake = FakeTelegram().start()
    with SilentServer() as silent, caplog.at_level(logging.DEBUG):
        settings = make_settings(
            database_url,
            redis_url=silent.url(),
            telegram_bot_token=TOKEN,
            telegram_api_base=fake.base_url,
            telegram_webhook_secret=SECRET,
            telegram_bot_username="deputy_bot",
        )
        ctx = build_context(settings, clock=clock)  # the service's wiring: the guarded client, pacing on it
        add_person(ctx, "p_boss", role="principal", bindings=[{"channel": "telegram", "external_user_id": "2001"}])
        try:
            with TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
                answers = [
                    client.post(
                        "/webhooks/telegram",
                        json=telegram_update(500 + n, "/help"),
                        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                    )
                    for n in range(6)
                ]
                ready, live = client.get("/readyz"), client.get("/healthz")
            with ctx.reader() as uow:
                recorded = uow.session.scalars(select(Fact.dedup_key).where(Fact.fact_type == "message_received"))
                replies = uow.session.scalars(select(ActionRow.result).where(ActionRow.target_person_id == "p_boss"))
                recorded, replies = list(recorded), list(replies)
        finally:
            ctx.close()
            fake.stop()
        reached = silent.connections
    breaker = ctx.redis.breaker
    assert ctx.redis.client.connection_pool.connection_kwargs["socket_timeout"] == 0.2  # DEPUTY_REDIS_TIMEOUT_MS
    assert [a.status_code for a in answers] == [200] * 6
    assert sorted(recorded) == [f"telegram:event:{500 + n}" for n in range(6)]
    assert replies == ["success"] * 6 and len(fake.calls("sendMessage")) == 6  # pacing went on in-process
    # The replies' pacing asked Redis until the breaker opened; after that none did. (The webhooks themselves never
    # ask it: the ack appends, and processors are woken over their socket or PostgreSQL's NOTIFY.)
    assert breaker.state == "open" and breaker.attempted == breaker.failed == THRESHOLD == reached
    assert breaker.skipped >= 6 * 2 - THRESHOLD  # each reply's pacing: its slot taken, then given back
    assert (ready.status_code, ready.json()) == (200, {"status": "ready", "db": "ok", "redis": "skipped"})
    assert (live.status_code, live.json()["redis"]) == (200, "skipped")
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "redis" in r.getMessage()]
    assert warnings == ["redis unavailable (TimeoutError): circuit open, skipping it for 30s"]
