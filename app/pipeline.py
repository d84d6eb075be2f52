"""The one owner of the pipeline: webhook events become signal facts → process signals → hand messages to the
optional LLM → finish interrupted actions → drain the outbox → fire timers → look up unread messages → briefs and
digests → drain what they queued.
The periodic part (sandbox loops, interrupted actions, timers to digests) runs in every pass the interval starts,
and in passes woken for new work at most every CHORES_EVERY; where it runs, the signals' replies go out before
the timers and briefs are looked at. A signal that finds the processor idle is taken at once; work that arrives
while a pass runs waits for wake-ups to pause (SETTLE, at most MAX_SETTLE) and is taken in batches.

One `Processor` per process runs these passes. Everything that has work for it only wakes it: a webhook or
signal endpoint after recording, the scheduler interval, a NOTIFY from another replica (PostgreSQL), a send's pacing
slot, the tick endpoint. With `DEPUTY_SCHEDULER_ENABLED=false` there is no thread: a wake-up runs the pass
in the waker's thread (the webhook's background task), unless a pass is running, which then goes round once
more; the tests rely on this mode.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from action.service import recover_interrupted
from app import plugins
from app.ingest import ingest
from app.receipts import ChannelReceipts
from cognitive_core.inbox import process_pending
from cognitive_core.language import classifier
from cognitive_core.llm import worker as llm_worker
from cognitive_core.reports import briefs, reviews
from concern import queue, receipts, sandbox, timers
from concern.kinds import digest
from concern.outbox import drain as outbox
from kernel.context import AppContext
from kernel.portion import Portion
from kernel.wakeups import Listener

log = logging.getLogger("deputy.pipeline")

SETTLE = 0.005  # seconds without a new wake-up before a pass starts
MAX_SETTLE = 0.1  # a steady stream still gets a pass this often
CHORES_EVERY = 1.0  # seconds: passes woken for signals do the periodic work at most this often


EVENTS_PER_PASS = 512
SIGNALS_PER_PASS = 200
ACTIONS_PER_PASS = 200


# The periodic part takes a few items of each kind per pass (each is a transaction of ~10 ms: a follow-up fired, a
# brief composed, a digest gathered) and the processor goes round at once while one was cut short: at 09:00, when
# every principal's brief and the night's held follow-ups come due together, a signal arriving meanwhile waits for
# a few of them, not for hundreds (200 briefs took 2.0 s in one pass on SQLite, 2.7 s on PostgreSQL).
TIMERS_PER_PASS = 10
BRIEFS_PER_PASS = 5  # briefs, and as many weekly reviews
DIGESTS_PER_PASS = 5


def tick(ctx: AppContext, *, chores: bool = True, interrupted: Callable[[], bool] | None = None) -> dict[str, int]:
    """One pass; safe to run from several replicas at once (inbox rows, due timers and entries are claimed).

    `chores=False` leaves out the periodic work (sandbox loops, timers, read look-ups, briefs and reviews, digests,
    interrupted actions): the processor's passes woken for signals do it at most every CHORES_EVERY, so a signal's
    reply does not wait behind it. In a pass that does it, the signals' replies are drained before it, and what it
    queued (a follow-up, a brief, a digest) after it. `interrupted` says new work is waiting: the periodic part then
    takes one item of each kind and leaves the rest to the next pass (`kernel.portion`).
    """
    if chores:  # trials from the console's sandbox end once a channel is live (a restart), before anything reads
        sandbox.close_if_live(ctx)
    ingested = ingest(ctx, webhooks=plugins.webhooks(ctx), limit=EVENTS_PER_PASS)  # webhook events → signal facts
    processed = process_pending(ctx, limit=SIGNALS_PER_PASS)
    llm_worker.dispatch(ctx)  # only hands them over: the calls run on the LLM's own pool, never in this pass
    # Interrupted actions are finalised before draining, so their entries' results are applied in this pass.
    recovered = len(recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout)) if chores else 0
    drained = outbox.drain(ctx, limit=ACTIONS_PER_PASS)
    done = dict.fromkeys(_CHORES, 0)
    if chores:
        queued = queue.enqueued()
        done = _chores(ctx, interrupted=interrupted or (lambda: False))
        if queue.enqueued() != queued:  # the periodic part queued sends: they go out in this pass too
            drained += outbox.drain(ctx, limit=ACTIONS_PER_PASS - drained)
    return {
        "events_ingested": ingested,
        "signals_processed": processed,
        **done,
        "actions_recovered": recovered,
        "actions_drained": drained,
        # A pass that stopped at a limit left work behind: the processor runs again at once, not at the interval.
        "more": int(
            ingested >= EVENTS_PER_PASS
            or processed >= SIGNALS_PER_PASS
            or drained >= ACTIONS_PER_PASS
            or done["chores_left"]
        ),
    }


_CHORES = ("timers_fired", "reads_found", "briefs_queued", "chores_left")


def _chores(ctx: AppContext, *, interrupted: Callable[[], bool]) -> dict[str, int]:
    """The periodic part of a pass after its drain: due timers, unread look-ups, briefs and reviews, digests."""
    portions = [Portion(n, interrupted) for n in (TIMERS_PER_PASS, BRIEFS_PER_PASS, BRIEFS_PER_PASS, DIGESTS_PER_PASS)]
    fired = timers.fire_due(ctx, portion=portions[0])
    # Unread latest messages due a lookup (read_users): a small batch, each message once per interval.
    read = receipts.poll(ctx, ChannelReceipts(ctx.channels), interval=ctx.settings.feishu_read_poll_interval)
    briefed = briefs.send_due(ctx, portion=portions[1]) + reviews.send_due(ctx, portion=portions[2])
    digest.send_due(ctx, portion=portions[3])  # held items whose digest moment came: one message per person
    return {
        "timers_fired": fired,
        "reads_found": read,
        "briefs_queued": briefed,  # queued here, sent by this pass's second drain
        "chores_left": int(any(p.cut for p in portions)),
    }


def start_up(ctx: AppContext) -> dict[str, int]:
    """What a process does first: actions a crash interrupted become failed (never re-sent), the inbox resumes."""
    return tick(ctx)


def next_wake(ctx: AppContext) -> float | None:
    """Seconds until the earliest queued action becomes available (a paced send's slot), or None."""
    with ctx.reader() as uow:
        at = queue.next_available(uow)
        return None if at is None else max(0.0, (at - uow.now).total_seconds())


class Processor:
    """Runs `tick` when woken or every DEPUTY_SCHEDULER_INTERVAL; one pass at a time in this process."""

    def __init__(self, ctx: AppContext, *, threaded: bool) -> None:
        self.ctx = ctx
        self.threaded = threaded
        self._pass = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._again = threading.Event()  # without a thread: a wake-up arrived while a pass was running
        self._chores_at = float("-inf")  # when a pass last did the periodic work (monotonic)
        self._chores_left = False  # that pass stopped at a limit of it: the next pass does the rest, woken or not
        self._thread = threading.Thread(target=self._run, name="deputy-processor", daemon=True)
        # Other replicas' wake-ups (PostgreSQL's NOTIFY); on SQLite this host's socket is the only way in.
        self._listener = None if ctx.db.is_sqlite else Listener(ctx.db, self.wake)

    def wake(self, _: Any = None) -> None:
        """There is work: the thread takes it at once; without a thread, run the pass here, unless one is running.

        Wake-ups coalesce in both modes: a waker that finds a pass running only marks that there is more, and
        the running pass goes round once more, so a burst of webhooks never queues a pass per request.
        """
        if self.threaded:
            self._wake.set()
            return
        self._again.set()
        while self._again.is_set():
            if not self._pass.acquire(blocking=False):
                return  # the pass running now sees the mark when it ends, and runs again
            try:
                self._again.clear()
                more = tick(self.ctx, interrupted=self._again.is_set)["more"]
            finally:
                self._pass.release()
            if more:
                self._again.set()

    def run_now(self, *, chores: bool = True) -> dict[str, int]:
        """Run one pass in the caller's thread (after any pass already running here)."""
        with self._pass:
            self._again.clear()
            waiting = self._wake.is_set if self.threaded else self._again.is_set
            result = tick(self.ctx, chores=chores, interrupted=waiting)
            if chores:
                self._chores_at, self._chores_left = time.monotonic(), bool(result["chores_left"])
        # What the pass left (a limit reached) or what woke it meanwhile is taken at once: by the thread, or without
        # one here, pass after pass (the tick endpoint's caller, a cron, gets every due timer fired, not ten).
        if result["more"] or (self._again.is_set() and not self.threaded):
            self.wake()
        return result

    def start(self) -> None:
        """Start the thread (and, on PostgreSQL, the listener for other replicas' wake-ups)."""
        if not self.threaded:
            return
        classifier.warm()  # this process decides: its intent model is trained before the first message needs it
        self._thread.start()
        if self._listener is not None:
            self._listener.start()

    def stop(self, timeout: float = 10) -> None:
        """Ask the loops to end and wait for the current pass."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._listener is not None:
            self._listener.stop(timeout)

    def _settle(self) -> None:
        """Woken during a stream: wait until wake-ups pause (at most MAX_SETTLE), then take the lot in batches.

        The webhooks' short writes go first instead of sharing the interpreter and the write lock with a pass
        per signal. Only work that arrived while a pass ran settles: a signal that finds the processor idle is
        taken at once.
        """
        deadline = time.monotonic() + MAX_SETTLE
        while not self._stop.is_set() and (left := deadline - time.monotonic()) > 0:
            self._wake.clear()
            if not self._wake.wait(min(SETTLE, left)):
                return

    def _run(self) -> None:
        interval = self.ctx.settings.scheduler_interval.total_seconds()
        while not self._stop.is_set():
            streaming = self._wake.is_set()  # woken while the last pass ran: a burst (or a pass's leftovers)
            woken = self._wake.wait(interval)
            if woken and streaming:
                self._settle()
            self._wake.clear()
            if self._stop.is_set():
                break
            # Woken for work: the periodic part only if it is due; at the interval, always.
            chores = not woken or self._chores_left or time.monotonic() - self._chores_at >= CHORES_EVERY
            try:
                result = self.run_now(chores=chores)
                if result["more"]:
                    self._wake.set()
                    continue
                soon = next_wake(self.ctx)
                if soon is not None and soon < interval:  # a deferred send's slot comes before the next interval
                    threading.Timer(soon + 0.01, self._wake.set).start()
            except Exception:  # one failed pass must not end the loop
                log.exception("pipeline pass failed")
