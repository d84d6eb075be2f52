"""Perception: one fact per platform event, with or without the Redis fast path, and senders resolved by binding."""

import uuid

import pytest
import redis as redis_lib
from sqlalchemy import func, select

from channels.inbound import InboundMessage
from fact.models import Fact
from perception import service
from perception.models import InboxEntry
from tests.conftest import redis_url
from tests.integration.action_helpers import add_person


def message(event_id: str, user: str = "tg_zs") -> InboundMessage:
    return InboundMessage(
        channel="telegram",
        event_id=event_id,
        message_id="1",
        chat_id="c",
        chat_type="p2p",
        external_user_id=user,
        text="明天下午",
        occurred_at="2026-03-18T10:00:00+08:00",
    )


def counts(ctx):
    with ctx.reader() as uow:
        return (
            uow.session.scalar(select(func.count()).select_from(Fact).where(Fact.fact_type == "message_received")),
            uow.session.scalar(select(func.count()).select_from(InboxEntry)),
        )


@pytest.fixture
def with_redis(ctx):
    ctx.redis = redis_lib.Redis.from_url(redis_url())
    yield ctx.redis
    ctx.redis.close()
    ctx.redis = None


def test_a_repeated_event_returns_the_first_fact_and_queues_it_once(ctx):
    first, created = service.record_message(ctx, message=message("e1"))
    again, created_again = service.record_message(ctx, message=message("e1"))
    assert (created, created_again) == (True, False) and again.fact_id == first.fact_id
    assert counts(ctx) == (1, 1)


def test_the_redis_fast_path_still_answers_with_the_recorded_fact(ctx, with_redis):
    event = f"e-{uuid.uuid4().hex}"
    first, _ = service.record_message(ctx, message=message(event))
    again, created = service.record_message(ctx, message=message(event))
    assert not created and again.fact_id == first.fact_id and counts(ctx) == (1, 1)


def test_a_redis_key_without_a_durable_fact_does_not_lose_the_event(ctx, with_redis):
    event = f"e-{uuid.uuid4().hex}"
    with_redis.set(f"deputy:dedup:telegram:event:{event}", "1")  # a replica took the key, then crashed before its write
    fact, created = service.record_message(ctx, message=message(event))
    assert created and counts(ctx) == (1, 1)


def test_senders_resolve_through_bindings_of_active_persons_only(ctx, client):
    add_person(ctx, "p_zhangsan", bindings=[{"channel": "telegram", "external_user_id": "tg_zs"}])
    fact, _ = service.record_message(ctx, message=message("e2"))
    assert fact.person_refs == ["p_zhangsan"] and fact.content["person_id"] == "p_zhangsan"
    client.delete("/v1/persons/p_zhangsan")
    fact, _ = service.record_message(ctx, message=message("e3"))
    assert fact.person_refs == [] and fact.content["person_id"] is None
