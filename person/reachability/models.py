"""What the reachability model reads (`Situation`) and answers (`Reach`); plain values, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from person.models import InteractionPolicy
from person.work_state import WorkState

Kind = Literal["question", "follow_up", "notice"]
KINDS: tuple[str, ...] = ("question", "follow_up", "notice")
PRIORITIES: tuple[str, ...] = ("P0", "P1", "P2", "P3")
# What held a delivery, as its loop records it (`held_by`).
HOLDS: tuple[str, ...] = ("quiet_hours", "pause", "cap", "away", "busy")
# The longest a P2/P3 contact waits for a meeting to end: a long block (an all-day offsite) must not swallow the day.
MAX_BUSY_WAIT = timedelta(hours=2)
# How far a follow-up may move to the person's usual answering hour when nothing later bounds it.
MAX_ANSWERING_MOVE = timedelta(hours=12)


@dataclass(frozen=True)
class Busy:
    """A busy block of the person's calendar, [start, end) in UTC."""

    start: datetime
    end: datetime


@dataclass(frozen=True)
class LastContact:
    """The last message sent to the person for this loop: where, and whether (and when) they read it."""

    channel: str
    read_at: datetime | None = None
    read_known: bool = True  # False where the platform tells bots nothing about reads (Telegram)


@dataclass(frozen=True)
class Situation:
    """Everything the model reads about one person, one moment, one priority and one kind of message."""

    now: datetime
    priority: str
    kind: str
    policy: InteractionPolicy
    tz: ZoneInfo
    channels: tuple[str, ...]  # the person's reachable bound channels, the preferred one first
    active: bool = True  # a deactivated person is reached by nothing, whatever is still bound
    work_state: WorkState = field(default_factory=WorkState)
    stand_in_name: str | None = None
    contacts_today: int = 0  # proactive contacts already counted in the person's local day (L1's cap)
    busy: tuple[Busy, ...] = ()
    calendar: Literal["off", "ok", "failed"] = "off"
    last_contact: LastContact | None = None
    answering_hours: frozenset[int] = frozenset()  # local hours (0-23) the person usually answers in
    promised_at: datetime | None = None  # "I'll reply by 15:00": no follow-up before then
    earliest: datetime | None = None  # L2: the follow-up is not due before this
    latest: datetime | None = None  # the deadline or the escalation: no soft move goes past it
    urgent_modes: tuple[str, ...] = ()  # DEPUTY_FEISHU_URGENT: app, sms, phone


@dataclass(frozen=True)
class Reason:
    """One part of the answer's why: a stable code and the values its text is filled with."""

    code: str
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reach:
    """Now or when, how, and why."""

    now: bool
    next_at: datetime | None  # None: no moment is known (open-ended leave, no channel, contact refused)
    channel: str | None
    urgent: bool
    held_by: str | None  # one of HOLDS when the first thing in the way is a hold
    reasons: tuple[Reason, ...]
    answering_hours: tuple[tuple[int, int], ...] = ()  # local [start, end) hour ranges

    def codes(self) -> list[str]:
        """The reasons' codes, in order."""
        return [r.code for r in self.reasons]
