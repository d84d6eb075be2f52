"""Pure rules for a button press: may it act, and what does it ask for (no I/O).

A press is another input, not a side door: its verb becomes the same command a typed request would (`VERBS`),
carried out through the same handler table (snooze, cancel, nudge, not me, take an escalation …).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cognitive_core.language import guesses, understood
from cognitive_core.situation import Decision
from concern import commands as c

# Verbs that act on an open loop; a press on a closed one changes nothing.
ON_OPEN_LOOPS = frozenset(
    {"later", "tomorrow", "not_me", "approve", "decline", "nudge", "cancel", "reassign", "handle", "remind", "done",
     "extend", "remind_later", "ask_stand_in", "wait_back", "cancel_reminder"}
)  # fmt: skip
# Verbs of a question the bot asked back: the pending request (or the loop picked) is in the button's args.
PICKS = frozenset({"pick_person", "ask_or_tell", "nudge_pick", "cancel_pick", "guess"})
# Verbs only while the loop still waits on the person asked (not once it was escalated).
WHILE_WAITING = frozenset({"later", "tomorrow"})
# Verbs that only read: never spent, pressable again and again (a press is still recorded once per platform event).
READ_ONLY = frozenset({"why"})


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
    """`ok`, or why nothing happens: `unknown` token, `not_yours`, `used` (pressed before), `closed` loop, or
    `escalated` (a loop already with someone else no longer waits for later)."""
    if view.verb is None or view.verb not in VERBS:  # an unknown token, or a row that is no button (a prompt)
        return "unknown"
    if view.presser_id is None or view.presser_id != view.addressee_id:
        return "not_yours"
    if view.pressed:
        return "used"
    if view.verb in ON_OPEN_LOOPS and view.concern_state not in ("waiting_reply", "escalated"):
        return "closed"
    if view.verb in WHILE_WAITING and view.concern_state != "waiting_reply":
        return "escalated" if view.concern_state == "escalated" else "closed"
    return "ok"


def _completed(view: PressView) -> Decision:
    """A did-you-mean or ask-or-tell choice: the pending request in the button's args, completed."""
    request = {k: v for k, v in view.args.items() if k not in ("person_id", "as")}
    return understood.complete(request, target_id=view.args["person_id"], intent=view.args.get("as"))


def _hours(view: PressView, default: int) -> int:
    return int(view.args.get("hours", default))


# What each verb asks for: verb → command (a pick completes the request its reply was about).
VERBS: dict[str, Callable[[PressView], c.Command]] = {
    "later": lambda v: c.Snooze(v.concern_id, _hours(v, 2) * 3600),
    "remind_later": lambda v: c.Snooze(v.concern_id, _hours(v, 1) * 3600),
    "tomorrow": lambda v: c.DeferToMorning(v.concern_id),
    "cancel": lambda v: c.Cancel(v.concern_id),
    "cancel_reminder": lambda v: c.Cancel(v.concern_id),
    "approve": lambda v: c.Decide(v.concern_id, approve=True),
    "decline": lambda v: c.Decide(v.concern_id, approve=False),
    "not_me": lambda v: c.NotMe(v.concern_id),
    "reassign": lambda v: c.AskSomeoneElse(v.concern_id),
    "ask_stand_in": lambda v: c.Reassign(v.concern_id, v.args.get("person_id", "")),
    "wait_back": lambda v: c.WaitForReturn(v.concern_id),
    "handle": lambda v: c.TakeEscalation(v.concern_id),
    "nudge": lambda v: c.Nudge(v.concern_id),
    "remind": lambda v: c.Nudge(v.concern_id),
    "done": lambda v: c.Done(v.concern_id),
    "extend": lambda v: c.Extend(v.concern_id, _hours(v, 2)),
    "pick_person": lambda v: _completed(v).command,
    "ask_or_tell": lambda v: _completed(v).command,
    "nudge_pick": lambda v: c.Nudge(v.args["concern_id"]),
    "cancel_pick": lambda v: c.Cancel(v.args["concern_id"]),
    "guess": lambda v: guesses.command(v.args.get("intent", "help"), v.args.get("person_id")),  # a reading offered
    "llm_confirm": lambda v: c.ConfirmProposal(v.args.get("decision_id", "")),
    "llm_cancel": lambda v: c.DropProposal(v.args.get("decision_id", "")),
    "why": lambda v: c.Explain(v.args.get("message", ""), v.concern_id, v.args.get("kind", ""), v.args.get("decision")),
    "fewer": lambda v: c.FewerMessages(
        v.args.get("message", ""), v.concern_id, v.args.get("kind", ""), v.args.get("decision")
    ),
}


def decide_press(view: PressView) -> Decision:
    """The decision a press asks for (`ignore` with the reason when it may not act)."""
    why = verdict(view)
    if why != "ok":
        return Decision(f"press:{why}", c.Ignore({"verb": view.verb, "concern_id": view.concern_id}))
    notes: dict[str, Any] = {"verb": view.verb}
    if view.verb in ("pick_person", "ask_or_tell"):
        notes |= _completed(view).notes
    return Decision(f"press:{view.verb}", VERBS[view.verb](view), notes)
