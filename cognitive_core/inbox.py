"""The core's inbox: recorded signals processed in order, a batch per transaction, with the people kept per process.

Each signal: read the situation, `rules.decide`, record the decision fact, apply it (`flows.apply`). A batch that
fails is rolled back and its signals run one by one, so only the failing one is set aside.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from sqlalchemy import select

from action.ledger import contact_times
from cognitive_core import presses, rules
from cognitive_core.flows import apply
from concern import press_flows
from concern import service as concern_service
from fact import decisions
from fact import service as facts
from fact.decisions import DecisionKind
from kernel.context import AppContext, UnitOfWork
from perception.models import InboxEntry
from person.cache import DirectoryEntry, PeopleCache, StaleDirectory, cache_of

log = logging.getLogger("deputy.core")


def _view(entry: DirectoryEntry) -> rules.PersonView:
    return rules.PersonView(
        person_id=entry.person_id,
        display_name=entry.display_name,
        role=entry.role,
        locale=entry.locale,
        aliases=entry.aliases,
        manager_id=entry.manager_id,
        external_ids=entry.external_ids,
        timezone=entry.timezone,
    )


def people_cache(ctx: AppContext) -> PeopleCache[rules.PersonView]:
    """The people as the rules see them, kept per process and reloaded after a person changes."""
    return cache_of(ctx, "cognitive_core.people", _view)


def situation_of(uow: UnitOfWork, content: dict, fact_id: str, people: tuple[rules.PersonView, ...]) -> rules.Situation:
    """Everything `decide` needs about one message_received fact, given the current people."""
    sender = next((person for person in people if person.person_id == content.get("person_id")), None)
    waiting = []
    if sender is not None:
        for c in concern_service.waiting_on(uow, person_id=sender.person_id):
            _, last = contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
            if last is None:  # a question still held back has not reached them: nothing they say answers it
                continue
            waiting.append(
                rules.WaitingConcern(
                    c.concern_id, c.originator_id, c.question, tuple(c.message_refs), last, kind=c.kind
                )
            )
        for c in concern_service.escalated_to(uow, person_id=sender.person_id):  # their answer resolves the escalation
            waiting.append(
                rules.WaitingConcern(
                    c.concern_id, c.originator_id, c.question, tuple(c.message_refs), c.escalated_at, role="escalation"
                )
            )
    reply_to = content.get("reply_to_message_id")
    signal = rules.SignalView(
        fact_id=fact_id,
        channel=content["channel"],
        text=content.get("text", ""),
        chat_type=content.get("chat_type", "p2p"),
        mentions_bot=bool(content.get("mentions_bot")),
        mentions=tuple((m.get("external_user_id"), m.get("name", "")) for m in content.get("mentions", [])),
        reply_to=f"{content['channel']}:{reply_to}" if reply_to else None,
        media_kind=(content.get("media") or {}).get("kind"),
        chat_id=content.get("chat_id"),
    )
    awaiting = ()
    if sender is not None and sender.role == "principal":
        awaiting = tuple((c.concern_id, c.question) for c in press_flows.awaiting_name(uow, person_id=sender.person_id))
    return rules.Situation(
        signal=signal, sender=sender, people=people, waiting=tuple(waiting), now=uow.now, awaiting_name=awaiting
    )


def _with_rewrite(
    situation: rules.Situation, decided: list[rules.Decision], command: str | None
) -> list[rules.Decision]:
    """Decide again on the classifier's command, if it gave one for free text the rules only answered with help."""
    if command is None or [decision.rule for decision in decided] != ["fallback_help"]:
        return decided
    rewritten = rules.decide(
        replace(situation, signal=replace(situation.signal, text=command, mentions_bot=False, chat_type="p2p"))
    )
    return [
        replace(decision, rule=f"llm:{decision.rule}", params={**decision.params, "llm_command": command})
        for decision in rewritten
    ]


def _llm_hint(ctx: AppContext, cache: PeopleCache[rules.PersonView]) -> dict[str, str | None]:
    """Ask the optional classifier about the next pending signal before any write lock (it is a network call)."""
    if ctx.classifier is None:
        return {}
    with ctx.reader() as uow:
        entry = uow.session.scalars(
            select(InboxEntry).where(InboxEntry.state == "pending").order_by(InboxEntry.fact_pk).limit(1)
        ).first()
        fact = facts.get(uow, fact_id=entry.fact_id) if entry else None
        if fact is None or fact.fact_type != "message_received":
            return {}
        try:
            situation = situation_of(uow, fact.content, fact.fact_id, cache.people(uow))
        except StaleDirectory:  # the write transaction will find out and refresh; no hint this time
            return {}
    if situation.sender is None or [decision.rule for decision in rules.decide(situation)] != ["fallback_help"]:
        return {}
    people = [f"{person.person_id}: {person.display_name}, {', '.join(person.aliases)}" for person in situation.people]
    return {fact.fact_id: ctx.classifier.rewrite(situation.signal.text, people=people)}


