"""The four anti-harassment layers as pure functions over a snapshot (no I/O, no clock of their own).

Evaluated in order L1 → L4; the first layer that refuses stops the action (SPEC §4.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from action.models import PERSON_FACING, ActionType
from person.models import InteractionPolicy
from person.rules import local_day_bounds, quiet_until

PROACTIVE_TYPES = frozenset({ActionType.send_message, ActionType.notify, ActionType.escalate, ActionType.backflow})


@dataclass(frozen=True)
class Verdict:
    """A layer's answer: allowed, or blocked with a code, a reason and the earliest retry moment."""

    allowed: bool
    blocked_by: str | None = None
    reason: str = ""
    not_before: datetime | None = None


ALLOW = Verdict(allowed=True)


def _block(code: str, reason: str, not_before: datetime | None = None) -> Verdict:
    return Verdict(allowed=False, blocked_by=code, reason=reason, not_before=not_before)


@dataclass(frozen=True)
class ConcernState:
    """What the concern layer says about the loop an action belongs to: L2's inputs."""

    priority: str
    follow_up_count: int = 0
    active_global: int = 0  # active concerns other than this one
    active_for_person: int = 0  # active concerns other than this one waiting on the same person


@dataclass(frozen=True)
class ConcernView:
    """What L2 and L3 read about that loop: the concern layer's state (when given) and the ledger's contacts."""

    concern_id: str
    state: ConcernState | None = None
    last_contact_at: datetime | None = None
    contacts_in_window: tuple[datetime, ...] = ()  # this concern → this person, oldest first


@dataclass(frozen=True)
class Limits:
    """Configured limits (from Settings)."""

    max_active_concerns: int = 30
    max_active_concerns_per_person: int = 5
    concern_contact_limit: int = 2
    concern_contact_window: timedelta = timedelta(hours=24)
    follow_up_schedule: dict[str, list[timedelta]] = field(default_factory=dict)
    cooldowns: dict[str, timedelta] = field(default_factory=lambda: {"default": timedelta(hours=1)})

    def cooldown_for(self, notification_type: str | None) -> timedelta:
        """The cooldown of a notification type, or the default one."""
        return self.cooldowns.get(notification_type or "default", self.cooldowns.get("default", timedelta(hours=1)))


@dataclass(frozen=True)
class Snapshot:
    """Everything the layers read, taken in the same transaction that reserves the action."""

    action_type: ActionType
    now: datetime
    priority: str
    reactive: bool
    policy: InteractionPolicy
    tz: ZoneInfo
    proactive_today: int  # counted (delivered, in flight, possibly delivered) unsolicited contacts in the local day
    limits: Limits
    concern: ConcernView | None = None
    follow_up: bool = False
    notification_type: str | None = None
    last_same_notification_at: datetime | None = None
    solicited: bool = False  # the person asked for it: pause and quiet time apply, the switch and the cap do not
    explicit: bool = False  # a follow-up a person asked for now ("Nudge now"): L2's interval does not apply
    bundled: tuple[ConcernView, ...] = ()  # a bundle's other loops: L3 holds for each of them too
    early: timedelta = timedelta(0)  # a follow-up due within this is due now (a bundle's window, asked ahead)


def layer1_person_policy(snapshot: Snapshot) -> Verdict:
    """L1 Person.interaction_policy: proactive switch, pause, quiet time (P0 exempt), daily cap.

    A solicited delivery (an answer to the person's own request, a loop-outcome notice) honours pause and
    quiet time but neither the proactive switch nor the cap: the person asked for it.
    """
    policy = snapshot.policy
    if not policy.allow_proactive_ping and not snapshot.solicited:
        return _block("L1:proactive_disabled", "the person does not allow proactive contact")
    if policy.paused_until is not None and snapshot.now < policy.paused_until:
        return _block(
            "L1:paused",
            f"the person paused proactive contact until {policy.paused_until.astimezone(snapshot.tz).isoformat()}",
            policy.paused_until,
        )
    if snapshot.priority != "P0":
        allowed_at = quiet_until(policy, snapshot.tz, snapshot.now)
        if allowed_at != snapshot.now:
            local = snapshot.now.astimezone(snapshot.tz).strftime("%H:%M %a")
            return _block("L1:quiet_hours", f"{local} is quiet time for the person ({snapshot.tz.key})", allowed_at)
    if not snapshot.solicited and policy.max_proactive_contacts_per_day == 0:
        return _block("L1:daily_cap", "the person accepts no proactive contacts (cap 0)")
    if not snapshot.solicited and snapshot.proactive_today >= policy.max_proactive_contacts_per_day:
        _, next_day = local_day_bounds(snapshot.now, snapshot.tz)
        return _block(
            "L1:daily_cap",
            f"{snapshot.proactive_today} proactive contacts today already reach the cap of "
            f"{policy.max_proactive_contacts_per_day}",
            next_day,
        )
    return ALLOW


def layer2_concern_limits(state: ConcernState, limits: Limits) -> Verdict:
    """L2 concern business limits on opening a loop: active concerns globally and per person."""
    if state.active_global >= limits.max_active_concerns:
        return _block(
            "L2:global_concern_limit",
            f"{state.active_global} active concerns reach the global limit of {limits.max_active_concerns}",
        )
    if state.active_for_person >= limits.max_active_concerns_per_person:
        return _block(
            "L2:person_concern_limit",
            f"{state.active_for_person} active concerns already wait on this person "
            f"(limit {limits.max_active_concerns_per_person})",
        )
    return ALLOW


