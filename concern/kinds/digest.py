"""The digest: what can wait is held for a person with `interaction_policy.digest` and goes out in one message.

Held: P2/P3 backflows and notices whose notification type is listed in DEPUTY_DIGEST_TYPES (never P0/P1, never a
reply). The drainer holds such an entry instead of running it: the outbox entry moves to state `digest` with the
digest's moment as `available_at` (the person's next brief, or `digest_max_wait` after it was held, whichever is
first), and a `digest_held` fact says it waits for the digest. When a person's first held entry is due, all of
theirs go out together as one solicited `notify` (notification_type `digest`) whose result_detail lists the items;
each item then gets a `digest_delivered` fact naming that action. Entries are claimed with SKIP LOCKED and moved
by a conditional update, and the digest's request key is unique: one digest per batch, also with replicas.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select, update

from action.models import ActionRecord, ActionRequest, possibly_delivered
from concern import queue
from concern.models import OutboxEntry
from fact import decisions
from fact import service as facts
from fact.decisions import DecisionKind
from kernel.catalogue import Catalogue
from kernel.context import AppContext, UnitOfWork
from kernel.portion import Portion
from person import service as persons
from person.models import InteractionPolicy, wait_seconds
from person.schedule_rules import next_brief_at

HELD = "digest"  # the outbox entry waits for its person's digest
CARRIED = "digested"  # it went out inside a digest (the digest's own entry is the action)
PURPOSE = "digest"
URGENT = ("P0", "P1")
MAX_TRIES = 5
RETRY = timedelta(days=1)

TEXTS = Catalogue(
    "concern.digest",
    {"head": {"zh": "【摘要】{count} 条可以稍后看的消息：", "en": "Digest: {count} messages that could wait:"}},
)


def digestible(request: ActionRequest, digest_types: list[str]) -> bool:
    """Whether a request may wait for a digest at all (the person's policy decides the rest). Pure."""
    if request.reactive or request.priority in URGENT or request.destination is not None:
        return False
    if request.media or request.buttons:  # one text message cannot carry a file or another message's buttons
        return False
    if request.action_type == "backflow":
        return True
    return request.action_type == "notify" and request.notification_type in digest_types


def due_at(policy: InteractionPolicy, tz: ZoneInfo, now: datetime, *, principal: bool) -> datetime:
    """When an item held now goes out: the next brief (principals get one) or after digest_max_wait, the first."""
    latest = now + timedelta(seconds=wait_seconds(policy.digest_max_wait))
    brief = next_brief_at(policy, tz, now) if principal else None
    return min(latest, brief) if brief is not None else latest


def hold(uow: UnitOfWork, entry: OutboxEntry) -> bool:
    """Hold a claimed entry for its person's digest (in the claim's transaction); False when it goes out now."""
    request = ActionRequest.model_validate(entry.request)
    if not digestible(request, list(getattr(uow.settings, "digest_types", []) or [])):
        return False
    person = persons.get(uow, person_id=request.target_person_id) if request.target_person_id else None
    if person is None or not person.active:
        return False
    policy = persons.policy_of(person)
    if not policy.digest:
        return False
    until = due_at(policy, ZoneInfo(person.timezone), uow.now, principal=person.role == "principal")
    entry.state, entry.claimed_by, entry.available_at = HELD, None, until
    uow.session.flush()
    facts.append(
        uow,
        fact_type="system",
        source="concern",
        person_refs=[person.person_id],
        causation_id=request.decision_ref,
        content={
            "event": "digest_held",
            "request_key": entry.request_key,
            "concern_id": entry.concern_id,
            "priority": request.priority,
            "notification_type": request.notification_type or request.action_type.value,
            "until": until.isoformat(),
        },
    )
    return True


def _held(uow: UnitOfWork, *, due_only: bool) -> list[OutboxEntry]:
    stmt = select(OutboxEntry).where(OutboxEntry.state == HELD)
    if due_only:
        stmt = stmt.where(OutboxEntry.available_at <= uow.now)
    stmt = stmt.order_by(OutboxEntry.available_at, OutboxEntry.id).limit(500)
    if uow.postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    return list(uow.session.scalars(stmt))


def send_due(ctx: AppContext, *, portion: Portion) -> int:
    """Queue the digests whose moment came, one person per transaction, as many as `portion` takes; how many."""
    sent = 0
    while portion.more(sent):
        with ctx.uow(actor="concern") as uow:
            due = _held(uow, due_only=True)
            if not due:
                break
            person_id = due[0].request["target_person_id"]
            items = [e for e in _held(uow, due_only=False) if e.request["target_person_id"] == person_id]
            _queue(uow, person_id, items or [due[0]])
            sent += 1
    return sent


def _queue(uow: UnitOfWork, person_id: str, items: list[OutboxEntry]) -> None:
    ids = [e.id for e in items]
    moved = uow.session.execute(
        update(OutboxEntry).where(OutboxEntry.id.in_(ids), OutboxEntry.state == HELD).values(state=CARRIED)
    )
    if moved.rowcount != len(ids):  # cannot happen (the rows are locked): undo rather than carry one twice
        raise RuntimeError(f"digest items for {person_id} changed under their lock")
    person = persons.get_or_404(uow, person_id=person_id)
    keys = [e.request_key for e in items]
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.direct_action,
        rule="digest",
        inputs=[e.request["decision_ref"] for e in items][:50],
        person_refs=[person_id],
        source="concern",
        requested=[{"action": "notify", "notification_type": PURPOSE, "items": keys}],
    )
    head = TEXTS.text("head", person.locale, count=len(items))
    body = "\n\n".join(f"· {e.request['text']}" for e in items)
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=person_id,
        text=f"{head}\n\n{body}",
        priority="P2",
        solicited=True,
        notification_type=PURPOSE,
        request_key=f"{PURPOSE}:{person_id}:{min(ids)}",
        carries=keys,
    )
    queue.enqueue(uow, request=request, purpose=PURPOSE)


def delivered(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """The digest's result: each item linked to it, or the digest tried again at its moment (never lost)."""
    if record.result == "success" or possibly_delivered(record.result, record.result_detail):
        for key in request.carries:
            facts.append(
                uow,
                fact_type="system",
                source="concern",
                person_refs=[request.target_person_id],
                causation_id=record.action_id,
                content={"event": "digest_delivered", "request_key": key, "action_id": record.action_id},
            )
        return
    base, _, tries = entry.request_key.partition("#")
    attempt = int(tries or 1)
    if attempt >= MAX_TRIES:
        facts.append(
            uow,
            fact_type="system",
            source="concern",
            person_refs=[request.target_person_id],
            causation_id=record.action_id,
            content={"event": "digest_undelivered", "items": request.carries, "action_id": record.action_id},
        )
        return
    not_before: Any = record.result_detail.get("not_before")
    at = datetime.fromisoformat(not_before) if not_before else uow.now + RETRY
    again = request.model_copy(update={"request_key": f"{base}#{attempt + 1}"})
    queue.enqueue(uow, request=again, purpose=PURPOSE, available_at=at)
