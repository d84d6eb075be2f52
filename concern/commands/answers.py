"""What the core answers itself (the handler table has none of these): nothing in a loop or a person changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from concern.commands.base import Command, dump
from fact.decisions import DecisionKind


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
class Explain(Answer):
    """ "Why this?" under a proactive message: who asked, when, what it is, what comes next (read, never changed)."""

    TYPE: ClassVar[str] = "explain"
    message: str  # the request key of the message the button sits on
    concern_id: str | None = None
    purpose: str = "question"  # what the message is: question | follow_up | check_in | escalation | relay
    decision_id: str | None = None  # the decision that sent it (a relay: no loop to read)

    def flat(self) -> dict[str, Any]:
        """Its serialised form: it never had an older flat shape."""
        return dump(self)
