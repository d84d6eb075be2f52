"""The core's inbox: recorded signals processed in order, a batch per transaction, with the people kept per process.

Each signal: read the situation, `rules.decide`, record the decision fact, apply it (`flows.apply`). A batch that
fails is rolled back and its signals run one by one, so only the failing one is set aside.
"""

from __future__ import annotations

import logging

from sqlalchemy import Integer, bindparam, select

from cognitive_core import inbox_order, phrasings, rules
from cognitive_core.flows import apply
from cognitive_core.llm import proposals
from cognitive_core.llm import rules as llm_rules
from cognitive_core.people import people_cache
from cognitive_core.presses import door as presses
from cognitive_core.signals import routing as signals
from concern import reads
from concern.commands import dump
from fact import decisions
from fact import service as facts
from fact.decisions import DecisionKind
from fact.models import Fact
from kernel.context import AppContext, UnitOfWork
from kernel.redaction import error_text
from perception.models import LLM_PENDING, InboxEntry
from person.cache import StaleDirectory
from person.calendar import CalendarNeeded, read_needed

log = logging.getLogger("deputy.core")


def situation_of(
    uow: UnitOfWork,
    content: dict,
    fact_id: str,
    people: tuple[rules.PersonView, ...],
    book: phrasings.Book | None = None,
) -> rules.Situation:
    """Everything `decide` needs about one message_received fact, given the current people."""
    sender = next((person for person in people if person.person_id == content.get("person_id")), None)
    principal = sender is not None and sender.role == "principal"
    learned, missed = phrasings.for_situation(uow, principal_id=sender.person_id, book=book) if principal else ((), ())
    loops = (
        reads.loops_of(uow, person_id=sender.person_id, principal=sender.role == "principal")
        if sender is not None
        else reads.Loops()
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
    return rules.Situation(
        signal=signal,
        sender=sender,
        people=people,
        waiting=tuple(rules.WaitingConcern(**w.__dict__) for w in loops.waiting),
        now=uow.now,
        awaiting_name=loops.awaiting_name,
        open_asks=tuple(rules.OpenAsk(*ask) for ask in loops.open_asks),
        phrasings=learned,
        missed=missed,
    )


# Signals processed in one transaction when several wait: one commit (one fsync on PostgreSQL, one turn of SQLite's
# write lock) for the lot. A batch that fails is rolled back whole and its signals processed one by one.
BATCH = 16
MAX_TURNS = 50  # batches of a pass that found a sender's earlier signal held by another processor, then retried


_PENDING = (
    select(InboxEntry, Fact)
    .outerjoin(Fact, Fact.pk == InboxEntry.fact_pk)
    .where(InboxEntry.state == "pending")
    .order_by(InboxEntry.fact_pk)
    .limit(bindparam("count", type_=Integer))
)
_CLAIM = {False: _PENDING, True: _PENDING.with_for_update(skip_locked=True, of=InboxEntry)}  # PostgreSQL: locked


def _claim(uow: UnitOfWork, count: int) -> tuple[list[InboxEntry], dict[str, Fact]]:
    """The oldest pending entries this transaction may take, with their facts (immutable) by id: one statement
    (built once); the entries are locked on PostgreSQL, never their facts (nobody writes a fact)."""
    rows = uow.session.execute(_CLAIM[uow.postgres], {"count": count}).all()
    return [entry for entry, _ in rows], {fact.fact_id: fact for _, fact in rows if fact is not None}


def process_pending(ctx: AppContext, *, limit: int = 200) -> int:
    """Process waiting signal facts in order, a batch per transaction (a crash re-processes only unfinished ones)."""
    cache = people_cache(ctx)
    cache.refresh(ctx)
    book = phrasings.book(ctx)
    llm = ctx.classifier is not None
    done, turns = 0, 0
    while done < limit:
        claimed: list[str] = []
        waiting = 0
        wanted, exhausted = min(BATCH, limit - done), False
        try:
            with ctx.uow(actor="cognitive_core") as uow:
                entries, recorded = _claim(uow, wanted)
                exhausted = len(entries) < wanted  # nothing else waits (that this replica may take)
                contents = {e.fact_pk: recorded[e.fact_id].content for e in entries if e.fact_id in recorded}
                entries, waiting = inbox_order.in_turn(uow, entries, contents)  # each sender's signals one at a time
                for entry in entries:
                    # A signal may change a person (a bind code, /quiet): the next one needs the new directory.
                    people = cache.people(uow) if not claimed else cache.current(uow)
                    if people is None:
                        break
                    claimed.append(entry.fact_id)
                    _process(uow, entry, people, llm, book, recorded.get(entry.fact_id))
        except StaleDirectory:
            cache.refresh(ctx)
            continue
        except CalendarNeeded as need:  # someone about to be asked: read their calendar outside, then redo the batch
            read_needed(ctx, need)
            continue
        except Exception as exc:  # a signal that cannot be processed must not block the ones after it
            if not claimed:
                raise
            if len(claimed) == 1:
                log.exception("signal %s could not be processed", claimed[0])
                _quarantine(ctx, claimed[0], exc)
            else:
                _process_each(ctx, claimed, llm=llm)
            done += len(claimed)
            continue
        done += len(claimed)
        if waiting and turns < MAX_TURNS:  # an earlier signal of theirs was being processed elsewhere: now it is not
            turns += 1
            continue
        if not claimed or (exhausted and len(claimed) == len(entries)):
            break
    return done


def _process_each(ctx: AppContext, fact_ids: list[str], *, llm: bool) -> None:
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
                    _process(uow, entry, cache.people(uow), llm, phrasings.book(ctx))
        except StaleDirectory:
            continue
        except CalendarNeeded as need:
            read_needed(ctx, need)
            continue
        except Exception as exc:
            log.exception("signal %s could not be processed", fact_id)
            _quarantine(ctx, fact_id, exc)
        pending.pop(0)


def _process(
    uow: UnitOfWork,
    entry: InboxEntry,
    people: tuple[rules.PersonView, ...],
    llm: bool = False,
    book: phrasings.Book | None = None,
    fact: Fact | None = None,
) -> None:
    fact = fact or facts.get(uow, fact_id=entry.fact_id)
    state = "done"
    if fact.fact_type == "message_received":
        situation = situation_of(uow, fact.content, fact.fact_id, people, book)
        decided = rules.decide(situation)
        # Not understood: answered now by the rules; the LLM is asked afterwards, off this transaction
        # (cognitive_core.llm_worker takes the row in this state), and its proposal comes back as a signal.
        asked = {"llm": "asked"} if llm and llm_rules.wants_llm(situation, decided) else {}
        for decision in decided:
            decision_id = decisions.record(
                uow,
                kind=decision.kind,
                rule=decision.rule,
                inputs=[fact.fact_id, *_concern_inputs(decision)],
                requested=[decision.params | {"kind": decision.kind.value} | asked],
                command=dump(decision.command),
                person_refs=fact.person_refs,
            )
            apply(
                uow, decision, decision_id=decision_id, situation=situation, fact_id=fact.fact_id, content=fact.content
            )
            if (lesson := decision.notes.get("taught")) is not None:  # a missed request worded again: remembered
                phrasings.learn(
                    uow,
                    principal_id=situation.sender.person_id,
                    lesson=lesson,
                    how="reword",
                    taught_by=fact.fact_id,
                    causation_id=decision_id,
                )
        state = LLM_PENDING if asked else state
    elif fact.fact_type == "button_pressed":
        presses.process(uow, fact, people)
    elif fact.fact_type == "llm_proposal":
        proposals.process(uow, fact, people)
    elif fact.fact_type == "external_signal":
        signals.process(uow, fact)
    else:
        decisions.record(
            uow,
            kind=DecisionKind.ignore,
            rule="external_signal:recorded_only",
            inputs=[fact.fact_id],
            person_refs=fact.person_refs,
        )
    entry.state, entry.processed_at = state, (uow.now if state == "done" else None)


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
                "message": error_text(exc),
            },
        )


def _concern_inputs(decision: rules.Decision) -> list[str]:
    concern_id = decision.params.get("concern_id")
    return [concern_id] if isinstance(concern_id, str) and concern_id else []
