"""Follow-ups that tighten as a concern's deadline nears, within L3's contact limit. Pure, no I/O.

A deadline far enough away leaves the priority's schedule alone. One that the schedule would overrun moves
the follow-ups L3 still allows closer to it (evenly up to LAST_CALL before it), and the escalation comes at the
deadline at the latest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

LAST_CALL = timedelta(minutes=30)  # the last follow-up before a deadline leaves the person this long to answer


def room(contacts: Sequence[datetime], *, at: datetime, limit: int, window: timedelta) -> int:
    """How many more contacts L3 allows at `at` (contacts within the rolling window before it count)."""
    return max(0, limit - sum(1 for t in contacts if at - window < t <= at))


def earliest_allowed(contacts: Sequence[datetime], *, at: datetime, limit: int, window: timedelta) -> datetime:
    """The first moment from `at` on at which L3 allows one more contact."""
    recent = sorted(t for t in contacts if at - window < t <= at)
    if len(recent) < limit:
        return at
    return recent[-limit] + window


def tightened(
    *,
    kind: str,
    at: datetime,
    waits: Sequence[timedelta],
    follow_up_count: int,
    last_contact_at: datetime,
    deadline: datetime,
    contacts: Sequence[datetime],
    limit: int,
    window: timedelta,
    now: datetime,
) -> tuple[str, datetime]:
    """The next step (`follow_up` or `escalate`, when) of a contacted concern with a deadline.

    `kind`/`at` is what the plain schedule says; `contacts` are the concern's contacts with its target.
    """
    remaining = list(waits[follow_up_count:]) or [waits[-1]]
    if last_contact_at + sum(remaining, timedelta(0)) <= deadline:
        return kind, at  # the whole schedule fits before the deadline
    left = len(remaining) - 1  # follow-ups the schedule still has
    last_slot = deadline - LAST_CALL
    if left <= 0 or last_slot < now or last_contact_at >= last_slot:
        return "escalate", min(at, deadline) if kind == "escalate" else deadline
    # Contacts made before the window that ends at the last slot no longer count then.
    can = min(left, room(contacts, at=last_slot, limit=limit, window=window))
    if can <= 0:
        return "escalate", deadline
    evenly = last_contact_at + (last_slot - last_contact_at) / can
    # With every follow-up still allowed, an earlier one of the plain schedule stays; with fewer, each one
    # L3 allows is saved for closer to the deadline.
    nxt = max(now, min(at, evenly) if can == left and kind == "follow_up" else evenly)
    nxt = earliest_allowed(contacts, at=nxt, limit=limit, window=window)
    if nxt > last_slot:
        return "escalate", deadline
    return "follow_up", nxt
