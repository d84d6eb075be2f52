"""Reads and writes of the action ledger that the layers' snapshot needs (prebuilt statements: this is the hot path)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Row, bindparam, func, insert, null, or_, select, text, update

from action.models import ActionConcern, ActionRow, ActionType, Result, counts
from action.rules import ConcernState, ConcernView, Limits, kept_detail
from fact.models import Fact
from kernel.context import UnitOfWork
from person.models import ChannelBinding, Person

ledger = ActionRow.__table__.c  # the action ledger's columns, for the prebuilt statements below

_TARGET = select(
    Person.__table__.c.active,
    Person.__table__.c.timezone,
    Person.__table__.c.locale,
    Person.__table__.c.interaction_policy,
).where(Person.__table__.c.person_id == bindparam("person_id"))
_BINDINGS = (
    select(
        ChannelBinding.__table__.c.channel,
        ChannelBinding.__table__.c.external_user_id,
        ChannelBinding.__table__.c.chat_id,
        ChannelBinding.__table__.c.reachable,
    )
    .where(ChannelBinding.__table__.c.person_id == bindparam("person_id"))
    .order_by(ChannelBinding.__table__.c.id)
)
# `counted` rows: delivered, in flight (pending reservations count, so limits hold under concurrency), or
# possibly delivered (interrupted by a crash, answer lost in a timeout).
_PROACTIVE = select(func.count()).where(
    ledger.target_person_id == bindparam("person_id"),
    ledger.proactive.is_(True),
    ledger.solicited.is_(False),
    ledger.counted.is_(True),
    ledger.created_at >= bindparam("start"),
    ledger.created_at < bindparam("end"),
)
_LAST_NOTICE = select(func.max(ledger.created_at)).where(
    ledger.target_person_id == bindparam("person_id"),
    ledger.action_type == ActionType.notify.value,
    ledger.notification_type == bindparam("ntype"),
    ledger.proactive.is_(True),
    ledger.counted.is_(True),
    ledger.created_at > bindparam("since"),
)
# Loop-outcome notices are cooled down per concern: two loops' outcomes never hold each other back.
_LAST_CONCERN_NOTICE = _LAST_NOTICE.where(ledger.concern_id == bindparam("concern_id"))
# A bundle asks for several loops in one action: its other loops are linked in `action_concerns`, and each
# of them counts that action as one contact of its own.
_BUNDLED = select(ActionConcern.__table__.c.action_id).where(
    ActionConcern.__table__.c.concern_id == bindparam("concern_id")
)
_OF_CONCERN = or_(ledger.concern_id == bindparam("concern_id"), ledger.action_id.in_(_BUNDLED))
_CONTACTS = (
    select(ledger.created_at)
    .where(
        _OF_CONCERN,
        ledger.target_person_id == bindparam("person_id"),
        ledger.action_type == ActionType.send_message.value,
        ledger.counted.is_(True),
    )
    .order_by(ledger.created_at)
)


class Binding(NamedTuple):
    """One of the target's channel bindings, as routing reads it."""

    channel: str
    external_user_id: str
    chat_id: str | None
    reachable: bool


class Seen(NamedTuple):
    """The target as the layers judge it: its row (None: no such person), bindings and ledger counts."""

    person: Row | None  # (active, timezone, locale, interaction_policy, ...)
    bindings: list[Binding]
    proactive_today: int  # counted proactive actions in [start, end)
    last_notice: datetime | None  # the last same-type notice after `since` (None when not asked)
    decision: dict[str, Any] | None  # the content of the decision fact asked for (None: not in the log, not asked)


_P, _B = Person.__table__.c, ChannelBinding.__table__.c
# The decision behind the action, for the sandbox fence (`action.sandbox`): its fact's content, by its key.
_DECISION = select(Fact.__table__.c.content).where(Fact.__table__.c.dedup_key == bindparam("decision_key"))


def _seen_statement(last_notice: Any) -> Any:
    """The person, the cap's count, L4's last notice and every binding in one statement (a row per binding)."""
    notice = last_notice.scalar_subquery() if last_notice is not None else null()
    return (
        select(
            *_TARGET.selected_columns,
            _PROACTIVE.scalar_subquery().label("proactive_today"),
            notice.label("last_notice"),
            _DECISION.scalar_subquery().label("decision"),
            _B.channel,
            _B.external_user_id,
            _B.chat_id,
            _B.reachable,
        )
        .select_from(Person.__table__.outerjoin(ChannelBinding.__table__, _B.person_id == _P.person_id))
        .where(_P.person_id == bindparam("person_id"))
        .order_by(_B.id)
    )


