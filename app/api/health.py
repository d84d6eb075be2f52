"""`/healthz` and `/metrics`."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.api.deps import Ctx
from kernel.metrics import PROCESS_REGISTRY

router = APIRouter(tags=["operations"])
log = logging.getLogger("deputy.health")


@router.get("/healthz")
def healthz(ctx: Ctx) -> JSONResponse:
    """Liveness and dependencies: 200 when all configured backends answer, else 503."""
    body = {"status": "ok", "db": "ok", "redis": "disabled"}
    try:
        ctx.db.ping()
    except Exception as exc:  # the probe reports, never raises
        log.warning("database check failed: %s", type(exc).__name__)
        body["db"] = "error"
    if ctx.redis is not None:
        try:
            ctx.redis.ping()
            body["redis"] = "ok"
        except Exception as exc:
            log.warning("redis check failed: %s", type(exc).__name__)
            body["redis"] = "error"
    healthy = body["db"] == "ok" and body["redis"] in ("ok", "disabled")
    if not healthy:
        body["status"] = "degraded"
    return JSONResponse(body, status_code=200 if healthy else 503)


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Prometheus text exposition of this process's metrics."""
    body = generate_latest(request.app.state.metrics.registry) + generate_latest(PROCESS_REGISTRY)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
