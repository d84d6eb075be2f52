"""The durable timer loop: fire due concern timers, drain the outbox, finish interrupted work."""

from __future__ import annotations

import logging
import threading

from action.service import recover_interrupted
from kernel.context import AppContext
from kernel.wakeups import WAKE_CHANNEL
from cognitive_core.flows import process_pending
from concern import flows, outbox, service

log = logging.getLogger("deputy.scheduler")


def tick(ctx: AppContext, *, limit: int = 100) -> dict[str, int]:
    """One scheduler pass; safe to run from several replicas at once (due rows are claimed with SKIP LOCKED)."""
    processed = process_pending(ctx)
    fired = 0
    with ctx.uow(actor="scheduler") as uow:
        for concern in service.claim_due(uow, now=uow.now, limit=limit):
            flows.fire(uow, concern)
            fired += 1
    # Interrupted actions are finalised before draining, so their entries' results are applied in this pass.
    recovered = len(recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout))
    drained = outbox.drain(ctx)
    return {"signals_processed": processed, "timers_fired": fired, "actions_drained": drained, "actions_recovered": recovered}


def next_wake(ctx: AppContext) -> float | None:
    """Seconds until the earliest queued action becomes available (a paced send's slot), or None."""
    with ctx.reader() as uow:
        at = service.next_available(uow)
        return None if at is None else max(0.0, (at - uow.now).total_seconds())


class SchedulerThread:
    """Runs `tick` every DEPUTY_SCHEDULER_INTERVAL, and at once when another replica publishes a wake-up."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deputy-scheduler", daemon=True)
        self._listener = threading.Thread(target=self._listen, name="deputy-scheduler-wake", daemon=True)

    def start(self) -> None:
        """Start ticking (and listening for wake-ups when Redis is configured)."""
        self._thread.start()
        if self.ctx.redis is not None:
            self._listener.start()

    def stop(self, timeout: float = 10) -> None:
        """Ask the loops to end and wait for the current tick."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        if self._listener.is_alive():
            self._listener.join(timeout)

    def _run(self) -> None:
        interval = self.ctx.settings.scheduler_interval.total_seconds()
        while not self._stop.is_set():
            self._wake.wait(interval)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                tick(self.ctx)
                soon = next_wake(self.ctx)
                if soon is not None and soon < interval:  # a deferred send's slot comes before the next interval
                    threading.Timer(soon + 0.01, self._wake.set).start()
            except Exception:  # one failed pass must not end the loop
                log.exception("scheduler tick failed")

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                pubsub = self.ctx.redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(WAKE_CHANNEL)
                while not self._stop.is_set():
                    if pubsub.get_message(timeout=1.0) is not None:
                        self._wake.set()
                pubsub.close()
            except Exception as exc:  # Redis away: ticks still come from the interval
                log.warning("scheduler wake-up listener: %s", type(exc).__name__)
                self._stop.wait(5)
