"""`POST /webhooks/telegram`: authenticate with the secret token, record the message, answer at once.

Telegram retries any non-2xx answer, so every update Deputy does not act on (edits, callbacks,
other bots, repeats of an update_id already recorded) is acknowledged with 200 and writes nothing.
"""

from __future__ import annotations

import hmac
import json
import logging

from fastapi import APIRouter, BackgroundTasks, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.api.deps import Ctx, Forbidden, Unauthorized
from kernel.context import AppContext
from kernel.errors import DeputyError, Invalid
from channels.telegram.inbound import InvalidDate, InvalidUpdate, bot_identity, to_inbound, update_id
from perception.service import record_message

log = logging.getLogger("deputy.channels.telegram")
router = APIRouter(tags=["webhooks"])
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class BadUpdate(DeputyError):
    status, code = 400, "invalid_update"


class MalformedJSON(DeputyError):
    status, code = 400, "malformed_json"


class WebhookAck(BaseModel):
    """What Telegram gets back: it only looks at the status code."""

    ok: bool = True
    recorded: bool = False


def check_secret(ctx: AppContext, presented: str | None) -> None:
    """401 without the header, 403 when it does not match (or no secret is configured); constant-time."""
    if not presented:
        raise Unauthorized(f"missing {SECRET_HEADER}")
    secret = ctx.settings.telegram_webhook_secret
    expected = secret.get_secret_value().encode() if secret else b""
    if not hmac.compare_digest(presented.encode(), expected) or not expected:
        raise Forbidden("wrong secret token" if expected else "the telegram webhook secret is not configured")


def _record(ctx: AppContext, update: dict) -> bool:
    """Convert and record one update; True when a new message_received fact was written."""
    message = to_inbound(update, bot_identity(ctx))
    if message is None:
        return False
    _, created = record_message(ctx, message=message)
    return created


@router.post("/webhooks/telegram", response_model=WebhookAck)
async def telegram_webhook(request: Request, ctx: Ctx, background: BackgroundTasks) -> WebhookAck:
    """Receive one Telegram Update (setWebhook with secret_token = DEPUTY_TELEGRAM_WEBHOOK_SECRET)."""
    check_secret(ctx, request.headers.get(SECRET_HEADER))
    try:
        update = json.loads(await request.body())
    except ValueError as exc:
        raise MalformedJSON("request body is not valid JSON") from exc
    try:
        update_id(update)
        created = await run_in_threadpool(_record, ctx, update)
    except InvalidDate as exc:  # SPEC §8: a date outside the sane range is a 422
        raise Invalid(str(exc), field="message.date") from exc
    except InvalidUpdate as exc:
        raise BadUpdate(str(exc)) from exc
    if created:
        background.add_task(ctx.signal_recorded)  # the core runs after Telegram has its answer
    return WebhookAck(recorded=created)
