"""`POST /webhooks/<channel>`: the channel plugin authenticates and parses; perception records; the processor wakes.

The platform gets its answer once the message is durable; processing runs after the answer (Feishu waits
only 3 s and retries; Telegram retries any non-2xx). A repeat of an event writes nothing.
"""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app import plugins
from app.api.deps import Ctx
from app.inbound import PerceptionInbound
from channels.plugin import Webhook, WebhookRequest
from kernel.errors import NotFound

router = APIRouter(tags=["webhooks"])


def _handler(request: Request, channel: str) -> Webhook:
    """The channel's webhook handler, built once per app (it may hold the sender, for getMe)."""
    handlers: dict[str, Webhook] = request.app.state.__dict__.setdefault("webhooks", {})
    if channel not in handlers:
        plugin = plugins.plugin(channel)
        ctx = request.app.state.ctx
        handler = plugin.webhook(ctx.settings, sender=ctx.channels.get(channel)) if plugin is not None else None
        if handler is None:
            raise NotFound(f"no webhook for channel {channel!r}", field="channel")
        handlers[channel] = handler
    return handlers[channel]


@router.post("/webhooks/{channel}")
async def webhook(channel: str, request: Request, ctx: Ctx, background: BackgroundTasks) -> JSONResponse:
    """One platform request: the plugin's answer, once every message in it is recorded."""
    handler = _handler(request, channel)
    incoming = WebhookRequest(headers=request.headers, body=await request.body(), now=ctx.clock.now())
    reply = await run_in_threadpool(handler.handle, incoming)
    inbound = PerceptionInbound(ctx)
    if reply.press is not None and reply.answer_press is not None:  # a button press: its toast is the answer
        answer = await run_in_threadpool(inbound.press, reply.press)
        background.add_task(inbound.wake)
        return JSONResponse(await run_in_threadpool(reply.answer_press, answer), status_code=reply.status)
    for receipt in reply.reads:  # a read receipt: recorded before the answer, nothing for the core to process
        await run_in_threadpool(inbound.read, receipt)
    recorded = False
    for message in reply.messages:
        recorded = await run_in_threadpool(inbound.record, message) or recorded
    if recorded:
        background.add_task(inbound.wake)  # the core runs after the platform has its answer
    return JSONResponse(reply.answer(recorded), status_code=reply.status)