def layer2_follow_up_interval(snapshot: Snapshot) -> Verdict:
    """L2 on a follow-up: not before its interval, and none once the schedule says escalate."""
    concern, limits = snapshot.concern, snapshot.limits
    assert concern is not None and concern.state is not None
    waits = limits.follow_up_schedule.get(concern.state.priority, [])
    # The last entry of a schedule is the wait before escalating, not a follow-up.
    if concern.state.follow_up_count >= len(waits) - 1:
        return _block(
            "L2:follow_up_interval", f"the {concern.state.priority} follow-up schedule is exhausted: escalate instead"
        )
    if concern.last_contact_at is not None:
        due = concern.last_contact_at + waits[concern.state.follow_up_count]
        if snapshot.now + snapshot.early < due:
            return _block(
                "L2:follow_up_interval",
                f"follow-up {concern.state.follow_up_count + 1} is not due before "
                f"{due.astimezone(snapshot.tz).isoformat()}",
                due,
            )
    return ALLOW


def layer3_contact_limit(snapshot: Snapshot) -> Verdict:
    """L3 channel contact limit: the same concern reaches the same person ≤ N times in any rolling window (a bundle:
    each of its loops)."""
    assert snapshot.concern is not None
    for concern in (snapshot.concern, *snapshot.bundled):
        verdict = _contact_limit(concern, snapshot.limits, snapshot.now)
        if not verdict.allowed:
            return verdict
    return ALLOW


def _contact_limit(concern: ConcernView, limits: Limits, now: datetime) -> Verdict:
    window_start = now - limits.concern_contact_window
    recent = [t for t in concern.contacts_in_window if t > window_start]
    if len(recent) >= limits.concern_contact_limit:
        oldest_counted = sorted(recent)[-limits.concern_contact_limit]
        return _block(
            "L3:concern_contact_limit",
            f"concern {concern.concern_id} already contacted the person {len(recent)} times in the last "
            f"{limits.concern_contact_window}",
            oldest_counted + limits.concern_contact_window,
        )
    return ALLOW


def layer4_cooldown(snapshot: Snapshot) -> Verdict:
    """L4 notification cooldown: the same notification_type to the same person not again within its cooldown."""
    cooldown = snapshot.limits.cooldown_for(snapshot.notification_type)
    last = snapshot.last_same_notification_at
    if last is not None and snapshot.now < last + cooldown:
        kind = snapshot.notification_type or "default"
        return _block(
            "L4:cooldown",
            f"a {kind} notification was sent at {last.astimezone(snapshot.tz).isoformat()}; cooldown {cooldown}",
            last + cooldown,
        )
    return ALLOW


def applicable_layers(snapshot: Snapshot) -> list:
    """The layers that apply to this action (SPEC §4.2 table; reactive replies skip L1 and L4).

    L2's active-concern limits apply when a loop is opened (`layer2_concern_limits`, asked by the concern
    engine before it queues the question); the follow-up interval applies to each follow-up the schedule sends,
    not to one a person explicitly asked for now (L1 and L3 still do).
    """
    layers = []
    if snapshot.action_type in PROACTIVE_TYPES and not snapshot.reactive:
        layers.append(layer1_person_policy)
    if snapshot.action_type == ActionType.send_message and snapshot.concern is not None:
        if snapshot.follow_up and snapshot.concern.state is not None and not snapshot.explicit:
            layers.append(layer2_follow_up_interval)
        layers.append(layer3_contact_limit)
    if snapshot.action_type == ActionType.notify and not snapshot.reactive:
        layers.append(layer4_cooldown)
    return layers


def evaluate(snapshot: Snapshot) -> Verdict:
    """Run the applicable layers in order; the first refusal wins."""
    for layer in applicable_layers(snapshot):
        verdict = layer(snapshot)
        if not verdict.allowed:
            return verdict
    return ALLOW


# The keys of result_detail that let anyone prove politeness from `/v1/facts` alone (SPEC §3.6).
POLITENESS = ("priority", "proactive", "solicited", "reactive", "target_local_time")


def politeness(
    *, action_type: ActionType, priority: str, reactive: bool, solicited: bool, at: datetime, tz: ZoneInfo
) -> dict[str, object]:
    """What the layers judged the action as: its priority, proactive / solicited / reactive, and the target's local
    time at the instant of that judgement (the instant the cap's local day and quiet hours were read at)."""
    facing = action_type in PERSON_FACING
    return {
        "priority": priority,
        "proactive": facing and not reactive,
        "solicited": solicited,
        "reactive": reactive,
        "target_local_time": at.astimezone(tz).isoformat(),
    }


def kept_politeness(detail: dict[str, object]) -> dict[str, object]:
    """The politeness keys of a detail about to be replaced (a pending action's detail is rewritten when it ends)."""
    return {key: detail[key] for key in POLITENESS if key in detail}


def kept_detail(detail: dict[str, object]) -> dict[str, object]:
    """What a rewritten detail keeps: the politeness keys and the loops a bundle asked for (`concerns`)."""
    return kept_politeness(detail) | ({"concerns": detail["concerns"]} if "concerns" in detail else {})
