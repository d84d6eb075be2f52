"""Held deliveries (SPEC §3.5 `held_until` / `held_by`): which refusals are holds, and a loop's earliest one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

# blocked_by code → why a delivery waits (SPEC §3.5 `held_by`); a code not here is not a hold with a moment.
HELD_BY = {
    "L1:quiet_hours": "quiet_hours",
    "L1:paused": "pause",
    "L1:proactive_disabled": "pause",
    "L1:daily_cap": "cap",
    "L1:away": "away",
    "L1:busy": "busy",
}


def held_by(blocked_by: str | None) -> str | None:
    """What a blocked_by code holds a delivery for (`L1:daily_cap` → `cap`), or None for a refusal."""
    return HELD_BY.get(blocked_by or "")


def held(
    own_until: datetime | None, own_held_by: str | None, pending: Sequence[dict]
) -> tuple[datetime | None, str | None]:
    """(held_until, held_by): the earliest held delivery of a loop, its own held contact or a deferred one.

    The loop's own hold may be open-ended (leave with no end: `held_until` None); it sorts after every dated one.
    """
    found = [(own_until, own_held_by)] if own_held_by else []
    found += [(datetime.fromisoformat(p["not_before"]), held_by(p.get("blocked_by"))) for p in pending]
    dated = [item for item in found if item[0] is not None]
    return min(dated, key=lambda item: item[0]) if dated else (found[0] if found else (None, None))
