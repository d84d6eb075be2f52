"""The commands the concern engine carries out (`concern.handlers`): what changes a loop or a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from concern.commands.base import Command, dump
from fact.decisions import DecisionKind


@dataclass(frozen=True)
class Ask(Command):
    """Ask someone a question and wait for the answer (a loop: follow-ups, escalation, backflow)."""

    TYPE: ClassVar[str] = "ask"
    KIND: ClassVar[DecisionKind] = DecisionKind.raise_concern
    target_person_id: str
    question: str
    priority: str = "P1"
    deadline: str | None = None
    deadline_words: str | None = None


@dataclass(frozen=True)
class Escalate(Command):
    """A member's risky words (money, contracts): ask their decision maker to approve or decline."""

    TYPE: ClassVar[str] = "escalate"
    KIND: ClassVar[DecisionKind] = DecisionKind.escalate
    decision_maker_id: str
    question: str
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tell(Command):
    """Pass a message on, expecting no answer."""

    TYPE: ClassVar[str] = "tell"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "notify"}
    target_person_id: str
    text: str
    priority: str = "P2"


@dataclass(frozen=True)
class Notify(Command):
    """An operator's one-way notice to a person now (`POST /v1/notifications`), through all four layers."""

    TYPE: ClassVar[str] = "notify"
    LEGACY: ClassVar[dict[str, Any]] = {"action_type": "notify"}
    target_person_id: str
    text: str = ""
    notification_type: str = "default"
    priority: str = "P2"


@dataclass(frozen=True)
class Remind(Command):
    """A reminder the sender sets for themselves, due at `due_at`."""

    TYPE: ClassVar[str] = "remind"
    KIND: ClassVar[DecisionKind] = DecisionKind.raise_concern
    LEGACY: ClassVar[dict[str, Any]] = {"kind": "reminder"}
    due_at: str
    text: str
    words: str = ""


@dataclass(frozen=True)
class Commit(Command):
    """An answer that promised a time: a commitment loop, checked in on at `due_at`."""

    TYPE: ClassVar[str] = "commit"
    KIND: ClassVar[DecisionKind] = DecisionKind.raise_concern
    parent_id: str
    due_at: str
    words: str = ""
    vague: bool = False


@dataclass(frozen=True)
class Resolve(Command):
    """An answer to a waiting loop (a question, an escalation, a commitment's check-in)."""

    TYPE: ClassVar[str] = "resolve"
    KIND: ClassVar[DecisionKind] = DecisionKind.resolve_concern
    concern_id: str
    answer: str
    media_kind: str | None = None


@dataclass(frozen=True)
class Acknowledge(Command):
    """A bare "收到" / "ok": the loop stays open, the next follow-up waits."""

    TYPE: ClassVar[str] = "acknowledge"
    KIND: ClassVar[DecisionKind] = DecisionKind.snooze_concern
    LEGACY: ClassVar[dict[str, Any]] = {"acknowledgement": True}
    concern_id: str


@dataclass(frozen=True)
class Snooze(Command):
    """Put the next follow-up (or a reminder) off for `duration_s` seconds."""

    TYPE: ClassVar[str] = "snooze"
    KIND: ClassVar[DecisionKind] = DecisionKind.snooze_concern
    concern_id: str
    duration_s: int


@dataclass(frozen=True)
class DeferToMorning(Command):
    """ "Tomorrow": the next follow-up at the person's next morning."""

    TYPE: ClassVar[str] = "defer_to_morning"
    KIND: ClassVar[DecisionKind] = DecisionKind.snooze_concern
    LEGACY: ClassVar[dict[str, Any]] = {"until": "morning"}
    concern_id: str


@dataclass(frozen=True)
class Cancel(Command):
    """Cancel a loop: no further contact (its originator, or an operator with `as_admin`)."""

    TYPE: ClassVar[str] = "cancel"
    KIND: ClassVar[DecisionKind] = DecisionKind.cancel_concern
    concern_id: str


@dataclass(frozen=True)
class Nudge(Command):
    """One follow-up to the person asked, now (the originator's "催一下", an escalation's "Remind them")."""

    TYPE: ClassVar[str] = "nudge"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "nudge"}
    concern_id: str


@dataclass(frozen=True)
class NotMe(Command):
    """The person asked says it is not theirs: no more follow-ups; the originator chooses what next."""

    TYPE: ClassVar[str] = "not_me"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "not_me"}
    concern_id: str


@dataclass(frozen=True)
class AskSomeoneElse(Command):
    """ "Ask someone else": the originator's next message names who to ask instead."""

    TYPE: ClassVar[str] = "ask_someone_else"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "reassign"}
    concern_id: str


@dataclass(frozen=True)
class Reassign(Command):
    """Ask `target_person_id` the loop's question instead (the old loop is cancelled)."""

    TYPE: ClassVar[str] = "reassign"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "reassign"}
    concern_id: str
    target_person_id: str


@dataclass(frozen=True)
class TakeEscalation(Command):
    """ "I'll handle it": the escalation's recipient takes it."""

    TYPE: ClassVar[str] = "take_escalation"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "handle"}
    concern_id: str


@dataclass(frozen=True)
class Decide(Command):
    """A decision maker's Approve / Decline of a decision request."""

    TYPE: ClassVar[str] = "decide"
    KIND: ClassVar[DecisionKind] = DecisionKind.resolve_concern
    concern_id: str
    approve: bool


@dataclass(frozen=True)
class Done(Command):
    """Done: a reminder closes, a commitment is kept."""

    TYPE: ClassVar[str] = "done"
    KIND: ClassVar[DecisionKind] = DecisionKind.resolve_concern
    concern_id: str


@dataclass(frozen=True)
class Extend(Command):
    """A commitment's "2 more hours"."""

    TYPE: ClassVar[str] = "extend"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "extend"}
    concern_id: str
    hours: int = 2


@dataclass(frozen=True)
class Bind(Command):
    """Redeem a one-time bind code: the sender's platform account becomes a person's binding."""

    TYPE: ClassVar[str] = "bind"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "bind"}
    code: str


@dataclass(frozen=True)
class WaitForReturn(Command):
    """The asker chose to wait for the person asked to be back (the question stays held): it is only noted."""

    TYPE: ClassVar[str] = "wait_for_return"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "wait_back"}
    concern_id: str


@dataclass(frozen=True)
class SetAway(Command):
    """The sender says they are away or on leave (until when, open-ended when None), in their own words."""

    TYPE: ClassVar[str] = "set_away"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "away"}
    status: str = "away"  # away | on_leave
    until: str | None = None
    note: str = ""
    stand_in_id: str | None = None  # who they said stands in ("有事找李四"); None keeps the one an admin named


@dataclass(frozen=True)
class SetPolicy(Command):
    """The sender's own interaction policy changed (quiet hours, pause, resume)."""

    TYPE: ClassVar[str] = "set_policy"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "policy"}
    patch: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FewerMessages(Command):
    """ "Too many messages" from the person a message went to: one step less of their own policy (person.rules)."""

    TYPE: ClassVar[str] = "fewer_messages"
    message: str  # the request key of the message the button sits on
    concern_id: str | None = None
    purpose: str = "question"
    decision_id: str | None = None

    def flat(self) -> dict[str, Any]:
        """Its serialised form: it never had an older flat shape."""
        return dump(self)