_SEEN = {"none": _seen_statement(None), "type": _seen_statement(_LAST_NOTICE)}
_SEEN["concern"] = _seen_statement(_LAST_CONCERN_NOTICE)


_INSERT = insert(ActionRow.__table__).returning(*ActionRow.__table__.c)
_FINALIZE = (
    update(ActionRow.__table__)
    .where(ledger.action_id == bindparam("a_id"), ledger.result == Result.pending.value)
    .values(
        result=bindparam("new_result"),
        channel=bindparam("new_channel"),
        result_detail=bindparam("new_detail"),
        timestamp=bindparam("new_timestamp"),
        counted=bindparam("new_counted"),
    )
    .returning(*ActionRow.__table__.c)
)


# A held send judged at last: _FINALIZE that also dates it now, so the cap's day, L3 and L4 count it when it goes.
_SETTLE = _FINALIZE.values(created_at=bindparam("new_timestamp"))
_TOUCH = (
    update(ActionRow.__table__)
    .where(ledger.action_id == bindparam("a_id"), ledger.result == Result.pending.value)
    .values(result_detail=bindparam("new_detail"), timestamp=bindparam("new_timestamp"))
)


_LOCK_PERSON = text("SELECT pg_advisory_xact_lock(hashtext(:key))")
_BY_REQUEST_KEY = select(*ActionRow.__table__.c).where(ledger.request_key == bindparam("request_key"))
_BY_ACTION_ID = select(*ActionRow.__table__.c).where(ledger.action_id == bindparam("action_id"))


def lock_person(uow: UnitOfWork, *, person_id: str) -> None:
    """Serialise check-and-reserve per target person (SQLite already holds the write lock: BEGIN IMMEDIATE)."""
    if uow.postgres:
        uow.session.execute(_LOCK_PERSON, {"key": f"person:{person_id}"})


def target(uow: UnitOfWork, *, person_id: str) -> Row | None:
    """(active, timezone, locale, interaction_policy) of the target, or None."""
    return uow.session.execute(_TARGET, {"person_id": person_id}).first()


def bindings(uow: UnitOfWork, *, person_id: str) -> list[Row]:
    """The target's bindings in a stable order."""
    return list(uow.session.execute(_BINDINGS, {"person_id": person_id}))


def count_proactive(uow: UnitOfWork, *, person_id: str, start: datetime, end: datetime) -> int:
    """Successful or in-flight proactive actions towards a person in [start, end)."""
    return uow.session.execute(_PROACTIVE, {"person_id": person_id, "start": start, "end": end}).scalar_one()


def last_notification_at(
    uow: UnitOfWork, *, person_id: str, notification_type: str, since: datetime, concern_id: str | None = None
) -> datetime | None:
    """When a proactive notify of this type (about `concern_id`, if given) last went to the person, after `since`."""
    params = {"person_id": person_id, "ntype": notification_type, "since": since}
    if concern_id is None:
        return uow.session.execute(_LAST_NOTICE, params).scalar_one()
    return uow.session.execute(_LAST_CONCERN_NOTICE, {**params, "concern_id": concern_id}).scalar_one()


def seen(
    uow: UnitOfWork,
    *,
    person_id: str,
    start: datetime,
    end: datetime,
    notice: dict[str, Any] | None = None,
    decision_key: str | None = None,
) -> Seen:
    """The target, its bindings, its counted proactive actions in [start, end), (`notice`: ntype, since and
    concern_id or None) its last same-type notice and the content of the fact under `decision_key`, read in one
    statement: the reservation's hot path."""
    params: dict[str, Any] = {"person_id": person_id, "start": start, "end": end, "decision_key": decision_key}
    kind = "none"
    if notice is not None:
        kind = "type" if notice.get("concern_id") is None else "concern"
        params |= {k: v for k, v in notice.items() if v is not None}
    rows = list(uow.session.execute(_SEEN[kind], params))
    if not rows:
        return Seen(None, [], 0, None, None)
    first = rows[0]
    found = [Binding(r.channel, r.external_user_id, r.chat_id, r.reachable) for r in rows if r.channel is not None]
    return Seen(first, found, first.proactive_today, first.last_notice, first.decision)


