"""Meetings in a simulated world: a calendar (the person layer's BusySource port) with each person's busy blocks.

Half the worlds switch it on for every replica. Each person with a Feishu binding gets a few meetings a day for
two weeks from the start (30 minutes to 3 hours, some back to back), drawn from the seed; about one read in
twelve fails as Feishu's would (a timeout, a rate limit), and the model must then treat the person as free.
"""

from __future__ import annotations

import random
from datetime import UTC as _UTC
from datetime import datetime, timedelta

from concern.rules import escalation_at
from person.calendar import CalendarFailed
from tests.simulation.world import PersonSpec

DAYS = 14


class SimCalendar:
    """Busy blocks per Feishu user; `reads` counts the requests, `failures` those that failed."""

    channel = "feishu"

    def __init__(self, rng: random.Random, cast: list[PersonSpec], start: datetime) -> None:
        self.blocks: dict[str, list[tuple[datetime, datetime]]] = {}
        self.reads = self.failures = 0
        self._fail = random.Random(rng.random())
        for person in cast:
            for binding in person.bindings:
                if binding.channel == "feishu":
                    self.blocks[binding.user] = _meetings(rng, start)

    def busy(self, *, external_id: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
        """The busy blocks overlapping [start, end), or CalendarFailed now and then."""
        self.reads += 1
        if self._fail.random() < 1 / 12:
            self.failures += 1
            raise CalendarFailed("timeout", everyone=self._fail.random() < 0.5)
        return [(s, e) for s, e in self.blocks.get(external_id, []) if s < end and e > start]


def _meetings(rng: random.Random, start: datetime) -> list[tuple[datetime, datetime]]:
    found = []
    for day in range(DAYS):
        at = start.replace(minute=0, second=0, microsecond=0) + timedelta(days=day)
        for _ in range(rng.choice((0, 1, 2, 3, 4))):
            begin = at + timedelta(minutes=rng.randrange(0, 24 * 60, 15))
            length = timedelta(minutes=rng.choice((30, 60, 90, 180)))
            found.append((begin, begin + length))
            if rng.random() < 0.3:  # back to back
                found.append((begin + length, begin + length + timedelta(minutes=30)))
    return sorted(found)


_SOFT = ("busy", "busy_bounded", "answering_hours", "usually", "promised", "calendar_unavailable")


def _soft_move(content: dict) -> bool:
    reasons = content.get("reasons") or []
    return content.get("change") in ("moved", "held") and bool(reasons) and all(r in _SOFT for r in reasons)


def placed_past_deadline(concern_facts: list, concerns: dict) -> list[str]:
    """A contact the model moved or held for a meeting (a soft move) never lands after the loop's deadline."""
    found = []
    for fact in concern_facts:
        content = fact.content
        if not _soft_move(content):
            continue
        concern = concerns.get(content["concern_id"])
        placed = (content.get("after") or {}).get("next_follow_up_at")
        if concern is None or concern.deadline is None or placed is None:
            continue
        deadline = concern.deadline if concern.deadline.tzinfo else concern.deadline.replace(tzinfo=_UTC)
        if datetime.fromisoformat(placed) > deadline:
            found.append(f"{concern.concern_id} was {content['change']} to {placed}, past its deadline {deadline}")
    return found


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=_UTC)


def _sent_before(actions: dict, concern, at: datetime) -> list[datetime]:
    """When the loop contacted its target before `at` (what L3 and the schedule count: counted sends, bundles too)."""
    return sorted(
        _utc(a.created_at)
        for a in actions.values()
        if a.action_type == "send_message" and a.counted and a.result != "pending"
        and a.target_person_id == concern.target_person_id and _utc(a.created_at) <= at
        and concern.concern_id in (a.concern_id, *(a.result_detail.get("concerns") or []))
    )  # fmt: skip


def placed_past_escalation(concern_facts: list, concerns: dict, actions: dict, settings, stretches) -> list[str]:
    """A follow-up the model moved or held (a soft move) never lands after the moment its loop would escalate
    (`concern.rules.escalation_at`, from what the loop had sent by then); `stretches(person_id, at)`: the person's
    possible follow_up_stretch then."""
    found = []
    for fact in concern_facts:
        content = fact.content
        concern = concerns.get(content["concern_id"])
        placed = (content.get("after") or {}).get("next_follow_up_at")
        if not _soft_move(content) or content.get("kind") != "follow_up" or placed is None or concern is None:
            continue
        if concern.kind == "commitment":  # a promise's escalation counts from its check-in: not moved by the model
            continue
        sent = _sent_before(actions, concern, _utc(fact.timestamp))
        if not sent:
            continue
        latest = max(
            escalation_at(
                priority=concern.priority,
                schedule=settings.follow_up_schedule,
                follow_up_count=content["before"]["follow_up_count"],
                last_contact_at=sent[-1],
                deadline=_utc(concern.deadline) if concern.deadline else None,
                stretch=stretch,
                first_contact_at=sent[0],
                contacts=sent if concern.deadline else None,
                contact_limit=settings.concern_contact_limit,
                contact_window=settings.concern_contact_window,
            )  # fmt: skip
            for stretch in stretches(concern.target_person_id, _utc(fact.timestamp))
        )
        if datetime.fromisoformat(placed) > latest:
            found.append(f"{concern.concern_id} was {content['change']} to {placed}, past its escalation at {latest}")
    return found
