"""`POST /webhooks/<channel>`: documented here, answered by `app.api.ingress` (pure ASGI, in front of the router).

The platform gets its answer once the event is appended to the inbound queue; the processor parses it and records
its facts after the answer (Feishu waits only 3 s and retries; Telegram retries any non-2xx). A repeat of an event
writes nothing. This route answers only what the ingress passed on (a channel with no webhook: 404), or a request
that reached the router another way, the same way the ingress would.
"""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app import plugins
from app.api.deps import Ctx
from app.api.ingress import respond, wake_all
from kernel.errors import NotFound

router = APIRouter(tags=["webhooks"])


@router.post("/webhooks/{channel}")
async def webhook(channel: str, request: Request, ctx: Ctx, background: BackgroundTasks) -> JSONResponse:
    """One platform request: authenticated and keyed, the event appended, the platform's answer."""
    handler = plugins.webhooks(ctx).get(channel)
    if handler is None:
        raise NotFound(f"no webhook for channel {channel!r}", field="channel")
    (status, answer, headers), new = await respond(ctx, handler, channel, request.headers, await request.body())
    if new:
        background.add_task(run_in_threadpool, wake_all, ctx)
    return JSONResponse(answer, status_code=status, headers={k.decode(): v.decode() for k, v in headers})
