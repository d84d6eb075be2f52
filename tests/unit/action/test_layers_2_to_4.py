"""L2 concern limits, L3 contact limit and L4 cooldown, evaluated on snapshots without a database."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from action.models import ActionType
from action.rules import (
    ConcernState,
    ConcernView,
    Limits,
    Snapshot,
    evaluate,
    layer2_concern_limits,
    layer2_follow_up_interval,
    layer3_contact_limit,
    layer4_cooldown,
)
from app.settings import Settings
from person.models import InteractionPolicy

NOW = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)  # 12:00 Asia/Shanghai
H = timedelta(hours=1)
LIMITS = Limits(
    follow_up_schedule=Settings(_env_file=None).follow_up_schedule,
    cooldowns=Settings(_env_file=None).notification_cooldowns,
)


def concern(
    *, follow_up_count=0, active_global=0, active_for_person=0, last_contact_at=NOW - 5 * H, contacts_in_window=()
):
    state = ConcernState(
        priority="P1", follow_up_count=follow_up_count, active_global=active_global, active_for_person=active_for_person
    )
    return ConcernView(
        "con_20260318_001", state, last_contact_at=last_contact_at, contacts_in_window=contacts_in_window
    )


def opening(**kw):
    return ConcernState(priority="P1", **kw)


def snap(
    *, action=ActionType.send_message, c=None, follow_up=False, ntype=None, last=None, reactive=False, limits=LIMITS
):
    return Snapshot(
        action_type=action,
        now=NOW,
        priority="P1",
        reactive=reactive,
        policy=InteractionPolicy(quiet_hours=[]),
        tz=ZoneInfo("Asia/Shanghai"),
        proactive_today=0,
        limits=limits,
        concern=c,
        follow_up=follow_up,
        notification_type=ntype,
        last_same_notification_at=last,
    )


def test_thirty_other_active_concerns_block_a_new_one():
    assert layer2_concern_limits(opening(active_global=29), LIMITS).allowed
    assert layer2_concern_limits(opening(active_global=30), LIMITS).blocked_by == "L2:global_concern_limit"


def test_five_active_concerns_on_one_person_block_a_sixth():
    assert layer2_concern_limits(opening(active_for_person=4), LIMITS).allowed
    assert layer2_concern_limits(opening(active_for_person=5), LIMITS).blocked_by == "L2:person_concern_limit"


def test_concern_limits_come_from_settings():
    tight = Limits(
        max_active_concerns=2, max_active_concerns_per_person=1, follow_up_schedule=LIMITS.follow_up_schedule
    )
    assert layer2_concern_limits(opening(active_for_person=1), tight).blocked_by == "L2:person_concern_limit"


def test_p1_first_follow_up_waits_four_hours_after_the_last_contact():
    early = layer2_follow_up_interval(snap(c=concern(last_contact_at=NOW - 3 * H), follow_up=True))
    assert early.blocked_by == "L2:follow_up_interval"
    assert early.not_before == NOW + H
    assert layer2_follow_up_interval(snap(c=concern(last_contact_at=NOW - 4 * H), follow_up=True)).allowed


def test_p1_second_follow_up_waits_twenty_four_hours():
    v = layer2_follow_up_interval(snap(c=concern(follow_up_count=1, last_contact_at=NOW - 23 * H), follow_up=True))
    assert v.blocked_by == "L2:follow_up_interval" and v.not_before == NOW + H


def test_follow_up_after_the_schedule_is_exhausted_is_refused():
    v = layer2_follow_up_interval(snap(c=concern(follow_up_count=2, last_contact_at=NOW - 100 * H), follow_up=True))
    assert v.blocked_by == "L2:follow_up_interval" and "exhausted" in v.reason


def test_third_contact_in_24h_is_refused_until_the_oldest_leaves_the_window():
    contacts = (NOW - 20 * H, NOW - 2 * H)
    v = layer3_contact_limit(snap(c=concern(contacts_in_window=contacts)))
    assert v.blocked_by == "L3:concern_contact_limit"
    assert v.not_before == NOW + 4 * H


def test_contacts_older_than_the_window_do_not_count():
    contacts = (NOW - 24 * H, NOW - 2 * H)
    assert layer3_contact_limit(snap(c=concern(contacts_in_window=contacts))).allowed


@pytest.mark.parametrize(
    ("ntype", "cooldown"), [("task_overdue", 4 * H), ("daily_brief", 20 * H), ("anything_else", H)]
)
def test_cooldown_per_notification_type(ntype, cooldown):
    inside = layer4_cooldown(snap(action=ActionType.notify, ntype=ntype, last=NOW - cooldown + timedelta(seconds=1)))
    assert inside.blocked_by == "L4:cooldown"
    assert layer4_cooldown(snap(action=ActionType.notify, ntype=ntype, last=NOW - cooldown)).allowed


def test_cooldowns_are_configurable():
    limits = Limits(cooldowns={"task_overdue": 10 * H, "default": H})
    assert (
        layer4_cooldown(
            snap(action=ActionType.notify, ntype="task_overdue", last=NOW - 5 * H, limits=limits)
        ).blocked_by
        == "L4:cooldown"
    )


def test_reactive_notify_skips_the_cooldown():
    assert evaluate(snap(action=ActionType.notify, ntype="task_overdue", last=NOW, reactive=True)).allowed


def test_l2_and_l3_apply_only_to_send_message_tied_to_a_concern():
    full = concern(follow_up_count=9, contacts_in_window=(NOW, NOW))
    assert evaluate(snap(c=full, follow_up=True)).blocked_by == "L2:follow_up_interval"
    assert evaluate(snap(c=full)).blocked_by == "L3:concern_contact_limit"  # a question is no follow-up
    assert evaluate(snap(action=ActionType.send_message, c=None)).allowed
    assert evaluate(snap(action=ActionType.escalate, c=full)).allowed
    assert evaluate(snap(action=ActionType.backflow, c=full)).allowed


def test_l4_does_not_apply_to_send_message_escalate_or_backflow():
    for action in (ActionType.send_message, ActionType.escalate, ActionType.backflow):
        assert evaluate(snap(action=action, ntype="task_overdue", last=NOW)).allowed


def test_layers_run_in_order_and_the_first_refusal_wins():
    s = Snapshot(
        action_type=ActionType.send_message,
        now=NOW,
        priority="P1",
        reactive=False,
        policy=InteractionPolicy(max_proactive_contacts_per_day=0, quiet_hours=[]),
        tz=ZoneInfo("UTC"),
        proactive_today=0,
        limits=LIMITS,
        concern=concern(follow_up_count=9, contacts_in_window=(NOW, NOW)),
        follow_up=True,
    )
    assert evaluate(s).blocked_by == "L1:daily_cap"
