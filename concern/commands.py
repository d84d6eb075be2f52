"""The vocabulary between deciding and doing: every command the concern engine carries out, as frozen data.

The cognitive core decides; a decision carries one command (or an answer the core gives itself: a reply, a brief, a
review, nothing). Chat messages, button presses, the optional LLM's proposals, the API and the console all produce
these commands, and `concern.handlers.handle` carries each out through one table.

Each command has a stable serialised form, `dump(command)` → `{"type": "ask", …fields}`, recorded in the decision
fact under `command`; `load` reads it back (a held LLM proposal is confirmed by loading what was recorded). Times
are ISO 8601 instants and durations whole seconds, as they are stored. `command.flat()` is the flat shape the
decision facts' `requested` entries had before commands existed (kept beside `command` for readers of the log), and
`from_requested` turns such an entry of an old fact back into its command.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from fact.decisions import DecisionKind


@dataclass(frozen=True)
class Command:
    """A command: its type name (the serialised `type`), its decision kind, and what the older flat shape added."""

    TYPE: ClassVar[str] = ""
    KIND: ClassVar[DecisionKind] = DecisionKind.direct_action
    LEGACY: ClassVar[dict[str, Any]] = {}  # keys the flat `requested` shape carried besides the fields

    def flat(self) -> dict[str, Any]:
        """The flat shape of a decision's `requested` entry: the fields that are set, and what the shape added."""
        values = {k: v for k, v in dump(self).items() if k != "type" and v is not None}
        return {**self.LEGACY, **values}


@dataclass(frozen=True)
class Answer(Command):
    """What the core answers itself (the handler table has none of these): nothing in a loop or a person changes."""

    KIND: ClassVar[DecisionKind] = DecisionKind.reply


@dataclass(frozen=True)
class Reply(Answer):
    """A short answer to the sender by template (help, a usage line, a did-you-mean with its choices, /did …)."""

    TYPE: ClassVar[str] = "reply"
    template: str
    values: dict[str, Any] = field(default_factory=dict)

    def flat(self) -> dict[str, Any]:
        """`{"template": …, **values}`, as replies were always recorded."""
        return {"template": self.template, **self.values}


@dataclass(frozen=True)
class Brief(Answer):
    """The daily brief now (`/brief`; `/brief all`: every item)."""

    TYPE: ClassVar[str] = "brief"
    everything: bool = False

    def flat(self) -> dict[str, Any]:
        """`{"template": "brief", "all": …}`."""
        return {"template": "brief", "all": self.everything}


@dataclass(frozen=True)
class Review(Answer):
    """The weekly review now (`/review`)."""

    TYPE: ClassVar[str] = "review"

    def flat(self) -> dict[str, Any]:
        """`{"template": "review"}`."""
        return {"template": "review"}


@dataclass(frozen=True)
class ConfirmProposal(Answer):
    """The principal's Confirm under an LLM proposal: carry out exactly what the held decision proposed."""

    TYPE: ClassVar[str] = "confirm_proposal"
    KIND: ClassVar[DecisionKind] = DecisionKind.direct_action
    LEGACY: ClassVar[dict[str, Any]] = {"action": "llm_confirm"}
    decision_id: str

    def flat(self) -> dict[str, Any]:
        """The held decision's id, as the press recorded it."""
        return {**self.LEGACY, "decision_id": self.decision_id}


@dataclass(frozen=True)
class DropProposal(Answer):
    """The principal's Cancel under an LLM proposal: nothing is sent."""

    TYPE: ClassVar[str] = "drop_proposal"
    KIND: ClassVar[DecisionKind] = DecisionKind.direct_action
    LEGACY: ClassVar[dict[str, Any]] = {"action": "llm_cancel"}
    decision_id: str

    def flat(self) -> dict[str, Any]:
        """The held decision's id, as the press recorded it."""
        return {**self.LEGACY, "decision_id": self.decision_id}


@dataclass(frozen=True)
class Ignore(Answer):
    """Nothing to do or say (a group message not meant for the bot, a press that may not act …)."""

    TYPE: ClassVar[str] = "ignore"
    KIND: ClassVar[DecisionKind] = DecisionKind.ignore
    values: dict[str, Any] = field(default_factory=dict)

    def flat(self) -> dict[str, Any]:
        """The values as they are."""
        return dict(self.values)


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
class SetPolicy(Command):
    """The sender's own interaction policy changed (quiet hours, pause, resume)."""

    TYPE: ClassVar[str] = "set_policy"
    LEGACY: ClassVar[dict[str, Any]] = {"action": "policy"}
    patch: dict[str, Any] = field(default_factory=dict)


