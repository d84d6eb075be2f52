"""Drain the action outbox: claim an entry, execute its action, apply the result exactly once.

An entry has exactly one owner at a time: a drainer claims it with a lease (`claimed_by`, `available_at`).
A drainer that meets an action still pending under someone else leaves the entry alone; `pending` is never
a failure. A send the service's own pacing deferred goes back to the queue until its slot. Whoever closes
the entry (`open` → `done`) applies the result, so a result is applied once even if a lease ran out.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from action import service as actions
from action.models import ActionRecord, ActionRequest, Deferred, InFlight, Outcome
from concern import bundles, queue, receipts, service
from concern.kinds import away, digest
from concern.models import ACTIVE_STATES, OutboxEntry
from concern.outbox import results
from concern.queue import Purpose
from fact import service as facts
from kernel.context import AppContext, UnitOfWork
from kernel.redaction import error_text
from person.calendar import with_calendar

log = logging.getLogger("deputy.concern.outbox")
LEASE = queue.LEASE


def owner_token() -> str:
    """A name for one drainer: host, process and a random part."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _guard(entry: OutboxEntry):
    def check(uow: UnitOfWork) -> str | None:
        c = service.get(uow, concern_id=entry.concern_id, lock=True)
        if c is None or c.version != entry.concern_version or c.state not in ACTIVE_STATES:
            return f"superseded: concern {entry.concern_id} changed since the action was decided"
        if entry.purpose == Purpose.bundle:  # its other loops too: none of them is asked once it moved on
            return bundles.unchanged(uow, concern_ids=entry.request.get("concerns", [])[1:])
        return None

    return check


CLAIM_BATCH = 8  # entries claimed per transaction: a few, so other drainers still share a burst
LANES = 4  # a batch's entries for different people sent side by side (their channels' round trips overlap)


def drain(ctx: AppContext, *, limit: int = 200) -> int:
    """Claim and run available entries (and the ones their results queue) until none is left or the process
    stops; returns how many ran."""
    owner, ran = owner_token(), 0
    while ran < limit and not ctx.stopping.is_set():  # stopping: the sends in flight end, nothing new starts
        wanted, queued = min(CLAIM_BATCH, limit - ran), queue.enqueued()
        batch = with_calendar(ctx, partial(_claim, ctx, owner, wanted))  # holding may read a calendar: outside
        # Held entries wait for their person's return, or their digest: they count as taken care of.
        left = _run_lanes(ctx, lanes([entry for entry, held in batch if not held]))
        ran += len(batch) - len(left)
        if left:  # the process is stopping: what did not start goes back now, not when its lease ends
            _give_back(ctx, left)
            return ran
        # Nothing else was available, and what ran queued nothing (an answer's acknowledgement, the next step):
        # no claim that would find nothing.
        if len(batch) < wanted and queue.enqueued() == queued:
            break
    return ran


def lanes(entries: list[OutboxEntry]) -> list[list[OutboxEntry]]:
    """The entries grouped by whom they reach, each group in claim order: entries that share a person or a chat go
    out one at a time and in order; the others side by side."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    reaches = [_reaches(entry) for entry in entries]
    for first, *rest in reaches:
        for key in rest:
            parent[root(key)] = root(first)
    grouped: dict[str, list[OutboxEntry]] = {}
    for entry, keys in zip(entries, reaches, strict=True):
        grouped.setdefault(root(keys[0]), []).append(entry)
    return list(grouped.values())


def _reaches(entry: OutboxEntry) -> list[str]:
    """Whom an entry's message reaches: its person, the chat it is sent to; or only itself (an internal action)."""
    person = entry.request.get("target_person_id")
    chat = (entry.request.get("destination") or {}).get("chat_id")
    keys = ([f"person:{person}"] if person else []) + ([f"chat:{chat}"] if chat else [])
    return keys or [f"entry:{entry.request_key}"]


def _run_lanes(ctx: AppContext, groups: list[list[OutboxEntry]]) -> list[OutboxEntry]:
    """Run each lane in order (several at once when there are several); the entries not started (stopping)."""
    if len(groups) <= 1:  # one person's entries (the usual single reply): no hand-off to another thread
        return [entry for group in groups for entry in _run_lane(ctx, group)]
    pool = ctx.shared.get("concern.outbox.lanes")
    if pool is None:
        pool = ctx.shared.setdefault("concern.outbox.lanes", ThreadPoolExecutor(LANES, "deputy-outbox-lane"))
    futures = [pool.submit(_run_lane, ctx, group) for group in groups]
    return [entry for future in futures for entry in future.result()]


