"""Asking the optional LLM: off every transaction, on the LLM client's small pool, durable across crashes.

Why this shape: the request is the message's own inbox row, left in state `llm_pending` by the transaction
that decided on the message (so recording it costs no extra write, and a crash before the call loses nothing:
the row is still there for the next pass of any replica). A replica takes a row by setting `processed_at`
(a lease, conditional so one replica wins); a crash while asking leaves the row to be taken again once the lease
ends. The answer, whatever it is (a proposal, a timeout, garbage, no budget left), becomes one `llm_proposal`
fact queued like any signal, and the row is done in the same transaction.

The daily budget (DEPUTY_LLM_DAILY_BUDGET calls per day in DEPUTY_TIMEZONE) is counted in the database, so
it holds across replicas: each call first takes a numbered slot, a `system` fact whose unique dedup key
`llm:call:<day>:<n>` makes two replicas racing for the same slot have one winner.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from threading import Lock
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, or_, select, update

from cognitive_core.language.parsing import strip_bot_mention
from cognitive_core.llm.rules import Answer
from cognitive_core.people import people_cache
from fact import service as facts
from fact.models import Fact
from kernel.context import AppContext, UnitOfWork
from kernel.wakeups import wake
from perception import service as perception
from perception.models import LLM_PENDING, InboxEntry

log = logging.getLogger("deputy.llm")

MAX_AGE = timedelta(minutes=10)  # a proposal about a message older than this would surprise: not asked
PER_PASS = 8


def _lease(ctx: AppContext) -> timedelta:
    """How long a replica asking the LLM keeps its row: well past the call's own timeout."""
    return 2 * ctx.settings.llm_timeout + timedelta(seconds=30)


def dispatch(ctx: AppContext) -> int:
    """Hand the messages waiting for the LLM to its pool (cheap: the calls run there, not in the pass)."""
    if ctx.classifier is None:
        return 0
    with ctx.reader() as uow:
        stmt = (
            select(InboxEntry.fact_id)
            .where(InboxEntry.state == LLM_PENDING, _free(uow, _lease(ctx)))
            .order_by(InboxEntry.fact_pk)
            .limit(PER_PASS)
        )
        waiting = list(uow.session.scalars(stmt))
    inflight: set[str] = ctx.shared.setdefault("cognitive_core.llm_inflight", set())
    lock: Lock = ctx.shared.setdefault("cognitive_core.llm_lock", Lock())
    handed = 0
    for fact_id in waiting:
        with lock:
            if fact_id in inflight:
                continue
            inflight.add(fact_id)
        try:
            ctx.classifier.submit(_ask_about, ctx, fact_id)
        except RuntimeError:  # the pool is shutting down with the process: the row waits for the next one
            with lock:
                inflight.discard(fact_id)
            break
        handed += 1
    return handed


def _free(uow: UnitOfWork, lease: timedelta) -> Any:
    return or_(InboxEntry.processed_at.is_(None), InboxEntry.processed_at < uow.now - lease)


def _ask_about(ctx: AppContext, fact_id: str) -> None:
    try:
        if _ask(ctx, fact_id):
            ctx.signal_recorded()  # this process's processor takes the proposal now
            wake(ctx)  # or any replica's
    finally:
        with ctx.shared["cognitive_core.llm_lock"]:
            ctx.shared["cognitive_core.llm_inflight"].discard(fact_id)


def _ask(ctx: AppContext, fact_id: str) -> bool:
    """Take the row, ask the LLM (no transaction open), record its answer; False if another replica had it."""
    cache = people_cache(ctx)
    cache.refresh(ctx)
    with ctx.uow(actor="cognitive_core") as uow:
        taken = uow.session.execute(
            update(InboxEntry)
            .where(InboxEntry.fact_id == fact_id, InboxEntry.state == LLM_PENDING, _free(uow, _lease(ctx)))
            .values(processed_at=uow.now)
        ).rowcount
        if not taken:
            return False
        message = facts.get(uow, fact_id=fact_id)
        content = dict(message.content)
        answer: Answer | None = None
        if uow.now - message.timestamp > MAX_AGE:
            answer = Answer("expired")
        elif not _take_slot(uow, fact_id):
            answer = Answer("budget_exhausted")
        people = cache.people(uow)  # a directory changed meanwhile: rolled back, taken again next pass
        sender = next((p for p in people if p.person_id == content.get("person_id")), None)
        local_now = uow.now.astimezone(_tz(sender.timezone if sender else None, uow.tz))
    if answer is None:
        text = content.get("text", "")
        text = strip_bot_mention(text) if content.get("mentions_bot") else text.strip()
        names = [f"{p.person_id}: {', '.join((p.display_name, *p.aliases))}" for p in people]
        answer = ctx.classifier.propose(text, people=names, now=local_now.isoformat(timespec="minutes"))
    if answer.status != "ok":
        log.info("llm gave no proposal for %s: %s", fact_id, answer.status)
    with ctx.uow(actor="cognitive_core") as uow:
        _record(uow, fact_id, content, answer)
    return True


def _record(uow: UnitOfWork, fact_id: str, content: dict[str, Any], answer: Answer) -> None:
    """The answer as an `llm_proposal` signal (once per message), and the message's row done."""
    perception.queue_internal(
        uow,
        "llm_proposal",
        {
            "message_fact_id": fact_id,
            "person_id": content.get("person_id"),
            "channel": content.get("channel"),
            "chat_id": content.get("chat_id"),
            "chat_type": content.get("chat_type", "p2p"),
            "text": content.get("text", ""),
            "status": answer.status,
            "raw": answer.raw,
            "proposal": answer.data,
        },
        person_id=content.get("person_id"),
        dedup_key=f"llm_proposal:{fact_id}",
        source="cognitive_core",
    )
    uow.session.execute(
        update(InboxEntry)
        .where(InboxEntry.fact_id == fact_id, InboxEntry.state == LLM_PENDING)
        .values(state="done", processed_at=uow.now)
    )


def _take_slot(uow: UnitOfWork, fact_id: str) -> bool:
    """One call of today's budget, or False when it is spent (a lost race for a slot tries the next one)."""
    budget = uow.settings.llm_daily_budget
    local = uow.now.astimezone(uow.tz)
    day = local.date().isoformat()
    start = datetime.combine(local.date(), datetime.min.time(), tzinfo=uow.tz)
    prefix = f"llm:call:{day}:"
    for _ in range(3):
        used = uow.session.scalar(
            select(func.count())
            .select_from(Fact)
            .where(Fact.fact_type == "system", Fact.timestamp >= start, Fact.dedup_key.like(f"{prefix}%"))
        )
        if used >= budget:
            return False
        _, created = facts.append(
            uow,
            fact_type="system",
            source="cognitive_core",
            content={"event": "llm_call", "fact_id": fact_id, "day": day, "n": used + 1, "budget": budget},
            causation_id=fact_id,
            dedup_key=f"{prefix}{used + 1}",
        )
        if created:
            return True
    return False


def _tz(name: str | None, default: ZoneInfo) -> ZoneInfo:
    try:
        return ZoneInfo(name) if name else default
    except (KeyError, ValueError):
        return default