COMMANDS: dict[str, type[Command]] = {
    cls.TYPE: cls
    for cls in (
        Ask,
        Escalate,
        Tell,
        Remind,
        Commit,
        Resolve,
        Acknowledge,
        Snooze,
        DeferToMorning,
        Cancel,
        Nudge,
        NotMe,
        AskSomeoneElse,
        Reassign,
        TakeEscalation,
        Decide,
        Done,
        Extend,
        Bind,
        SetPolicy,
        Reply,
        Brief,
        Review,
        ConfirmProposal,
        DropProposal,
        Ignore,
    )
}


def dump(command: Command) -> dict[str, Any]:
    """The stable serialised form: `type` and every field (tuples as lists)."""
    values = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(command).items()}
    return {"type": command.TYPE, **values}


def load(data: dict[str, Any]) -> Command:
    """The command a serialised form names; ValueError for an unknown type or fields it does not have."""
    cls = COMMANDS.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown command type {data.get('type')!r}")
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names - {"type"}
    if unknown:
        raise ValueError(f"{cls.TYPE} has no field {', '.join(sorted(unknown))}")
    values = {k: tuple(v) if isinstance(v, list) and k == "keywords" else v for k, v in data.items() if k != "type"}
    return cls(**values)


def _has(*keys: str, **equal: Any):
    return lambda entry: all(k in entry for k in keys) and all(entry.get(k) == v for k, v in equal.items())


# How each command was written before commands existed: (decision kind, what the entry has) → command type. Read
# top to bottom, the first match wins (an old `requested` entry has no `type`).
LEGACY_SHAPES: tuple[tuple[DecisionKind, Any, type[Command]], ...] = (
    (DecisionKind.raise_concern, _has("parent_id", "due_at"), Commit),
    (DecisionKind.raise_concern, _has("target_person_id", "question"), Ask),
    (DecisionKind.raise_concern, _has("due_at", "text"), Remind),
    (DecisionKind.escalate, _has("decision_maker_id", "question"), Escalate),
    (DecisionKind.direct_action, _has("target_person_id", action="notify"), Tell),
    (DecisionKind.direct_action, _has("code", action="bind"), Bind),
    (DecisionKind.direct_action, _has("patch", action="policy"), SetPolicy),
    (DecisionKind.direct_action, _has("concern_id", "target_person_id", action="reassign"), Reassign),
    (DecisionKind.direct_action, _has("concern_id", action="reassign"), AskSomeoneElse),
    (DecisionKind.direct_action, _has("concern_id", action="nudge"), Nudge),
    (DecisionKind.direct_action, _has("concern_id", action="remind"), Nudge),
    (DecisionKind.direct_action, _has("concern_id", action="not_me"), NotMe),
    (DecisionKind.direct_action, _has("concern_id", action="handle"), TakeEscalation),
    (DecisionKind.direct_action, _has("concern_id", action="extend"), Extend),
    (DecisionKind.resolve_concern, _has("concern_id", "answer"), Resolve),
    (DecisionKind.resolve_concern, _has("concern_id", verb="approve"), Decide),
    (DecisionKind.resolve_concern, _has("concern_id", verb="decline"), Decide),
    (DecisionKind.resolve_concern, _has("concern_id", verb="done"), Done),
    (DecisionKind.snooze_concern, _has("concern_id", acknowledgement=True), Acknowledge),
    (DecisionKind.snooze_concern, _has("concern_id", until="morning"), DeferToMorning),
    (DecisionKind.snooze_concern, _has("concern_id", "duration_s"), Snooze),
    (DecisionKind.cancel_concern, _has("concern_id"), Cancel),
)


def from_requested(kind: str, entry: dict[str, Any]) -> Command | None:
    """The command (or answer) an older decision's `requested` entry stood for; None for a shape it never had."""
    if "type" in entry:
        return load(entry)
    entry = {k: v for k, v in entry.items() if k != "kind"}  # the decision's kind, added to every entry
    if kind == DecisionKind.reply:
        template = entry.pop("template", "")
        if template == "brief":
            return Brief(everything=bool(entry.get("all")))
        return Review() if template == "review" else Reply(template, entry)
    if kind == DecisionKind.ignore:
        return Ignore(entry)
    for shape_kind, matches, cls in LEGACY_SHAPES:
        if shape_kind == kind and matches(entry):
            values = {f.name: entry[f.name] for f in fields(cls) if f.name in entry}
            if cls is Decide:
                values["approve"] = entry.get("verb") == "approve"
            if cls is Escalate:
                values["keywords"] = tuple(entry.get("keywords", ()))
            return cls(**values)
    return None
