"""Prometheus metrics: HTTP metrics per app instance (tests build many apps), domain metrics per process, and
gauges read from the database at scrape time (so every replica reports the same, correct numbers)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from concern import metrics as concern_metrics
from concern.models import KINDS
from concern.rules import TRANSITIONS
from kernel.context import AppContext
from perception import metrics as perception_metrics

log = logging.getLogger("deputy.metrics")
GAUGE_TTL_SECONDS = 5.0  # a scrape every few seconds from several Prometheus servers costs one set of queries
# The `kind` label is the concerns.kind column (question, commitment, reminder): every kind is always reported
# for every state, 0 included, so a dashboard's series exist before the first loop of a kind does.


class Metrics:
    """HTTP request counters and latencies, and (with a context) the database gauges."""

    def __init__(self, ctx: AppContext | None = None) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "deputy_http_requests_total", "HTTP requests", ["method", "route", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "deputy_http_request_seconds", "HTTP request latency", ["method", "route"], registry=self.registry
        )
        if ctx is not None:
            self.registry.register(DatabaseGauges(ctx))


class DatabaseGauges(Collector):
    """Loops by state and kind, stuck loops, inbox and outbox backlogs: one read of the database, cached briefly."""

    def __init__(
        self, ctx: AppContext, *, ttl: float = GAUGE_TTL_SECONDS, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.ctx, self.ttl, self.monotonic = ctx, ttl, monotonic
        self._lock = threading.Lock()
        self._read_at: float | None = None
        self._families: list[Metric] = []
        self._failing = False

    def describe(self) -> list[Metric]:
        """Nothing up front: registering must not query the database."""
        return []

    def collect(self) -> Iterator[Metric]:
        """The cached families, read again when older than the TTL; none while the database does not answer."""
        with self._lock:
            if self._read_at is None or self.monotonic() - self._read_at >= self.ttl:
                self._families = self._read()
                self._read_at = self.monotonic()
            families = list(self._families)
        yield from families

    def _read(self) -> list[Metric]:
        try:
            with self.ctx.reader() as uow:
                by_state = concern_metrics.count_by_state_and_kind(uow)
                stuck = len(concern_metrics.stuck(uow))
                outbox = concern_metrics.outbox_backlog(uow)
                inbox = perception_metrics.inbox_backlog(uow, self.ctx.db)
                now = uow.now
        except Exception as exc:  # a scrape reports what it can; /readyz is the probe that says the database is gone
            if not self._failing:
                log.warning("database gauges unavailable: %s", type(exc).__name__)
            self._failing = True
            return []
        if self._failing:
            log.info("database gauges available again")
        self._failing = False
        return [
            _concerns(by_state),
            _gauge("deputy_stuck_concerns", "Active concerns with neither a timer, a held delivery nor a queued send "
                   "(must be 0)", stuck),
            _gauge("deputy_outbox_backlog", "Queued actions (outbox entries) not yet done", outbox.pending),
            _gauge("deputy_outbox_backlog_age_seconds", "Seconds since the oldest queued action became available to "
                   "a drainer (0 when none waits)", outbox.age(now)),
            _gauge("deputy_inbox_backlog", "Signals received (webhook events included) not yet processed by the core",
                   inbox.pending),
            _gauge("deputy_inbox_backlog_age_seconds", "Seconds since the oldest unprocessed signal was received "
                   "(0 when none waits)", inbox.age(now)),
        ]  # fmt: skip


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _concerns(by_state: dict[tuple[str, str], int]) -> GaugeMetricFamily:
    """Every state for every kind seen (0 when none), so a series never vanishes when its last loop moves on."""
    family = GaugeMetricFamily("deputy_concerns", "Concerns by state and kind", labels=["state", "kind"])
    kinds = sorted({kind for _, kind in by_state} | set(KINDS))
    for state in TRANSITIONS:
        for kind in kinds:
            family.add_metric([state, kind], by_state.get((state, kind), 0))
    return family


class MetricsMiddleware:
    """Count and time every HTTP request by route template (not raw path: bounded labels)."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = {"code": 500}
        start = time.perf_counter()

        async def capture(message: dict) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.requests.labels(scope["method"], route, str(status["code"])).inc()
            self.metrics.latency.labels(scope["method"], route).observe(time.perf_counter() - start)
