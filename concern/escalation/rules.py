"""Pure rules of an escalation that nobody takes: repeat once, climb the management chain, end, expire (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class EscalationStep:
    """What an escalated concern needs next: `wait` (until `at`), `repeat`, `climb`, `end` or `expire`."""

    kind: str
    at: datetime


def repeat_after(priority: str, schedule: dict[str, list[timedelta]], setting: timedelta | None) -> timedelta:
    """DEPUTY_ESCALATION_REPEAT_AFTER, or by default the priority's last wait (the one before escalating)."""
    return setting if setting is not None else schedule[priority][-1]


def next_escalation_step(
    *,
    level: int,
    repeats: int,
    max_levels: int,
    reached: bool,
    acknowledged_at: datetime | None,
    last_step_at: datetime,
    repeat_after: timedelta,
    expire_after: timedelta,
    has_next: bool,
    now: datetime,
) -> EscalationStep:
    """Where an escalated concern stands.

    Expiry counts from the last step (or the acknowledgement). Someone took it, or it never reached anyone: only
    expiry is left. Otherwise, once `repeat_after` has passed since the last step, it is repeated once to the same
    person, then climbs one level (at most `max_levels` above the person asked, while there is someone above),
    and at the top it `end`s: the originator hears there is no one further, and the expiry waits.
    """
    expires = (acknowledged_at or last_step_at) + expire_after
    if now >= expires:
        return EscalationStep("expire", expires)
    if acknowledged_at is not None or not reached:
        return EscalationStep("wait", expires)
    due = last_step_at + repeat_after
    if due >= expires:
        return EscalationStep("wait", expires)
    if now < due:
        return EscalationStep("wait", due)
    if repeats < 1:
        return EscalationStep("repeat", now)
    if level < max_levels and has_next:
        return EscalationStep("climb", now)
    return EscalationStep("end", now)


def next_recipient(manager_id: str | None, *, chain: list[str], originator_id: str, target_id: str) -> str | None:
    """The next person up from the current recipient, or None when the chain ends there.

    It ends at nobody, at the originator (escalating their own question to them helps no one), and at anyone
    already asked (a cycle in the management data).
    """
    if not manager_id or manager_id in (originator_id, target_id) or manager_id in chain:
        return None
    return manager_id
