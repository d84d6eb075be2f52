"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import collector, console, migrate, plugins, processes
from app.api import docs_pages, errors, guards, openapi
from app.api.health import DatabaseProbe
from app.api.health import router as health_router
from app.api.ingress import WebhookIngress
from app.api.routes.actions import router as actions_router
from app.api.routes.bind_codes import router as bind_codes_router
from app.api.routes.concerns import router as concerns_router
from app.api.routes.facts import router as facts_router
from app.api.routes.persons import router as persons_router
from app.api.routes.reachability import router as reachability_router
from app.api.routes.signals import router as signals_router
from app.api.webhooks import router as webhooks_router
from app.inbound import PerceptionInbound
from app.metrics import Metrics, MetricsMiddleware
from app.pipeline import Processor
from app.settings import Settings
from app.wiring import build_context
from kernel.clock import Clock
from kernel.context import AppContext

# How long a stop waits for the pass in flight: one send (each bounded by its channel's timeout) and its record;
# inside Kubernetes' default terminationGracePeriodSeconds (30 s).
STOP_GRACE = 25.0


def create_app(
    settings: Settings | None = None,
    *,
    ctx: AppContext | None = None,
    clock: Clock | None = None,
    run_migrations: bool = True,
    processor: bool = True,
) -> FastAPI:
    """Build the app; migrations are applied at startup unless told otherwise.

    With `processor=False` the pipeline runs in another process (`deputy process`): this one only wakes it.
    """
    owns_ctx = ctx is None
    if ctx is None:
        ctx = build_context(settings or Settings(), clock=clock)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if run_migrations:
            migrate.upgrade(ctx.settings.database_url)
        # A pending action left by a crash is finalised as interrupted, never re-sent; signals recorded before
        # a crash are processed now, none lost, none processed twice; then the processor takes over.
        if isinstance(pipeline, Processor):
            pipeline.run_now()
            pipeline.start()
        transports = app.state.transports = plugins.start_inbound(ctx, inbound=PerceptionInbound(ctx))
        app.state.phase = "serving"  # /readyz answers 200 from here on
        collector.keep_frozen()
        yield
        app.state.phase = "stopping"
        ctx.stopping.set()  # the pass in flight finishes its current send and claims nothing more
        for transport in transports:
            transport.stop()
        if isinstance(pipeline, Processor):
            pipeline.stop(timeout=STOP_GRACE)
        else:
            pipeline.sender.close()
        if owns_ctx:
            if (acks := ctx.shared.pop("perception.ack_writer", None)) is not None:
                acks.close()  # every event handed to it is written before the database goes
            ctx.close()

    app = FastAPI(title="Deputy", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.ctx = ctx
    app.state.phase = "starting"
    app.state.transports = []
    app.state.db_probe = DatabaseProbe()
    pipeline = app.state.processor = _pipeline(ctx, in_process=processor)
    app.state.metrics = Metrics(ctx)  # with the database gauges, read at scrape time
    _install_http(app, ctx)
    return app


def _pipeline(ctx: AppContext, *, in_process: bool) -> Processor | processes.RemoteProcessor:
    """This process's processor, or the one that wakes a processor elsewhere; the only one a signal wakes."""
    pipeline: Processor | processes.RemoteProcessor = (
        Processor(ctx, threaded=ctx.settings.scheduler_enabled)
        if in_process
        else processes.RemoteProcessor(ctx, processes.WakeSender(processes.wake_address(ctx.settings.database_url)))
    )
    # One processor per process: a recorded signal wakes this app's (an earlier app's over the same context is gone).
    ctx.signal_listeners[:] = [
        w
        for w in ctx.signal_listeners
        if not isinstance(getattr(w, "__self__", None), Processor | processes.RemoteProcessor)
    ]
    ctx.signal_listeners.append(pipeline.wake)
    return pipeline


def _install_http(app: FastAPI, ctx: AppContext) -> None:
    """What answers a request: error handlers, the OpenAPI document, the middleware, the console and the routers."""
    errors.install(app)
    openapi.install(app)
    docs_pages.install(app)  # /docs and /redoc with their assets from this process (no CDN)
    console.install(app, ctx)  # the browser console under /console (its own error pages and security headers)
    for router in (
        health_router,
        facts_router,
        persons_router,
        reachability_router,
        bind_codes_router,
        actions_router,
        concerns_router,
        signals_router,
        webhooks_router,
    ):
        app.include_router(router)
    # Innermost first: the webhooks' ack (app.api.ingress) answers behind the same guard, limit and metrics.
    route = next(r for r in webhooks_router.routes if getattr(r, "path", None) == "/webhooks/{channel}")
    inline = isinstance(app.state.processor, Processor) and not app.state.processor.threaded
    app.add_middleware(WebhookIngress, ctx=ctx, route=route, inline=inline)
    app.add_middleware(guards.InputGuardMiddleware)  # inside the body limit: it buffers at most max_body_bytes
    app.add_middleware(errors.BodyLimitMiddleware, max_bytes=ctx.settings.max_body_bytes)
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)
