"""Facts alone can prove politeness: every action_result's result_detail says priority, proactive, solicited,
reactive and the target's local time (with the target's offset), whatever the outcome."""

from __future__ import annotations

import pytest

from action import service
from action.rules import POLITENESS
from tests.integration.action_helpers import action_facts, add_memory_channels, add_person, notify


@pytest.fixture
def chans(ctx):
    return add_memory_channels(ctx)


def _detail(ctx) -> dict:
    [fact] = action_facts(ctx)
    return fact.content["result_detail"]


def test_a_proactive_notify_says_its_priority_and_the_targets_local_time(ctx, chans):
    add_person(ctx, timezone="Europe/London")  # the clock says 2026-03-18 10:00 in Shanghai: 02:00 in London
    service.execute(ctx, request=notify(priority="P1"))
    detail = _detail(ctx)
    assert set(POLITENESS) <= detail.keys() and detail["message_id"]  # the keys others rely on stay
    assert {k: detail[k] for k in POLITENESS} == {
        "priority": "P1",
        "proactive": True,
        "solicited": False,
        "reactive": False,
        "target_local_time": "2026-03-18T02:00:00+00:00",
    }


def test_a_reactive_reply_is_not_proactive(ctx, chans):
    add_person(ctx)
    service.execute(ctx, request=notify(reactive=True, priority="P3"))
    detail = _detail(ctx)
    assert (detail["priority"], detail["proactive"], detail["reactive"], detail["solicited"]) == (
        "P3",
        False,
        True,
        False,
    )
    assert detail["target_local_time"] == "2026-03-18T10:00:00+08:00"


def test_a_backflow_is_proactive_and_solicited(ctx, chans):
    add_person(ctx)
    service.execute(ctx, request=notify(action_type="backflow", priority="P2"))
    detail = _detail(ctx)
    assert (detail["proactive"], detail["solicited"], detail["reactive"]) == (True, True, False)


def test_a_blocked_action_says_the_same_so_a_refusal_in_quiet_hours_is_provable(ctx, chans):
    add_person(ctx, policy={"quiet_hours": [{"start": "09:00", "end": "11:00"}]})
    record = service.execute(ctx, request=notify(priority="P2"))
    assert record.result == "blocked" and record.result_detail["blocked_by"] == "L1:quiet_hours"
    detail = _detail(ctx)
    assert (detail["priority"], detail["proactive"], detail["target_local_time"]) == (
        "P2",
        True,
        "2026-03-18T10:00:00+08:00",
    )


def test_an_interrupted_send_keeps_the_keys_when_recovered(ctx, chans, clock):
    from datetime import timedelta

    from action import execution

    add_person(ctx)
    reserved = execution.reserve(ctx, notify(request_key="k1"), actor="test")
    assert reserved is not None
    clock.advance(timedelta(minutes=10))
    assert service.recover_interrupted(ctx, older_than=timedelta(minutes=5))
    detail = _detail(ctx)
    assert detail["error"] == "interrupted" and detail["target_local_time"] == "2026-03-18T10:00:00+08:00"
    assert detail["proactive"] is True and detail["priority"] == "P2"
