"""Pure rules for a button press: may it act, and what does it ask for (no I/O).

A press is another input, not a side door: it becomes the same decisions typed commands do (snooze, cancel,
resolve) or a direct action the concern engine carries out (nudge, not me, take an escalation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cognitive_core import understood
from cognitive_core.rules import Decision
from fact.decisions import DecisionKind

# Verbs that act on an open loop; a press on a closed one changes nothing.
ON_OPEN_LOOPS = frozenset(
    {"later", "tomorrow", "not_me", "approve", "decline", "nudge", "cancel", "reassign", "handle", "remind", "done",
     "extend", "remind_later"}
)  # fmt: skip
# Verbs of a question the bot asked back: the pending request (or the loop picked) is in the button's args.
PICKS = frozenset({"pick_person", "ask_or_tell", "nudge_pick", "cancel_pick"})
# Verbs only while the loop still waits on the person asked (not once it was escalated).
WHILE_WAITING = frozenset({"later", "tomorrow"})


@dataclass(frozen=True)
class PressView:
    """What the rules read about one press: the button (None: unknown token), who pressed, the loop's state."""

    verb: str | None
    args: dict[str, Any] = field(default_factory=dict)
    addressee_id: str | None = None
    presser_id: str | None = None
    concern_id: str | None = None
    concern_state: str | None = None  # None: the button has no loop, or the loop does not exist
    pressed: bool = False  # a button of the same message was pressed already


def verdict(view: PressView) -> str:
    """`ok`, or why nothing happens: `unknown` token, `not_yours`, `used` (pressed before), `closed` loop."""
    if view.verb is None:
        return "unknown"
    if view.presser_id is None or view.presser_id != view.addressee_id:
        return "not_yours"
    if view.pressed:
        return "used"
    if view.verb in ON_OPEN_LOOPS and view.concern_state not in ("waiting_reply", "escalated"):
        return "closed"
    if view.verb in WHILE_WAITING and view.concern_state != "waiting_reply":
        return "closed"
    return "ok"


def decide_press(view: PressView) -> Decision:
    """The decision a press asks for (`ignore` with the reason when it may not act)."""
    why = verdict(view)
    if why != "ok":
        return Decision(DecisionKind.ignore, f"press:{why}", {"verb": view.verb, "concern_id": view.concern_id})
    params: dict[str, Any] = {"verb": view.verb, "concern_id": view.concern_id}
    rule = f"press:{view.verb}"
    if view.verb in ("pick_person", "ask_or_tell"):  # completes the request the reply was about
        request = {k: v for k, v in view.args.items() if k not in ("person_id", "as")}
        kind, _, completed = understood.complete(request, target_id=view.args["person_id"], intent=view.args.get("as"))
        return Decision(kind, rule, completed | {"verb": view.verb})
    if view.verb == "nudge_pick":
        return Decision(DecisionKind.direct_action, rule, {"verb": view.verb, "action": "nudge", **view.args})
    if view.verb == "cancel_pick":
        return Decision(DecisionKind.cancel_concern, rule, {"verb": view.verb, **view.args})
    if view.verb in ("later", "remind_later"):
        hours = int(view.args.get("hours", 2))
        return Decision(DecisionKind.snooze_concern, rule, params | {"duration_s": hours * 3600})
    if view.verb == "tomorrow":
        return Decision(DecisionKind.snooze_concern, rule, params | {"until": "morning"})
    if view.verb == "cancel":
        return Decision(DecisionKind.cancel_concern, rule, params)
    if view.verb in ("approve", "decline", "done"):
        return Decision(DecisionKind.resolve_concern, rule, params)
    return Decision(DecisionKind.direct_action, rule, params | {"action": view.verb, **view.args})
