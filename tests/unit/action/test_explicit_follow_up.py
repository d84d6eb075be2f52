"""A follow-up a person asked for now ("Nudge now", "Remind them"): L2's interval is skipped, L1 and L3 are not."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from action.models import ActionType
from action.rules import ConcernState, ConcernView, Limits, Snapshot, evaluate
from app.settings import Settings
from person.models import InteractionPolicy, QuietWindow

NOW = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)  # 12:00 Asia/Shanghai
H = timedelta(hours=1)
LIMITS = Limits(follow_up_schedule=Settings(_env_file=None).follow_up_schedule)


def snap(*, explicit, follow_up_count=0, last=NOW - H, contacts=(), policy=None, priority="P1"):
    view = ConcernView(
        "con_20260318_001",
        ConcernState(priority=priority, follow_up_count=follow_up_count),
        last_contact_at=last,
        contacts_in_window=contacts,
    )
    return Snapshot(
        action_type=ActionType.send_message,
        now=NOW,
        priority=priority,
        reactive=False,
        policy=policy or InteractionPolicy(quiet_hours=[]),
        tz=ZoneInfo("Asia/Shanghai"),
        proactive_today=0,
        limits=LIMITS,
        concern=view,
        follow_up=True,
        explicit=explicit,
    )


def test_an_explicit_follow_up_is_not_held_to_the_interval():
    early = snap(explicit=False)
    assert evaluate(early).blocked_by == "L2:follow_up_interval"
    assert evaluate(replace(early, explicit=True)).allowed


def test_an_explicit_follow_up_is_allowed_after_the_schedule_is_exhausted():
    exhausted = snap(explicit=False, follow_up_count=2, last=NOW - 30 * H)
    assert evaluate(exhausted).blocked_by == "L2:follow_up_interval"
    assert evaluate(replace(exhausted, explicit=True)).allowed


def test_an_explicit_follow_up_still_keeps_the_contact_limit():
    verdict = evaluate(snap(explicit=True, contacts=(NOW - 3 * H, NOW - H)))
    assert verdict.blocked_by == "L3:concern_contact_limit" and verdict.not_before == NOW - 3 * H + 24 * H


def test_an_explicit_follow_up_still_keeps_quiet_hours():
    quiet = InteractionPolicy(quiet_hours=[QuietWindow(start="11:00", end="13:00")])
    verdict = evaluate(snap(explicit=True, policy=quiet))
    assert verdict.blocked_by == "L1:quiet_hours" and verdict.not_before == NOW + H
