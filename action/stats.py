"""Read models of the action ledger for operators (the console's overview): results by day and layer, channels.

The aggregation over the rows is pure (`summarise`); `recent` reads only the columns it needs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, select

from action.models import ActionRow, Result
from kernel.context import UnitOfWork
from person.models import ChannelBinding


@dataclass(frozen=True)
class Row:
    """The columns of one action the summary reads."""

    created_at: datetime
    action_type: str
    result: str
    channel: str
    detail: dict[str, Any]


@dataclass
class ChannelUse:
    """What one channel did in the period: sends by result, the last success and the last failure with its error."""

    sent: int = 0
    failed: int = 0
    last_success: datetime | None = None
    last_failure: datetime | None = None
    last_error: str | None = None


@dataclass
class Summary:
    """Actions by local day and result, refusals by layer code, and per-channel use."""

    by_day: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    blocked_by: Counter[str] = field(default_factory=Counter)
    by_type: Counter[tuple[str, str]] = field(default_factory=Counter)
    channels: dict[str, ChannelUse] = field(default_factory=lambda: defaultdict(ChannelUse))


def recent(uow: UnitOfWork, *, since: datetime) -> list[Row]:
    """Every action created since `since`, oldest first."""
    columns = (ActionRow.created_at, ActionRow.action_type, ActionRow.result, ActionRow.channel)
    # Naming every result lets the (result, created_at) index bound the read to the period.
    stmt = (
        select(*columns, ActionRow.result_detail)
        .where(ActionRow.result.in_([r.value for r in Result]), ActionRow.created_at >= since)
        .order_by(ActionRow.created_at)
    )
    return [Row(*values) for values in uow.session.execute(stmt)]


def summarise(rows: list[Row], *, tz: ZoneInfo, today_since: datetime | None = None) -> Summary:
    """Count `rows` by local day and result, blocked ones by layer code, today's by (type, result), per channel."""
    summary = Summary()
    for row in rows:
        summary.by_day[row.created_at.astimezone(tz).date().isoformat()][row.result] += 1
        if row.result == Result.blocked:
            summary.blocked_by[row.detail.get("blocked_by") or "unknown"] += 1
        if today_since is None or row.created_at >= today_since:
            summary.by_type[(row.action_type, row.result)] += 1
        for attempt in row.detail.get("attempts", []):
            use = summary.channels[attempt.get("channel") or row.channel]
            if attempt.get("error"):
                use.failed += 1
                use.last_failure, use.last_error = row.created_at, str(attempt["error"])
            else:
                use.sent += 1
                use.last_success = row.created_at
    return summary


def in_flight(uow: UnitOfWork, *, limit: int = 50) -> list[ActionRow]:
    """Actions still pending (sending now, or waiting for their pacing slot), oldest first."""
    stmt = select(ActionRow).where(ActionRow.result == Result.pending.value).order_by(ActionRow.pk).limit(limit)
    return list(uow.session.scalars(stmt))


def bindings_by_channel(uow: UnitOfWork) -> dict[str, tuple[int, int]]:
    """(reachable, unreachable) bindings per channel: how many people each channel can still reach."""
    stmt = select(ChannelBinding.channel, ChannelBinding.reachable, func.count()).group_by(
        ChannelBinding.channel, ChannelBinding.reachable
    )
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for channel, reachable, n in uow.session.execute(stmt):
        counts[channel][0 if reachable else 1] += n
    return {channel: (ok, bad) for channel, (ok, bad) in counts.items()}