def _run_lane(ctx: AppContext, entries: list[OutboxEntry]) -> list[OutboxEntry]:
    for n, entry in enumerate(entries):
        if ctx.stopping.is_set():
            return entries[n:]
        try:
            run(ctx, entry)
        except Exception as exc:  # one broken entry must not block the queue
            log.exception("outbox entry %s failed", entry.request_key)
            _set_aside(ctx, entry, exc)
    return []


def _claim(ctx: AppContext, owner: str, count: int) -> list[tuple[OutboxEntry, bool]]:
    """Claim up to `count` entries, oldest first; True beside one that is held instead (its person away, or
    their digest)."""
    with ctx.uow(actor="concern") as uow:
        entries = queue.claim_many(uow, owner=owner, lease=LEASE, limit=count)
        return [
            (entry, away.hold_entry(uow, entry) or away.hold(uow, entry) or digest.hold(uow, entry))
            for entry in entries
        ]


def _give_back(ctx: AppContext, entries: list[OutboxEntry]) -> None:
    """Entries claimed but not run (the process is stopping): available again at once."""
    with ctx.uow(actor="concern") as uow:
        for entry in entries:
            queue.release(uow, entry_id=entry.id, available_at=uow.now)


def run_owned(ctx: AppContext, *, request_key: str) -> Outcome | None:
    """Run an entry the caller queued already claimed (so no drainer took it meanwhile); None when there is none,
    or it waits for its person's return (an operator's notification to someone away: its action says held)."""
    with ctx.uow(actor="concern") as uow:
        entry = queue.open_entry(uow, request_key=request_key)
        held = entry is not None and away.hold(uow, entry)
    return run(ctx, entry) if entry is not None and not held else None


def _set_aside(ctx: AppContext, entry: OutboxEntry, exc: Exception) -> None:
    """Close a failing entry as `failed` with a system fact saying why."""
    with ctx.uow(actor="concern") as uow:
        if queue.close_entry(uow, entry_id=entry.id, state="failed", action_id=None):
            facts.append(
                uow,
                fact_type="system",
                source="concern",
                causation_id=entry.request["decision_ref"],
                content={
                    "event": "outbox_entry_failed",
                    "request_key": entry.request_key,
                    "purpose": entry.purpose,
                    "error": type(exc).__name__,
                    "message": error_text(exc),
                },
            )


def run(ctx: AppContext, entry: OutboxEntry) -> Outcome:
    """Execute one claimed entry (idempotent by request_key) and apply its result exactly once."""
    request = ActionRequest.model_validate(entry.request)
    guard = _guard(entry) if entry.purpose in results.VERSIONED and entry.concern_id else None
    state = (
        (lambda uow: service.state_of(uow, concern_id=entry.concern_id))
        if request.action_type == "send_message" and entry.concern_id
        else None
    )
    applied: list[bool] = []

    def apply_in_finalising(uow: UnitOfWork, record: ActionRecord) -> None:
        # The entry closes in the send's own outcome transaction; a savepoint keeps a failing handler from undoing
        # the outcome: then the entry is applied once more on its own below (and set aside if it fails again).
        try:
            with uow.session.begin_nested():
                _close(uow, entry, request, record)
            applied.append(True)
        except Exception:
            log.exception("outbox entry %s: result not applied with its outcome", entry.request_key)

    def keep_urgent(uow: UnitOfWork) -> bool:  # read since the follow-up was decided: it goes plain, never urgent
        return entry.concern_id is not None and receipts.still_unread(uow, concern_id=entry.concern_id)

    outcome = actions.execute_guarded(
        ctx,
        request=request,
        guard=guard,
        actor="concern",
        concern_state=state,
        on_finished=apply_in_finalising,
        keep_urgent=keep_urgent if request.urgent else None,
    )
    if isinstance(outcome, InFlight):  # someone else's send: its owner applies the result
        return outcome
    if isinstance(outcome, Deferred):  # our own pacing: back to the queue until the slot
        with ctx.uow(actor="concern") as uow:
            queue.release(uow, entry_id=entry.id, available_at=outcome.until)
        return outcome
    if not applied:
        with ctx.uow(actor="concern") as uow:
            _close(uow, entry, request, outcome if isinstance(outcome, ActionRecord) else None)
    return outcome


def _close(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord | None) -> None:
    """Close the entry (done, or superseded without a record) and apply its result: exactly once, by the closer."""
    state = "done" if record else "superseded"
    if not queue.close_entry(uow, entry_id=entry.id, state=state, action_id=record.action_id if record else None):
        return
    if record:
        results.apply(uow, entry, request, record)
    elif entry.purpose == Purpose.bundle:  # its loops' timers were cleared for it: each fires again on its own
        bundles.superseded(uow, concern_ids=request.concerns)