# Signals processed in one transaction when several wait: one commit (one fsync on PostgreSQL, one turn of SQLite's
# write lock) for the lot. A batch that fails is rolled back whole and its signals processed one by one.
BATCH = 16


def _claim(uow: UnitOfWork, count: int) -> list[InboxEntry]:
    stmt = select(InboxEntry).where(InboxEntry.state == "pending").order_by(InboxEntry.fact_pk).limit(count)
    if uow.postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    return list(uow.session.scalars(stmt))


def process_pending(ctx: AppContext, *, limit: int = 200) -> int:
    """Process waiting signal facts in order, a batch per transaction (a crash re-processes only unfinished ones)."""
    cache = people_cache(ctx)
    cache.refresh(ctx)
    size = 1 if ctx.classifier is not None else BATCH  # the classifier's hint is for one signal at a time
    done = 0
    while done < limit:
        hints = _llm_hint(ctx, cache)
        claimed: list[str] = []
        wanted, exhausted = min(size, limit - done), False
        try:
            with ctx.uow(actor="cognitive_core") as uow:
                entries = _claim(uow, wanted)
                exhausted = len(entries) < wanted  # nothing else waits (that this replica may take)
                for entry in entries:
                    # A signal may change a person (a bind code, /quiet): the next one needs the new directory.
                    people = cache.people(uow) if not claimed else cache.current(uow)
                    if people is None:
                        break
                    claimed.append(entry.fact_id)
                    _process(uow, entry, hints, people)
        except StaleDirectory:
            cache.refresh(ctx)
            continue
        except Exception as exc:  # a signal that cannot be processed must not block the ones after it
            if not claimed:
                raise
            if len(claimed) == 1:
                log.exception("signal %s could not be processed", claimed[0])
                _quarantine(ctx, claimed[0], exc)
            else:
                _process_each(ctx, claimed, hints)
            done += len(claimed)
            continue
        done += len(claimed)
        if not claimed or (exhausted and len(claimed) == len(entries)):
            break
    return done


def _process_each(ctx: AppContext, fact_ids: list[str], hints: dict[str, str | None]) -> None:
    """After a failed batch: each of its signals in a transaction of its own, the failing one set aside."""
    cache = people_cache(ctx)
    pending = list(fact_ids)
    while pending:
        cache.refresh(ctx)
        fact_id = pending[0]
        try:
            with ctx.uow(actor="cognitive_core") as uow:
                stmt = select(InboxEntry).where(InboxEntry.fact_id == fact_id, InboxEntry.state == "pending")
                entry = uow.session.scalars(stmt.with_for_update(skip_locked=True) if uow.postgres else stmt).first()
                if entry is not None:
                    _process(uow, entry, hints, cache.people(uow))
        except StaleDirectory:
            continue
        except Exception as exc:
            log.exception("signal %s could not be processed", fact_id)
            _quarantine(ctx, fact_id, exc)
        pending.pop(0)


def _process(
    uow: UnitOfWork, entry: InboxEntry, hints: dict[str, str | None], people: tuple[rules.PersonView, ...]
) -> None:
    fact = facts.get(uow, fact_id=entry.fact_id)
    if fact.fact_type == "message_received":
        situation = situation_of(uow, fact.content, fact.fact_id, people)
        for decision in _with_rewrite(situation, rules.decide(situation), hints.get(fact.fact_id)):
            decision_id = decisions.record(
                uow,
                kind=decision.kind,
                rule=decision.rule,
                inputs=[fact.fact_id, *_concern_inputs(decision)],
                requested=[decision.params | {"kind": decision.kind.value}],
                person_refs=fact.person_refs,
            )
            apply(
                uow, decision, decision_id=decision_id, situation=situation, fact_id=fact.fact_id, content=fact.content
            )
    elif fact.fact_type == "button_pressed":
        presses.process(uow, fact)
    else:
        decisions.record(
            uow,
            kind=DecisionKind.ignore,
            rule="external_signal:recorded_only",
            inputs=[fact.fact_id],
            person_refs=fact.person_refs,
        )
    entry.state, entry.processed_at = "done", uow.now


def _quarantine(ctx: AppContext, fact_id: str, exc: Exception) -> None:
    """Set a failing signal aside (state failed) with a system fact saying why."""
    with ctx.uow(actor="cognitive_core") as uow:
        entry = uow.session.scalars(
            select(InboxEntry).where(InboxEntry.fact_id == fact_id, InboxEntry.state == "pending")
        ).first()
        if entry is None:
            return
        entry.state, entry.processed_at = "failed", uow.now
        facts.append(
            uow,
            fact_type="system",
            source="cognitive_core",
            causation_id=fact_id,
            content={
                "event": "signal_processing_failed",
                "fact_id": fact_id,
                "error": type(exc).__name__,
                "message": str(exc)[:500],
            },
        )


def _concern_inputs(decision: rules.Decision) -> list[str]:
    concern_id = decision.params.get("concern_id")
    return [concern_id] if concern_id else []
