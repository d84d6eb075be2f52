"""The reachability model as pure rules: for a `Situation`, now or when, which channel, plain or urgent, and why.

Hard holds (away, pause, quiet time, the daily cap) mirror L1 and are never shortened; soft moves (a meeting, a
promise, the person's usual answering hour) only ever delay, and never past `latest` (the deadline or escalation).
The action layer's four layers still decide every send; this picks the moment and the means within them.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from person.reachability.models import MAX_ANSWERING_MOVE, MAX_BUSY_WAIT, Reach, Reason, Situation
from person.rules import _at, local_day_bounds, quiet_until

# Reasons about how (or worth knowing) rather than when: with only these, the person is reachable now.
_MEANS = frozenset({"usually", "calendar_unavailable", "read_unanswered", "unread", "unread_other_channel",
                    "unread_urgent"})  # fmt: skip
_ROUNDS = 12  # each round moves past one hold; a week of holds settles well within this


class _Never(Exception):
    """No moment can be named: the reason says why."""

    def __init__(self, reason: Reason) -> None:
        self.reason = reason


def _note(reasons: list[Reason], reason: Reason) -> None:
    """Keep one reason per code, the latest values winning (a hold met twice reads with its final end)."""
    for i, seen in enumerate(reasons):
        if seen.code == reason.code:
            reasons[i] = reason
            return
    reasons.append(reason)


def _away(s: Situation, reasons: list[Reason]) -> datetime:
    """Away or on leave: held to `until`; a P0 goes through only when nobody stands in."""
    state = s.work_state
    leave = "leave" if state.status == "on_leave" else "away"
    if s.priority == "P0" and state.stand_in_id is None:
        _note(reasons, Reason("away_p0", {"leave": leave, "until": state.until}))
        return s.now
    if state.stand_in_id is not None:
        _note(reasons, Reason("stand_in", {"name": s.stand_in_name or state.stand_in_id}))
    if state.until is None:
        raise _Never(Reason(f"{leave}_open"))
    _note(reasons, Reason(f"{leave}_until", {"until": state.until}))
    return state.until


def _hard(s: Situation, at: datetime, reasons: list[Reason]) -> datetime:
    """The first moment from `at` that L1 allows: past a pause, out of quiet time, under the daily cap."""
    policy = s.policy
    if not policy.allow_proactive_ping:
        raise _Never(Reason("proactive_off"))
    if policy.max_proactive_contacts_per_day == 0:
        raise _Never(Reason("cap_zero"))
    for _ in range(_ROUNDS):
        start = at
        if policy.paused_until is not None and at < policy.paused_until:
            at = policy.paused_until
            _note(reasons, Reason("paused", {"until": at}))
        if s.priority != "P0":
            free = quiet_until(policy, s.tz, at)
            if free is None:
                raise _Never(Reason("quiet_always"))
            if free != at:
                at = free
                _note(reasons, Reason("quiet_hours", {"until": at}))
        today_end = local_day_bounds(s.now, s.tz)[1]
        if at < today_end and s.contacts_today >= policy.max_proactive_contacts_per_day:
            at = today_end
            _note(reasons, Reason("cap", {"cap": policy.max_proactive_contacts_per_day, "until": at}))
        if at == start:
            return at
    raise _Never(Reason("quiet_always"))  # pragma: no cover - holds that never settle in twelve rounds


def _bound(s: Situation, at: datetime, wanted: datetime) -> datetime:
    """A soft move to `wanted`, but never past `latest` nor earlier than `at`."""
    if s.latest is not None and wanted > s.latest:
        wanted = s.latest
    return max(at, wanted)


def _busy_end(s: Situation, at: datetime) -> datetime | None:
    """The end of the busy time `at` falls in (back-to-back blocks run together), or None when free."""
    end = None
    for block in sorted(s.busy, key=lambda b: b.start):
        if block.start <= (end or at) < block.end:
            end = block.end
    return end


def _next_answering(s: Situation, at: datetime) -> datetime | None:
    """The start of the next local hour the person usually answers in, when `at` is outside them."""
    local = at.astimezone(s.tz)
    if local.hour in s.answering_hours:
        return None
    day = local.date()
    for offset in range(49):
        hour = (local.hour + offset) % 24
        day_shift = (local.hour + offset) // 24
        if hour in s.answering_hours:
            candidate = _at(day + timedelta(days=day_shift), time(hour), s.tz)
            if candidate > at:
                return candidate
    return None


def _soft(s: Situation, at: datetime, reasons: list[Reason]) -> datetime:
    """Later moves a thoughtful assistant makes: after a promise, after a meeting, into the usual hours."""
    if s.kind == "follow_up" and s.promised_at is not None and s.priority != "P0" and at < s.promised_at:
        at = _bound(s, at, s.promised_at)
        _note(reasons, Reason("promised", {"at": s.promised_at}))
    end = _busy_end(s, at) if s.priority in ("P2", "P3") else None
    if end is not None:
        moved = _bound(s, at, min(end, at + MAX_BUSY_WAIT))
        if moved > at:
            _note(reasons, Reason("busy" if moved >= end else "busy_bounded", {"until": end, "at": moved}))
            at = moved
    if s.kind == "follow_up" and s.priority != "P0" and s.answering_hours:
        usual = _next_answering(s, at)
        limit = s.latest if s.latest is not None else at + MAX_ANSWERING_MOVE
        if usual is not None and usual <= limit:
            _note(reasons, Reason("answering_hours", {"at": usual}))
            at = usual
    return at


def _means(s: Situation, reasons: list[Reason]) -> tuple[str, bool]:
    """Which channel, and whether to make it urgent after sending, from the read state of the last contact."""
    channel, last = s.channels[0], s.last_contact
    if s.kind != "follow_up" or last is None or not last.read_known:
        return channel, False
    if last.read_at is not None:  # read but not answered: a gentler nudge where they read it, never urgent
        _note(reasons, Reason("read_unanswered", {"at": last.read_at}))
        return (last.channel if last.channel in s.channels else channel), False
    if s.priority not in ("P0", "P1"):
        _note(reasons, Reason("unread"))
        return channel, False
    others = [c for c in s.channels if c != last.channel]
    if others:
        _note(reasons, Reason("unread_other_channel", {"channel": others[0]}))
        return others[0], False
    if last.channel == "feishu" and s.urgent_modes:
        _note(reasons, Reason("unread_urgent", {"modes": s.urgent_modes}))
        return last.channel, True
    _note(reasons, Reason("unread"))
    return channel, False


def hour_ranges(hours: frozenset[int]) -> tuple[tuple[int, int], ...]:
    """{10, 11, 15} → ((10, 12), (15, 16)): runs of local hours as [start, end) ranges."""
    ranges: list[tuple[int, int]] = []
    for hour in sorted(hours):
        if ranges and ranges[-1][1] == hour:
            ranges[-1] = (ranges[-1][0], hour + 1)
        else:
            ranges.append((hour, hour + 1))
    return tuple(ranges)


def _held_by(reasons: list[Reason]) -> str | None:
    first = {"away_until": "away", "leave_until": "away", "away_open": "away", "leave_open": "away",
             "paused": "pause", "proactive_off": "pause", "quiet_hours": "quiet_hours", "quiet_always": "quiet_hours",
             "cap": "cap", "cap_zero": "cap", "busy": "busy", "busy_bounded": "busy"}  # fmt: skip
    return next((first[r.code] for r in reasons if r.code in first), None)


def reach(s: Situation) -> Reach:
    """Now or when, how, and why, for one person, moment, priority and kind of message."""
    reasons: list[Reason] = []
    ranges = hour_ranges(s.answering_hours)
    if not s.active:
        return Reach(False, None, None, False, None, (Reason("deactivated"),), ranges)
    if not s.channels:
        return Reach(False, None, None, False, None, (Reason("no_channel"),), ranges)
    try:
        at = _away(s, reasons) if s.work_state.away_at(s.now) else s.now
        if s.kind == "follow_up" and s.earliest is not None and at < s.earliest:
            at = s.earliest
            _note(reasons, Reason("follow_up_due", {"at": at}))
        for _ in range(_ROUNDS):
            settled = _soft(s, _hard(s, at, reasons), reasons)
            if _hard(s, settled, reasons) == settled:
                at = settled
                break
            at = settled
    except _Never as never:
        reasons.append(never.reason)
        return Reach(False, None, None, False, _held_by(reasons), tuple(reasons), ranges)
    channel, urgent = _means(s, reasons)
    if s.calendar == "failed":
        _note(reasons, Reason("calendar_unavailable"))
    if ranges:
        _note(reasons, Reason("usually", {"ranges": ranges}))
    if at == s.now and all(r.code in _MEANS for r in reasons):
        reasons.insert(0, Reason("available"))
    return Reach(at == s.now, at, channel, urgent, _held_by(reasons), tuple(reasons), ranges)
