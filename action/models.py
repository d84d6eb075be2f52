"""The Action record (SPEC §3.6), its ledger table and the request that asks for one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, model_validator
from pydantic import Field as PField
from sqlalchemy import JSON, BigInteger, Boolean, Column, Index, Integer, String, Text, false
from sqlmodel import Field, SQLModel

from kernel.db import UTCDateTime

DECISION_REF = re.compile(r"^(dec|con)_\d{8}_\d{3,}$")
PREVIEW_LIMIT = 200
MAX_BUTTONS = 6  # under one message (a bundle: under each of its items)
BUNDLE_MAX = 5  # the most follow-ups one message carries (a screen; Feishu's card and Telegram's keyboard hold it)


class ActionType(StrEnum):
    send_message = "send_message"
    notify = "notify"
    escalate = "escalate"
    backflow = "backflow"
    query = "query"
    internal_update = "internal_update"


class Result(StrEnum):
    success = "success"
    failed = "failed"
    blocked = "blocked"
    pending = "pending"


PERSON_FACING = (ActionType.send_message, ActionType.notify, ActionType.escalate, ActionType.backflow)
INTERNAL = (ActionType.query, ActionType.internal_update)
# The Action fields of SPEC §3.6, which are also exactly the content of an action_result fact.
RECORD_FIELDS = (
    "action_id",
    "action_type",
    "decision_ref",
    "target_person_id",
    "channel",
    "content_preview",
    "result",
    "result_detail",
    "timestamp",
)

_PK = BigInteger().with_variant(Integer(), "sqlite")


class ActionRow(SQLModel, table=True):
    """The action ledger: the Action record plus what the limits count by."""

    __tablename__ = "actions"
    __table_args__ = (
        Index("ix_actions_target_created", "target_person_id", "created_at"),
        Index("ix_actions_concern_target", "concern_id", "target_person_id", "created_at"),
        Index("ix_actions_result_created", "result", "created_at"),
    )

    pk: int | None = Field(default=None, sa_column=Column(_PK, primary_key=True, autoincrement=True))
    action_id: str = Field(sa_column=Column(String(32), nullable=False, unique=True))
    action_type: str = Field(sa_column=Column(String(20), nullable=False, index=True))
    decision_ref: str = Field(sa_column=Column(String(32), nullable=False, index=True))
    target_person_id: str | None = Field(default=None, sa_column=Column(String(64)))
    channel: str = Field(sa_column=Column(String(16), nullable=False))
    content_preview: str = Field(sa_column=Column(String(PREVIEW_LIMIT), nullable=False))
    result: str = Field(sa_column=Column(String(10), nullable=False))
    result_detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    timestamp: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    concern_id: str | None = Field(default=None, sa_column=Column(String(32)))
    notification_type: str | None = Field(default=None, sa_column=Column(String(64)))
    priority: str = Field(sa_column=Column(String(2), nullable=False))
    proactive: bool = Field(sa_column=Column(Boolean, nullable=False))
    # Idempotency of the request itself: executing the same request_key twice never sends twice.
    request_key: str | None = Field(default=None, sa_column=Column(String(120), unique=True))
    # Counts toward the cap, L3 and L4: delivered, in flight, or possibly delivered (interrupted, lost answer).
    counted: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    # An answer or loop-outcome notice the person asked for: never counted toward, nor refused by, the cap.
    solicited: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))


class ActionConcern(SQLModel, table=True):
    """A loop an action asked for besides its own `concern_id` (a bundle's other items): L3 counts it for each."""

    __tablename__ = "action_concerns"
    __table_args__ = (Index("ix_action_concerns_concern", "concern_id", "action_id"),)

    pk: int | None = Field(default=None, sa_column=Column(_PK, primary_key=True, autoincrement=True))
    action_id: str = Field(sa_column=Column(String(32), nullable=False, index=True))
    concern_id: str = Field(sa_column=Column(String(32), nullable=False))


class ButtonRow(SQLModel, table=True):
    """The record behind one button: what pressing it means, who may press it, and the message it sits on."""

    __tablename__ = "buttons"

    token: str = Field(sa_column=Column(String(40), primary_key=True))
    # The buttons of one message share it (the request that sent them): one press per message.
    request_key: str = Field(sa_column=Column(String(120), nullable=False, index=True))
    verb: str = Field(sa_column=Column(String(24), nullable=False))
    concern_id: str | None = Field(default=None, sa_column=Column(String(32), index=True))
    addressee_id: str = Field(sa_column=Column(String(64), nullable=False))
    args: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    channel: str | None = Field(default=None, sa_column=Column(String(16)))
    chat_id: str | None = Field(default=None, sa_column=Column(String(128)))
    message_id: str | None = Field(default=None, sa_column=Column(String(128)))
    # The message's text as sent: a press edits it to this text plus the outcome.
    text: str | None = Field(default=None, sa_column=Column(Text))
    pressed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    press_fact_id: str | None = Field(default=None, sa_column=Column(String(32)))


class ButtonSpec(BaseModel):
    """A button as a request carries it: the label the addressee reads and its token."""

    label: str = PField(min_length=1, max_length=40)
    token: str = PField(pattern=r"^[A-Za-z0-9_-]{8,40}$")
    style: str = "default"
    group: str | None = PField(None, max_length=8)  # the numbered item it acts on (channels.base.Button.group)


class Destination(BaseModel):
    """An explicit place to send to instead of the person's bindings: a group chat, or a message to edit."""

    channel: str
    chat_id: str
    message_id: str | None = None  # set: edit this message instead of sending a new one


class ActionRequest(BaseModel):
    """What a decision asks the action layer to do."""

    action_type: ActionType
    decision_ref: str
    target_person_id: str | None = None
    text: str = ""
    priority: str = PField("P2", pattern=r"^P[0-3]$")
    notification_type: str | None = None
    reactive: bool = False
    solicited: bool = False  # a backflow always is; so are loop-outcome notices to the originator
    concern_id: str | None = None
    follow_up: bool = False
    origin_channel: str | None = None
    operation: dict[str, Any] | None = None  # query / internal_update payload
    record_fact: bool = True  # False only for the SPEC §4.4 exceptions
    request_key: str | None = PField(None, max_length=120)
    buttons: list[ButtonSpec] = PField(default_factory=list, max_length=MAX_BUTTONS * BUNDLE_MAX)
    # Media someone sent, passed on with `text` as its caption (channels.base.MediaRef's fields).
    media: dict[str, Any] | None = None
    # Where to send instead of the target's bindings (a group; a message to edit; an unknown sender's chat).
    destination: Destination | None = None
    # A follow-up a person asked for ("Nudge now", "Remind them"): L2's interval does not apply; L1 and L3 do.
    explicit: bool = False
    # What one message carries for others (a digest: the request keys of its items), listed in its result_detail.
    carries: list[str] = PField(default_factory=list, max_length=500)
    # The loops one message asks for (a bundle of follow-ups; the first is `concern_id`): each counts one contact.
    concerns: list[str] = PField(default_factory=list, max_length=BUNDLE_MAX)
    # A follow-up whose last message went unread (or was read): the channel to try first, before the preferred one.
    channel_first: str | None = None
    # Make the sent follow-up urgent for its person, in these modes in order (Feishu: app, sms, phone).
    urgent: list[Literal["app", "sms", "phone"]] = PField(default_factory=list, max_length=3)

    @model_validator(mode="after")
    def _consistent(self) -> ActionRequest:
        if not DECISION_REF.match(self.decision_ref or ""):
            raise ValueError("decision_ref must name the decision (dec_…) or concern (con_…) that caused the action")
        if self.reactive and self.action_type != ActionType.notify:
            raise ValueError("only notify actions can be reactive")
        if self.action_type in PERSON_FACING and not self.target_person_id and not self._to_a_chat():
            raise ValueError(f"{self.action_type.value} needs a target_person_id")
        if self.action_type in PERSON_FACING and not self.text.strip():
            raise ValueError(f"{self.action_type.value} needs a text")
        if self.action_type in INTERNAL and not self.operation:
            raise ValueError(f"{self.action_type.value} needs an operation")
        if self.follow_up and not self.concern_id:
            raise ValueError("a follow-up belongs to a concern")
        if self.urgent and not self.follow_up:
            raise ValueError("only a follow-up is made urgent")
        if not self.record_fact and self.action_type not in INTERNAL:
            raise ValueError("only query and internal_update may skip the action_result fact")
        if self.action_type == ActionType.backflow:
            self.solicited = True
        if self.solicited and self.action_type not in (ActionType.backflow, ActionType.notify):
            raise ValueError("only backflows and notices can be solicited")
        if self.concerns and (self.action_type != ActionType.send_message or self.concerns[0] != self.concern_id):
            raise ValueError("a bundle is a send_message whose first loop is its concern_id")
        if len(self.buttons) > MAX_BUTTONS * max(1, len(self.concerns)):
            raise ValueError(f"a message carries at most {MAX_BUTTONS} buttons (a bundle: that many per item)")
        if self.destination is not None and self.destination.message_id and not self.reactive:
            raise ValueError("an edit answers a press: it is a reactive notify")
        return self

    def _to_a_chat(self) -> bool:
        """A reactive reply to a chat, not to a person (an unknown sender's /help)."""
        return self.reactive and self.destination is not None


class ActionRecord(BaseModel):
    """The Action record as the API and the action_result fact show it."""

    action_id: str
    action_type: str
    decision_ref: str
    target_person_id: str | None
    channel: str
    content_preview: str
    result: str
    result_detail: dict[str, Any]
    timestamp: datetime


@dataclass(frozen=True)
class Skipped:
    """The guard said the action is no longer wanted (a timer lost the race with a reply); nothing was recorded."""

    reason: str


@dataclass(frozen=True)
class InFlight:
    """The request's action is pending and someone else is sending it: its owner applies the result."""

    action_id: str


@dataclass(frozen=True)
class Deferred:
    """The service's own pacing had no slot: the action stays pending (reserved) until `until`, then is sent."""

    action_id: str
    until: datetime


Outcome = ActionRecord | Skipped | InFlight | Deferred


def possibly_delivered(result: str, detail: dict[str, Any]) -> bool:
    """A failure that may still have reached the person: interrupted by a crash, or a send whose answer was lost."""
    if result != Result.failed:
        return False
    return detail.get("error") == "interrupted" or any(a.get("possibly_delivered") for a in detail.get("attempts", []))


def held(result: str, detail: dict[str, Any]) -> bool:
    """A send held for its person's moment (`held_by`, e.g. away): pending, but nothing has been tried yet."""
    return result == Result.pending and bool(detail.get("held_by"))


def counts(result: str, detail: dict[str, Any]) -> bool:
    """Whether an action with this outcome counts toward the limits (cap, L3, L4); a held send does not (yet)."""
    if held(result, detail):
        return False
    return result in (Result.success, Result.pending) or possibly_delivered(result, detail)


def preview(text: str) -> str:
    """A one-line summary of at most 200 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_LIMIT else flat[: PREVIEW_LIMIT - 1] + "…"
