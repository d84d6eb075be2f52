"""`/healthz` (liveness), `/readyz` (readiness) and `/metrics`.

Liveness answers 200 whenever the process serves, so a load balancer or kubelet never restarts or drops
every replica because a shared backend is away; the body says what is. Readiness is 503 only while the
database is unreachable or the process is still starting (migrations, the start-up pass): Redis is an
optimisation whose absence is reported, never fatal. Both probes bound the database check by
DEPUTY_PROBE_TIMEOUT and Redis by its client's timeout and breaker, so a hung backend cannot hang a probe.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.api.deps import Ctx
from kernel.context import AppContext
from kernel.metrics import PROCESS_REGISTRY

router = APIRouter(tags=["operations"])
log = logging.getLogger("deputy.health")


class DatabaseProbe:
    """Pings the database on a worker thread and waits at most `timeout`; a ping still hanging is awaited again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: Future[Any] | None = None

    @staticmethod
    def _ping(ctx: AppContext, future: Future[Any]) -> None:
        try:
            future.set_result(ctx.db.ping())
        except Exception as exc:
            future.set_exception(exc)

    def check(self, ctx: AppContext, timeout: float) -> str:
        """ "ok", "timeout" or "error"; never raises, never starts a second ping while one hangs."""
        with self._lock:
            if self._pending is None or self._pending.done():
                self._pending = Future()
                # A daemon thread: a ping hanging on a dead database must not hold up the process's exit.
                threading.Thread(
                    target=self._ping, args=(ctx, self._pending), name="deputy-db-probe", daemon=True
                ).start()
            pending = self._pending
        try:
            pending.result(timeout)
        except FutureTimeout:
            log.warning("database check timed out after %gs", timeout)
            return "timeout"
        except Exception as exc:  # the probe reports, never raises
            log.warning("database check failed: %s", type(exc).__name__)
            return "error"
        return "ok"


def _redis(ctx: AppContext) -> str:
    """ "disabled", "ok", "error" (it failed now) or "skipped" (its breaker is open: Redis is not even asked)."""
    if ctx.redis is None:
        return "disabled"
    breaker = getattr(ctx.redis, "breaker", None)
    if breaker is not None and breaker.is_open:
        return "skipped"
    try:
        ctx.redis.ping()
    except Exception as exc:
        log.debug("redis check failed: %s", type(exc).__name__)  # the breaker logs the outage once
        return "error"
    return "ok"


def _database(request: Request, ctx: AppContext) -> str:
    probe = request.app.state.db_probe
    return probe.check(ctx, ctx.settings.probe_timeout.total_seconds())


@router.get("/healthz")
def healthz(request: Request, ctx: Ctx) -> JSONResponse:
    """Liveness: 200 while the process serves, with what the database and Redis look like."""
    body = {"status": "ok", "db": _database(request, ctx), "redis": _redis(ctx)}
    if body["db"] != "ok" or body["redis"] not in ("ok", "disabled"):
        body["status"] = "degraded"
    return JSONResponse(body)


@router.get("/readyz")
def readyz(request: Request, ctx: Ctx) -> JSONResponse:
    """Readiness: 200 when the database answers in time, 503 when it does not, or while starting or stopping."""
    body = {"status": "ready", "db": _database(request, ctx), "redis": _redis(ctx)}
    if request.app.state.phase != "serving":
        body["status"] = request.app.state.phase  # starting: migrations and the start-up pass are not done yet
    elif body["db"] != "ok":
        body["status"] = "unavailable"
    elif ctx.db.writes.failing():  # SELECT 1 answers but writes are refused (a full disk): no traffic for now
        body["status"], body["db"] = "unavailable", "writes_failing"
    return JSONResponse(body, status_code=200 if body["status"] == "ready" else 503)


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Prometheus text exposition of this process's metrics."""
    body = generate_latest(request.app.state.metrics.registry) + generate_latest(PROCESS_REGISTRY)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
