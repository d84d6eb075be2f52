"""A bundle's layers without a database: L3 holds for each loop it asks for; L2 asked ahead by its window."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from action.models import ActionRequest, ActionType
from action.rules import ConcernState, ConcernView, Limits, Snapshot, evaluate, kept_detail
from person.models import InteractionPolicy

NOW = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)  # 12:00 Asia/Shanghai
H = timedelta(hours=1)
LIMITS = Limits(follow_up_schedule={"P1": [4 * H, 24 * H, 24 * H]}, concern_contact_limit=2)


def view(concern_id: str, *, contacts=(), last=NOW - 5 * H) -> ConcernView:
    state = ConcernState(priority="P1", follow_up_count=0)
    return ConcernView(concern_id, state, last_contact_at=last, contacts_in_window=tuple(contacts))


def snap(first: ConcernView, *others: ConcernView) -> Snapshot:
    return Snapshot(
        action_type=ActionType.send_message,
        now=NOW,
        priority="P1",
        reactive=False,
        policy=InteractionPolicy(quiet_hours=[]),
        tz=ZoneInfo("Asia/Shanghai"),
        proactive_today=0,
        limits=LIMITS,
        concern=first,
        follow_up=True,
        bundled=others,
    )


def test_a_bundle_is_refused_when_any_of_its_loops_reached_the_contact_limit():
    full = view("con_20260318_002", contacts=(NOW - 3 * H, NOW - 2 * H))
    verdict = evaluate(snap(view("con_20260318_001"), full))
    assert verdict.blocked_by == "L3:concern_contact_limit" and "con_20260318_002" in verdict.reason


def test_a_bundle_whose_loops_each_have_room_is_allowed():
    assert evaluate(snap(view("con_20260318_001"), view("con_20260318_002", contacts=(NOW - 3 * H,)))).allowed


@pytest.mark.parametrize(("early", "allowed"), [(timedelta(0), False), (30 * timedelta(minutes=1), True)])
def test_a_follow_up_due_within_the_window_counts_as_due_when_asked_ahead(early, allowed):
    soon = view("con_20260318_001", last=NOW - 4 * H + timedelta(minutes=20))  # due in 20 minutes
    assert evaluate(replace(snap(soon), early=early)).allowed is allowed


def test_a_bundle_names_its_first_loop_as_its_concern():
    with pytest.raises(ValueError, match="first loop"):
        ActionRequest(
            action_type="send_message", decision_ref="dec_20260318_001", target_person_id="p", text="x",
            concern_id="con_20260318_002", concerns=["con_20260318_001", "con_20260318_002"],
        )  # fmt: skip


def test_only_a_bundle_carries_more_than_six_buttons():
    buttons = [{"label": f"b{i}", "token": f"token{i:04d}"} for i in range(9)]
    base = {"action_type": "send_message", "decision_ref": "dec_20260318_001", "target_person_id": "p", "text": "x"}
    with pytest.raises(ValueError, match="at most 6"):
        ActionRequest(**base, buttons=buttons)
    ids = ["con_20260318_001", "con_20260318_002"]
    assert len(ActionRequest(**base, buttons=buttons, concern_id=ids[0], concerns=ids).buttons) == 9


def test_a_rewritten_detail_keeps_the_loops_a_bundle_asked_for():
    assert kept_detail({"concerns": ["a", "b"], "priority": "P1", "message_id": "9"}) == {
        "concerns": ["a", "b"],
        "priority": "P1",
    }
