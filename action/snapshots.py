"""What the four layers read about one request: the person's policy and day, the loop's contacts, the limits."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from action import ledger, rules
from action.models import ActionRequest
from kernel.context import AppContext, UnitOfWork
from person.models import InteractionPolicy
from person.rules import local_day_bounds

# The concern layer's word on the loop an action belongs to, asked inside the reserving transaction.
ConcernStateOf = Callable[[UnitOfWork], "rules.ConcernState | None"]
# The timezone each person was last seen in (a guess for the cap's day; `read` checks it): bounded, per process.
_TZ_OF: dict[str, str] = {}
_TZ_KEPT = 10_000


def read(ctx: AppContext, uow: UnitOfWork, request: ActionRequest) -> ledger.Seen:
    """The target, its bindings and the ledger counts the layers need, in the reserving transaction.

    One statement: the cap's local day is taken in the timezone this process last saw for the person (the
    service's at first); when the row names another, the count is read again for that day.
    """
    person_id, limits = request.target_person_id, limits_from(ctx.settings)
    notice = None
    if request.action_type == "notify" and not request.reactive:
        ntype = request.notification_type or "default"
        since = uow.now - limits.cooldown_for(ntype)
        notice = {"ntype": ntype, "since": since, "concern_id": request.concern_id if request.solicited else None}
    guess = _TZ_OF.get(person_id) or uow.tz.key
    start, end = local_day_bounds(uow.now, ZoneInfo(guess))
    key = decision_key(request)
    seen = ledger.seen(uow, person_id=person_id, start=start, end=end, notice=notice, decision_key=key)
    if seen.person is not None and seen.person.timezone != guess:
        if len(_TZ_OF) >= _TZ_KEPT:
            _TZ_OF.clear()
        _TZ_OF[person_id] = seen.person.timezone
        start, end = local_day_bounds(uow.now, ZoneInfo(seen.person.timezone))
        seen = seen._replace(proactive_today=ledger.count_proactive(uow, person_id=person_id, start=start, end=end))
    return seen


def decision_key(request: ActionRequest) -> str | None:
    """The fact key of the decision behind `request` (None when a loop, not a decision, caused it)."""
    ref = request.decision_ref or ""
    return f"decision:{ref}" if ref.startswith("dec_") else None


def snapshot(
    ctx: AppContext,
    uow: UnitOfWork,
    request: ActionRequest,
    seen: ledger.Seen,
    state: rules.ConcernState | None,
    early: timedelta = timedelta(0),
) -> rules.Snapshot:
    """Everything the four layers read, in the reserving transaction (`seen`: `read`'s; `early`: see
    `verdict_now`)."""
    person_id, limits = request.target_person_id, limits_from(ctx.settings)
    concern, bundled = None, ()
    if request.concern_id and request.action_type == "send_message":
        concern = ledger.concern_view(
            uow, concern_id=request.concern_id, person_id=person_id, state=state, limits=limits, now=uow.now
        )
        bundled = tuple(
            ledger.concern_view(uow, concern_id=c, person_id=person_id, state=None, limits=limits, now=uow.now)
            for c in request.concerns[1:]
        )
    return rules.Snapshot(
        action_type=request.action_type,
        now=uow.now,
        priority=request.priority,
        reactive=request.reactive,
        policy=InteractionPolicy.model_validate(seen.person.interaction_policy),
        tz=ZoneInfo(seen.person.timezone),
        proactive_today=seen.proactive_today,
        limits=limits,
        concern=concern,
        follow_up=request.follow_up,
        notification_type=request.notification_type,
        last_same_notification_at=seen.last_notice,
        solicited=request.solicited,
        explicit=request.explicit,
        bundled=bundled,
        early=early,
    )


def limits_from(settings: Any) -> rules.Limits:
    """The layers' limits from settings."""
    s = settings
    return rules.Limits(
        max_active_concerns=s.max_active_concerns,
        max_active_concerns_per_person=s.max_active_concerns_per_person,
        concern_contact_limit=s.concern_contact_limit,
        concern_contact_window=s.concern_contact_window,
        follow_up_schedule=s.follow_up_schedule,
        cooldowns=s.notification_cooldowns,
    )


def verdict_now(
    uow: UnitOfWork,
    *,
    request: ActionRequest,
    concern_state: ConcernStateOf | None = None,
    early: timedelta = timedelta(0),
) -> rules.Verdict:
    """What the layers would say about `request` right now, reserving and recording nothing (a button's toast; a
    bundle asking whether an item may go on its own: `early`, a follow-up due within it counts as due now).

    The truth stays with `reserve`: a send may still meet a refusal that came up in between.
    """
    # The unit of work carries the settings `read` and `snapshot` read from the context.
    seen = read(uow, uow, request)  # type: ignore[arg-type]
    person = seen.person
    if person is None or not person.active:
        error = "target_not_found" if person is None else "target_inactive"
        return rules.Verdict(allowed=False, blocked_by=error, reason=f"person cannot be contacted ({error})")
    state = concern_state(uow) if concern_state else None
    return rules.evaluate(snapshot(uow, uow, request, seen, state, early))  # type: ignore[arg-type]
