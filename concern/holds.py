"""Held deliveries (SPEC §3.5 `held_until` / `held_by`): which refusals are holds, and a loop's earliest one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

# blocked_by code → why a delivery waits (SPEC §3.5 `held_by`); a code not here is not a hold with a moment.
HELD_BY = {
    "L1:quiet_hours": "quiet_hours",
    "L1:paused": "pause",
    "L1:daily_cap": "cap",
    "L1:away": "away",
    "L1:busy": "busy",
}


def held_by(blocked_by: str | None) -> str | None:
    """What a blocked_by code holds a delivery for (`L1:daily_cap` → `cap`), or None for a refusal."""
    return HELD_BY.get(blocked_by or "")


def held(
    step_at: datetime | None, step_held_by: str | None, pending: Sequence[dict]
) -> tuple[datetime | None, str | None]:
    """(held_until, held_by): the earliest held delivery of a loop, its own held step or a deferred one."""
    found = [(step_at, step_held_by)] if step_at is not None and step_held_by else []
    found += [(datetime.fromisoformat(p["not_before"]), held_by(p.get("blocked_by"))) for p in pending]
    return min(found, key=lambda item: item[0], default=(None, None))
