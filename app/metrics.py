"""Prometheus metrics: HTTP metrics per app instance (tests build many apps), domain metrics per process."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram


class Metrics:
    """HTTP request counters and latencies."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "deputy_http_requests_total", "HTTP requests", ["method", "route", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "deputy_http_request_seconds", "HTTP request latency", ["method", "route"], registry=self.registry
        )


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
