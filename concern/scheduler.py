"""The durable timer loop: fire due concern timers, drain the outbox, finish interrupted work."""

from __future__ import annotations

import logging
import threading

from action.service import recover_interrupted
from app.context import AppContext
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
    drained = outbox.drain(ctx)
    recovered = len(recover_interrupted(ctx, older_than=ctx.settings.action_pending_timeout))
    return {"signals_processed": processed, "timers_fired": fired, "actions_drained": drained, "actions_recovered": recovered}


class SchedulerThread:
    """Runs `tick` every DEPUTY_SCHEDULER_INTERVAL in a daemon thread until stopped."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deputy-scheduler", daemon=True)

    def start(self) -> None:
        """Start ticking."""
        self._thread.start()

    def stop(self, timeout: float = 10) -> None:
        """Ask the loop to end and wait for the current tick."""
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        interval = self.ctx.settings.scheduler_interval.total_seconds()
        while not self._stop.wait(interval):
            try:
                tick(self.ctx)
            except Exception:  # one failed pass must not end the loop
                log.exception("scheduler tick failed")
