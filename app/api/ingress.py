"""`POST /webhooks/<channel>` answered in front of the router: authenticate, key, append the raw event, answer.

Measured (docs/PERFORMANCE.md), the framework's per-request machinery — routing, dependencies, two thread-pool
hand-offs — cost more than the whole append, so a platform's webhook is served here, as pure ASGI inside the
same middleware as every request (metrics, the body limit, the JSON depth guard). The plugin's `accept` checks
the platform's authentication and keys the event; the process's one writer appends it group-committed
(`perception.ack_writer`) and the platform is answered once it is durable. Nothing else happens before the answer:
the processor parses the event and records its facts. A press also gets a read-only check (is this the addressee,
is the button used or its loop closed) for its toast, which rides in the answer. Unknown channels, and every other
request, go on to FastAPI, whose route documents these in the OpenAPI schema and answers the same way.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers

from app import plugins
from app.api.errors import DATABASE_RETRY_AFTER
from channels.inbound import InboundPress
from channels.plugin import Webhook, WebhookRequest
from cognitive_core.presses import door as presses
from fact import service as facts
from kernel.context import AppContext
from kernel.errors import DeputyError
from perception import service as perception
from perception.ack_writer import writer
from perception.inbound_queue import Arrived

log = logging.getLogger("deputy.api")
_PATH = re.compile(r"/webhooks/([A-Za-z0-9_-]{1,32})")
Answer = tuple[int, dict[str, Any], list[tuple[bytes, bytes]]]


def wake_all(ctx: AppContext) -> None:
    """Events wait: this process's processor (or the one it wakes); the writer's commit NOTIFYd every replica's."""
    ctx.signal_recorded()


def toast(ctx: AppContext, press: InboundPress) -> str:
    """The read-only check's answer to a press while the platform waits, in the presser's language (a repeat of
    a press already recorded is answered as the first was)."""
    with ctx.reader() as uow:
        presser, locale = perception.sender_and_locale(
            uow, channel=press.channel, external_user_id=press.external_user_id
        )
        fact_id = facts.id_by_dedup_key(uow, dedup_key=perception.press_key(press)) or ""
        return presses.toast(uow, token=press.token, presser_id=presser, fact_id=fact_id, locale=locale)


async def respond(ctx: AppContext, webhook: Webhook, channel: str, headers: Any, body: bytes) -> tuple[Answer, bool]:
    """The answer to one platform request, and whether it appended a new event (the processor is to be woken)."""
    now = ctx.clock.now()
    try:
        accepted = webhook.accept(WebhookRequest(headers=headers, body=body, now=now))
    except DeputyError as exc:
        return (exc.status, exc.to_body(), []), False
    if accepted.event_id is None:
        return (200, accepted.answer(False), []), False
    try:
        # Read before the press is kept: once kept, the processor may carry it out, and it would read as used.
        said = await run_in_threadpool(toast, ctx, accepted.press) if accepted.press is not None else ""
        event = Arrived(channel, accepted.event_id, accepted.kind, accepted.body, received_at=now)
        new = await writer(ctx).append(event)
    except OperationalError as exc:  # nothing appended: the platform's retry is safe
        log.warning("database unavailable: %s", str(exc.orig).splitlines()[0] if exc.orig else type(exc).__name__)
        unavailable = {"error": {"code": "database_unavailable", "message": "the database is unavailable; retry later"}}
        return (503, unavailable, [(b"retry-after", str(DATABASE_RETRY_AFTER).encode())]), False
    except Exception:
        log.exception("unhandled error in the %s webhook", channel)
        return (500, {"error": {"code": "internal_error", "message": "internal error"}}, []), False
    if accepted.press is not None and accepted.answer_press is not None:
        return (200, accepted.answer_press(said, new), []), new
    return (200, accepted.answer(new), []), new


class WebhookIngress:
    """Pure ASGI in front of the router: a configured platform's webhook is answered here, all else passes on.

    `inline`: the processor runs in the waker's thread (no processor thread: the tests' mode), so the wake-up runs
    after the answer is sent, off the event loop; otherwise the writer's thread wakes it after each commit.
    """

    def __init__(self, app: Any, *, ctx: AppContext, route: Any, inline: bool) -> None:
        self.app, self.ctx, self.route, self.inline = app, ctx, route, inline
        writer(ctx).committed = None if inline else lambda: wake_all(ctx)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        match = _PATH.fullmatch(scope.get("path", "")) if scope["type"] == "http" else None
        webhook = plugins.webhooks(self.ctx).get(match[1]) if match and scope["method"] == "POST" else None
        if webhook is None or match is None:
            await self.app(scope, receive, send)
            return
        scope["route"] = self.route  # the metrics' label, as the router would have set it
        body = await _body(receive)
        (status, answer, headers), new = await respond(self.ctx, webhook, match[1], Headers(scope=scope), body)
        await _send_json(send, status, answer, headers)
        if new and self.inline:
            await run_in_threadpool(wake_all, self.ctx)


async def _body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _send_json(send: Any, status: int, content: dict[str, Any], extra: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
