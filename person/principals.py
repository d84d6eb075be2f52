"""The principals' schedules (brief, review) kept per process, so a pass that finds nothing due costs one lookup.

Every pass asks whether a daily brief or a weekly review is due for any principal. Reading every principal and
validating their policy on each pass cost about 10 ms with 200 principals (bench: the pass's own stages); the
copy is read again only when a person changed (the directory's version, `person.cache`), and the decision that
follows re-reads the person in its own transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from kernel.context import AppContext
from person.cache import DirectoryEntry, cache_of
from person.models import InteractionPolicy
from person.schedule_rules import due_brief_day, due_review_week


@dataclass(frozen=True)
class Principal:
    """What a principal's schedules need: their policy, timezone and when they were added."""

    person_id: str
    policy: InteractionPolicy
    tz: ZoneInfo
    created_at: datetime | None


def _shape(entry: DirectoryEntry) -> Principal | None:
    if entry.role != "principal":
        return None
    return Principal(entry.person_id, InteractionPolicy.model_validate(entry.policy), ZoneInfo(entry.timezone),
                     entry.created_at)  # fmt: skip


def principals(ctx: AppContext) -> tuple[Principal, ...]:
    """Every active principal, from this process's copy (read again when a person changed)."""
    cache = cache_of(ctx, "person.principals", _shape)
    cache.refresh(ctx)
    return tuple(p for p in cache.copy() if p is not None)


_SCHEDULES = {"brief": due_brief_day, "review": due_review_week}


def due(
    everyone: tuple[Principal, ...], now: datetime, *, report: Literal["brief", "review"]
) -> list[tuple[str, str, datetime]]:
    """(person_id, once-only key, moment) of each principal whose `report` is due now; one added after the moment
    gets the next one."""
    rule = _SCHEDULES[report]
    found = []
    for person in everyone:
        when = rule(person.policy, person.tz, now)
        if when is not None and (person.created_at is None or when[1] > person.created_at):
            found.append((person.person_id, f"{report}:{person.person_id}:{when[0].isoformat()}", when[1]))
    return found