def concern_view(
    uow: UnitOfWork, *, concern_id: str, person_id: str, state: ConcernState | None, limits: Limits, now: datetime
) -> ConcernView:
    """L2/L3 inputs for an action tied to `concern_id`: the concern layer's state and this ledger's contacts."""
    contacts = list(uow.session.scalars(_CONTACTS, {"concern_id": concern_id, "person_id": person_id}))
    return ConcernView(
        concern_id=concern_id,
        state=state,
        last_contact_at=contacts[-1] if contacts else None,
        contacts_in_window=tuple(t for t in contacts if t > now - limits.concern_contact_window),
    )


def by_request_key(uow: UnitOfWork, *, request_key: str) -> Row | None:
    """The action already executed for this request key, if any."""
    return uow.session.execute(_BY_REQUEST_KEY, {"request_key": request_key}).first()


def by_action_id(uow: UnitOfWork, *, action_id: str) -> Row:
    """The action with this id (it must exist)."""
    return uow.session.execute(_BY_ACTION_ID, {"action_id": action_id}).one()


def touch_pending(uow: UnitOfWork, *, action_id: str, detail: dict[str, Any]) -> None:
    """Rewrite a pending action's detail (deferred or resumed) and restart its clock (the sweep reads it)."""
    detail = {**detail, **_politeness_of(uow, action_id)}
    uow.session.execute(_TOUCH, {"a_id": action_id, "new_detail": detail, "new_timestamp": uow.now})


def _politeness_of(uow: UnitOfWork, action_id: str) -> dict[str, Any]:
    """The politeness keys (and a bundle's loops) the action was inserted with: a rewritten detail keeps them."""
    row = uow.session.execute(_BY_ACTION_ID, {"action_id": action_id}).first()
    return kept_detail((row.result_detail if row else None) or {})


def insert_action(uow: UnitOfWork, values: dict[str, Any], *, bundled: list[str] = ()) -> Row:
    """Insert an action row (and the links of the other loops it asks for, a bundle's) and return it."""
    row = uow.session.execute(_INSERT, values).one()
    links = [{"action_id": row.action_id, "concern_id": c} for c in bundled if c != row.concern_id]
    if links:
        uow.session.execute(insert(ActionConcern.__table__), links)
    return row


def finalize_action(
    uow: UnitOfWork, *, action_id: str, result: str, channel: str, detail: dict[str, Any], kept: dict | None = None
) -> Row | None:
    """Set the outcome of a pending action; None if it is no longer pending.

    `kept` is the row's `kept_detail` as its reservation read it; no writer changes those keys while the row is
    pending (insert and `settle_held` set them, `touch_pending` keeps them) and the update only matches a pending
    row, so passing them saves reading them again."""
    detail = {**detail, **(_politeness_of(uow, action_id) if kept is None else kept)}
    params = {
        "a_id": action_id,
        "new_result": result,
        "new_channel": channel,
        "new_detail": detail,
        "new_timestamp": uow.now,
        "new_counted": counts(result, detail),
    }
    return uow.session.execute(_FINALIZE, params).first()


def settle_held(uow: UnitOfWork, *, action_id: str, result: str, channel: str, detail: dict[str, Any]) -> Row | None:
    """Judge a held send at last: its outcome (or its reservation, pending) with `detail` as it is; None if it was
    no longer pending."""
    params = {
        "a_id": action_id,
        "new_result": result,
        "new_channel": channel,
        "new_detail": detail,
        "new_timestamp": uow.now,
        "new_counted": counts(result, detail),
    }
    return uow.session.execute(_SETTLE, params).first()


_CONTACT_TIMES = select(func.min(ledger.created_at), func.max(ledger.created_at)).where(
    _OF_CONCERN,
    ledger.target_person_id == bindparam("person_id"),
    ledger.action_type == ActionType.send_message.value,
    ledger.counted.is_(True),
    ledger.result != Result.pending.value,
)


def contacts(uow: UnitOfWork, *, concern_id: str, person_id: str) -> list[datetime]:
    """When a concern contacted its target (the contacts L3 counts), oldest first."""
    return list(uow.session.scalars(_CONTACTS, {"concern_id": concern_id, "person_id": person_id}))


def contact_times(uow: UnitOfWork, *, concern_id: str, person_id: str) -> tuple[datetime | None, datetime | None]:
    """First and last finished send_message of a concern to its target that reached (or may have reached) them."""
    first, last = uow.session.execute(_CONTACT_TIMES, {"concern_id": concern_id, "person_id": person_id}).one()
    return first, last
