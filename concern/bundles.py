"""One message for many asks: follow-ups to one person falling due within DEPUTY_BUNDLE_WINDOW go out together.

When a question's follow-up falls due, the person's other questions whose follow-ups fall due within the window
are gathered, each only if it could go on its own now: the model would not hold it (away, busy) and the action
layer's layers allow it (`verdict_now`, its interval asked ahead by the window; a P2 is never carried through
quiet hours by a P0). With at least one besides the first, one send_message goes out: its decision is a `bundle`
decision listing the loops, it names them (`concerns`), its priority is the highest item's, each item is a
numbered part with its own buttons (one press acts on its item only). L1 counts it once, L3 once for each loop,
and each loop's schedule moves on as if its own follow-up went (`concern.outbox.asked.bundled`). The items are
taken with SKIP LOCKED and their timers cleared in the bundle's transaction: no other processor bundles or fires
them again; the outbox's request key makes the send itself idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action import service as actions
from action.models import BUNDLE_MAX, ActionRequest
from concern import buttons as concern_buttons
from concern import queue, reachability, service
from concern.models import Concern
from concern.notices import _person
from concern.outbound import contact_times
from concern.queue import Purpose
from concern.rules import Step
from concern.texts import messages
from fact import decisions
from fact.decisions import DecisionKind
from kernel.catalogue import Catalogue
from kernel.context import UnitOfWork

TEXTS = Catalogue(
    "concern.bundle",
    {
        "head": {"zh": "有 {count} 件事在等你回复：", "en": "{count} things are waiting for your answer:"},
        "item": {"zh": "[{n}] {text}", "en": "[{n}] {text}"},
        "button": {"zh": "{n} {label}", "en": "{n} {label}"},
    },
)
RANK = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}


def _candidates(uow: UnitOfWork, first: Concern) -> list[Concern]:
    """The person's other waiting questions whose timers fall within the window, oldest timer first; rows another
    processor holds are skipped (SKIP LOCKED), so two processors never take the same loop."""
    stmt = (
        select(Concern)
        .where(
            Concern.target_person_id == first.target_person_id,
            Concern.concern_id != first.concern_id,
            Concern.state == "waiting_reply",
            Concern.kind == "question",
            Concern.approval.is_(False),
            Concern.sandbox.is_(first.sandbox),
            Concern.held_by.is_(None),
            Concern.step_at.is_not(None),
            Concern.step_at <= uow.now + uow.settings.bundle_window,
        )
        .order_by(Concern.step_at, Concern.created_at, Concern.concern_id)
        .limit(4 * BUNDLE_MAX)
    )
    if uow.postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    return list(uow.session.scalars(stmt))


def _alone(uow: UnitOfWork, concern: Concern, *, early: timedelta) -> bool:
    """Whether the action layer would let this loop's follow-up go on its own now (asked, nothing recorded)."""
    request = ActionRequest(
        action_type="send_message",
        decision_ref=concern.concern_id,
        target_person_id=concern.target_person_id,
        text=concern.question,
        priority=concern.priority,
        concern_id=concern.concern_id,
        follow_up=True,
        origin_channel=concern.origin_channel,
    )

    def state(u: UnitOfWork):
        return service.state_of(u, concern_id=concern.concern_id)

    return actions.verdict_now(uow, request=request, concern_state=state, early=early).allowed


def _fits(uow: UnitOfWork, concern: Concern, due: Callable[[UnitOfWork, Concern], Step]) -> bool:
    step = due(uow, concern)
    window = uow.settings.bundle_window
    return (
        step.kind == "follow_up"
        and step.at <= uow.now + window
        and not reachability.would_gate(uow, concern, kind="follow_up", step_at=step.at)
        and _alone(uow, concern, early=window)
    )


def bundle(uow: UnitOfWork, first: Concern, *, due: Callable[[UnitOfWork, Concern], Step]) -> bool:
    """Send `first`'s due follow-up with the person's others due within the window, as one message; False (nothing
    done) when the window is off, `first` could not go on its own now, or no other follow-up qualifies."""
    if uow.settings.bundle_window.total_seconds() <= 0 or first.kind != "question" or first.approval:
        return False
    if not _alone(uow, first, early=timedelta(0)):
        return False  # held by a layer on its own: the ordinary path records that, nothing rides along
    items = [c for c in _candidates(uow, first) if _fits(uow, c, due)][: BUNDLE_MAX - 1]
    if not items:
        return False
    loops = [first, *items]
    ids = [c.concern_id for c in loops]
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.direct_action,
        rule="bundle",
        inputs=ids,
        person_refs=[first.target_person_id],
        source="concern",
        requested=[{"action": "send_message", "concerns": ids}],
    )
    for concern in loops:
        service.change(
            uow,
            concern,
            change="timer_fired",
            causation_id=decision_id,
            step_at=None,
            extra={"step": "follow_up", "bundle": decision_id},
        )
    request = _request(uow, loops, decision_id=decision_id)
    queue.enqueue(uow, request=request, purpose=Purpose.bundle, concern=first)
    return True


def _request(uow: UnitOfWork, loops: list[Concern], *, decision_id: str) -> ActionRequest:
    """The one send_message: a numbered part per loop (its follow-up's words), each with its own buttons."""
    first = loops[0]
    target = _person(uow, first.target_person_id)
    tz, locale = ZoneInfo(target.timezone), target.locale
    key = f"bundle:{first.concern_id}:v{first.version}"
    parts, items = [TEXTS.text("head", locale, count=len(loops))], []
    for n, concern in enumerate(loops, start=1):
        asker = _person(uow, concern.originator_id)
        first_at, _ = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
        since = first_at or concern.created_at
        text = messages.follow_up(asker.display_name, concern.question, since, uow.now, tz, locale)
        parts.append(TEXTS.text("item", locale, n=n, text=text))
        verbs = [
            (verb, TEXTS.text("button", locale, n=n, label=concern_buttons.label(verb, locale)), args, style)
            for verb, args, style in concern_buttons.SETS["question"]
        ]
        items.append((str(n), concern.concern_id, verbs))
    return ActionRequest(
        action_type="send_message",
        decision_ref=decision_id,
        target_person_id=first.target_person_id,
        text="\n\n".join(parts),
        priority=min((c.priority for c in loops), key=RANK.__getitem__),
        concern_id=first.concern_id,
        concerns=[c.concern_id for c in loops],
        follow_up=True,
        origin_channel=first.origin_channel,
        request_key=key,
        buttons=concern_buttons.numbered(uow, key=key, addressee_id=first.target_person_id, items=items),
    )


def unchanged(uow: UnitOfWork, *, concern_ids: list[str]) -> str | None:
    """The drainer's guard for a bundle's other loops: a reason when one moved on since (answered, snoozed …)."""
    for concern_id in concern_ids:
        c = service.get(uow, concern_id=concern_id, lock=True)
        if c is None or c.state != "waiting_reply" or c.step_at is not None:
            return f"superseded: concern {concern_id} changed since the bundle was decided"
    return None


def superseded(uow: UnitOfWork, *, concern_ids: list[str]) -> None:
    """A bundle that did not go: each loop still waiting on it fires again on its own (its timer set to now)."""
    for concern_id in concern_ids:
        c = service.get(uow, concern_id=concern_id, lock=True)
        if c is not None and c.state == "waiting_reply" and c.step_at is None:
            service.change(uow, c, change="rescheduled", step_at=uow.now, extra={"reason": "bundle superseded"})
