"""A process dying between 'decided' and 'sent' leaves a pending action that becomes interrupted, never re-sent."""

import multiprocessing
from datetime import timedelta

from fastapi.testclient import TestClient

from action import service
from app.main import create_app
from tests.conftest import START
from tests.integration.action_helpers import (
    action_facts,
    action_rows,
    add_concern,
    add_memory_channels,
    add_person,
    ask,
    notify,
)
from tests.integration.workers import notify_and_die


def _crash_mid_send(ctx, concern_id: str | None = None) -> None:
    args = (ctx.settings.database_url, START.isoformat(), concern_id)
    proc = multiprocessing.get_context("spawn").Process(target=notify_and_die, args=args)
    proc.start()
    proc.join(60)
    assert proc.exitcode == 17


def test_startup_finalises_an_interrupted_action_as_failed_without_resending(ctx, clock):
    feishu, telegram = add_memory_channels(ctx)
    add_person(ctx)
    _crash_mid_send(ctx)
    [pending] = action_rows(ctx)
    assert pending.result == "pending" and action_facts(ctx) == []
    clock.advance(ctx.settings.action_pending_timeout + timedelta(seconds=1))
    with TestClient(create_app(ctx=ctx, run_migrations=False)):
        pass  # the lifespan runs recovery at start-up
    [row] = action_rows(ctx)
    assert row.result == "failed" and row.result_detail["error"] == "interrupted"
    [fact] = action_facts(ctx)
    assert fact.content["action_id"] == row.action_id and fact.content["result"] == "failed"
    assert feishu.sent == telegram.sent == []


def test_recovery_leaves_actions_that_may_still_be_in_flight(ctx, clock):
    add_memory_channels(ctx)
    add_person(ctx)
    _crash_mid_send(ctx)
    clock.advance(timedelta(seconds=5))
    assert service.recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout) == []
    assert action_rows(ctx)[0].result == "pending"


def test_an_interrupted_action_keeps_counting_toward_the_cap_because_it_may_have_arrived(ctx, clock):
    add_memory_channels(ctx)
    add_person(ctx, policy={"max_proactive_contacts_per_day": 1})
    _crash_mid_send(ctx)
    assert service.execute(ctx, request=notify(notification_type="x")).result_detail["blocked_by"] == "L1:daily_cap"
    clock.advance(ctx.settings.action_pending_timeout + timedelta(seconds=1))
    [recovered] = service.recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout)
    assert action_rows(ctx)[0].counted and action_rows(ctx)[0].result == "failed"
    assert service.execute(ctx, request=notify(notification_type="y")).result_detail["blocked_by"] == "L1:daily_cap"


def test_an_interrupted_send_keeps_counting_toward_the_concerns_contact_limit(ctx, clock):
    add_memory_channels(ctx)
    add_person(ctx)
    add_concern(ctx, "con_20260318_001")
    assert service.execute(ctx, request=ask("con_20260318_001")).result == "success"
    _crash_mid_send(ctx, concern_id="con_20260318_001")
    clock.advance(ctx.settings.action_pending_timeout + timedelta(seconds=1))
    service.recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout)
    third = service.execute(ctx, request=ask("con_20260318_001"))
    assert third.result_detail["blocked_by"] == "L3:concern_contact_limit"
