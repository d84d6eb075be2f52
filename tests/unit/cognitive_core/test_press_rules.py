"""Pure press rules: who may press, once, on open loops only; and what each verb asks for."""

import pytest

from cognitive_core.presses.rules import PressView, decide_press, verdict
from fact.decisions import DecisionKind

OPEN = {"addressee_id": "p_zs", "presser_id": "p_zs", "concern_id": "con_1", "concern_state": "waiting_reply"}


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (PressView(verb=None, presser_id="p_zs"), "unknown"),
        (PressView(verb="later", **{**OPEN, "presser_id": "p_ls"}), "not_yours"),
        (PressView(verb="later", **{**OPEN, "presser_id": None}), "not_yours"),
        (PressView(verb="later", pressed=True, **OPEN), "used"),
        (PressView(verb="later", **{**OPEN, "concern_state": "resolved"}), "closed"),
        (PressView(verb="later", **{**OPEN, "concern_state": None}), "closed"),
        (PressView(verb="later", **{**OPEN, "concern_state": "escalated"}), "escalated"),
        (PressView(verb="tomorrow", **{**OPEN, "concern_state": "escalated"}), "escalated"),
        (PressView(verb="later", **{**OPEN, "concern_state": "resolved"}), "closed"),
        (PressView(verb="handle", **{**OPEN, "concern_state": "escalated"}), "ok"),
        (PressView(verb="not_me", **OPEN), "ok"),
    ],
)
def test_a_press_acts_only_for_its_addressee_once_on_an_open_loop(view, expected):
    assert verdict(view) == expected


def test_someone_elses_press_is_ignored_even_when_the_button_was_used():
    view = PressView(verb="later", pressed=True, **{**OPEN, "presser_id": "p_ls"})
    assert verdict(view) == "not_yours"


@pytest.mark.parametrize(
    ("verb", "args", "kind", "params"),
    [
        ("later", {"hours": 2}, DecisionKind.snooze_concern, {"duration_s": 7200}),
        ("tomorrow", {}, DecisionKind.snooze_concern, {"until": "morning"}),
        ("cancel", {}, DecisionKind.cancel_concern, {}),
        ("approve", {}, DecisionKind.resolve_concern, {}),
        ("not_me", {}, DecisionKind.direct_action, {"action": "not_me"}),
        ("nudge", {}, DecisionKind.direct_action, {"action": "nudge"}),
    ],
)
def test_each_verb_becomes_the_decision_a_typed_command_would(verb, args, kind, params):
    decision = decide_press(PressView(verb=verb, args=args, **OPEN))
    assert decision.kind == kind and decision.rule == f"press:{verb}"
    assert params.items() <= decision.params.items() and decision.params["concern_id"] == "con_1"


def test_a_press_that_may_not_act_is_an_ignore_naming_why():
    decision = decide_press(PressView(verb="later", **{**OPEN, "presser_id": "p_ls"}))
    assert decision.kind == DecisionKind.ignore and decision.rule == "press:not_yours"
