"""Every blocked_by code of SPEC §4.2, produced through the real execute path and recorded as a fact."""

from datetime import timedelta

import pytest

from action import service
from action.models import ActionRecord
from tests.integration.action_helpers import (
    action_facts,
    add_concern,
    add_memory_channels,
    add_person,
    ask,
    notify,
    opening,
    state_of,
)

CON = "con_20260318_001"


def _quiet(ctx, clock):
    add_person(ctx, policy={"quiet_hours": [{"start": "09:00", "end": "11:00"}]})  # the clock says 10:00 local
    return notify()


def _cap(ctx, clock):
    add_person(ctx, policy={"max_proactive_contacts_per_day": 0})
    return notify()


def _disabled(ctx, clock):
    add_person(ctx, policy={"allow_proactive_ping": False})
    return notify()


def _paused(ctx, clock):
    add_person(ctx, policy={"paused_until": (clock.now() + timedelta(days=1)).isoformat()})
    return notify()


def _global(ctx, clock):
    ctx.settings.max_active_concerns = 1
    add_person(ctx)
    add_person(ctx, "p_lisi")
    add_concern(ctx, "con_20260318_009", target="p_lisi")
    return opening(ctx, CON)


def _per_person(ctx, clock):
    ctx.settings.max_active_concerns_per_person = 1
    add_person(ctx)
    add_concern(ctx, "con_20260318_009")
    return opening(ctx, CON)


def _interval(ctx, clock):
    add_person(ctx)
    add_concern(ctx, CON)
    service.execute(ctx, request=ask(CON))
    return ask(CON, follow_up=True)  # the concern engine hands L2 the loop's state (see `state_of` below)


def _contact_limit(ctx, clock):
    add_person(ctx)
    add_concern(ctx, CON)
    service.execute(ctx, request=ask(CON))
    service.execute(ctx, request=ask(CON))
    return ask(CON)


def _cooldown(ctx, clock):
    add_person(ctx)
    service.execute(ctx, request=notify(notification_type="task_overdue"))
    clock.advance(timedelta(hours=3, minutes=59))
    return notify(notification_type="task_overdue")


CASES = {
    "L1:quiet_hours": _quiet,
    "L1:daily_cap": _cap,
    "L1:proactive_disabled": _disabled,
    "L1:paused": _paused,
    "L2:global_concern_limit": _global,
    "L2:person_concern_limit": _per_person,
    "L2:follow_up_interval": _interval,
    "L3:concern_contact_limit": _contact_limit,
    "L4:cooldown": _cooldown,
}


@pytest.mark.parametrize("code", list(CASES))
def test_each_layer_code_blocks_sends_nothing_and_is_recorded(ctx, clock, code):
    feishu, telegram = add_memory_channels(ctx)
    request = CASES[code](ctx, clock)
    sent_before = len(feishu.sent) + len(telegram.sent)
    # L2's limits on opening a loop are asked when a concern is raised; every other layer when an action runs.
    record = (
        request
        if isinstance(request, ActionRecord)
        else service.execute(ctx, request=request, concern_state=state_of(CON))
    )
    assert record.result == "blocked"
    assert record.result_detail["blocked_by"] == code and record.result_detail["reason"]
    assert len(feishu.sent) + len(telegram.sent) == sent_before
    assert action_facts(ctx)[-1].content == record.model_dump(mode="json")
