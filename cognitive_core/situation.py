"""What the rules read and conclude: the signal, who sent it, who exists, and the decisions (plain data).

A decision carries a command of `concern.commands`, the vocabulary the concern engine carries out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from concern.commands import Command
from fact.decisions import DecisionKind


@dataclass(frozen=True)
class PersonView:
    """What the rules know about a person."""

    person_id: str
    display_name: str
    role: str = "member"
    locale: str = "zh"
    aliases: tuple[str, ...] = ()
    manager_id: str | None = None
    external_ids: tuple[tuple[str, str], ...] = ()  # (channel, external_user_id)
    timezone: str = "UTC"  # where their "明天下午3点" is read


@dataclass(frozen=True)
class WaitingConcern:
    """A concern waiting for the sender's answer: as the person asked, or as the escalation's recipient."""

    concern_id: str
    originator_id: str
    question: str
    message_refs: tuple[str, ...] = ()
    last_contact_at: datetime | None = None
    role: str = "target"  # target | escalation
    kind: str = "question"  # question | commitment | reminder


@dataclass(frozen=True)
class SignalView:
    """The parts of a message_received fact the rules read."""

    fact_id: str
    channel: str
    text: str
    chat_type: str = "p2p"
    mentions_bot: bool = False
    mentions: tuple[tuple[str | None, str], ...] = ()  # (external_user_id, name)
    reply_to: str | None = None  # "channel:message_id" of the quoted message
    media_kind: str | None = None  # a photo, file, voice note …: an answer even without a caption
    chat_id: str | None = None  # where it was said (a group's replies go back there)


@dataclass(frozen=True)
class OpenAsk:
    """A question the sender asked that is still open: "催一下张三" / "不用问张三了" act on it."""

    concern_id: str
    target_person_id: str
    question: str


@dataclass(frozen=True)
class Phrasing:
    """A way the sender was taught to be read (`cognitive_core.phrasings`): its shape with the person and the body as
    slots (`language.shapes`), what it means, and whether a contact made through it was confirmed once."""

    phrasing_id: str
    shape: str
    intent: str
    confirmed: bool = False


@dataclass(frozen=True)
class Missed:
    """A message of the sender's that the rules did not understand, lately: what a reworded one may teach."""

    fact_id: str
    text: str
    at: datetime
    hint: str | None = None  # the reading it came closest to (the did-you-mean's first, the hint's cue), if any
    mentions: tuple[tuple[str | None, str], ...] = ()


@dataclass(frozen=True)
class Situation:
    """Everything `decide` reads: the signal, who sent it, who exists, what waits on the sender."""

    signal: SignalView
    sender: PersonView | None
    people: tuple[PersonView, ...]
    waiting: tuple[WaitingConcern, ...] = ()
    now: datetime | None = None
    # Loops whose originator (the sender) pressed "Ask someone else": (concern_id, question), newest last.
    awaiting_name: tuple[tuple[str, str], ...] = ()
    open_asks: tuple[OpenAsk, ...] = ()  # the sender's own open questions, oldest first
    # A principal's learned phrasings, newest first, and their messages not understood in the last minutes (newest
    # first): none unless the inbox reads them, so the evaluation and the tuning scores run without them.
    phrasings: tuple[Phrasing, ...] = ()
    missed: tuple[Missed, ...] = ()


# Rules of the answer to a message that meant nothing (the optional LLM is consulted for those).
UNDERSTOOD_NOTHING = frozenset({"fallback_help", "not_understood"})


@dataclass(frozen=True)
class Decision:
    """One conclusion: the rule that fired and the command it carries (or the answer the core gives itself).

    `notes` say how it was read (the table row and words matched, a press's verb, a did-you-mean's hint): recorded
    with the decision, never part of what is carried out.
    """

    rule: str
    command: Command
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> DecisionKind:
        """The decision kind of SPEC §3.4, which the command's type determines."""
        return self.command.KIND

    @property
    def params(self) -> dict[str, Any]:
        """The flat shape recorded as the decision's `requested` entry: the command's fields and the notes."""
        return {**self.command.flat(), **self.notes}
