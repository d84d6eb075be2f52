"""Telegram as a plugin: sendMessage, the secret-checked webhook, and long polling with a durable offset."""

from __future__ import annotations

import hmac
import json
import logging
from datetime import datetime
from typing import Any

from channels.base import Channel
from channels.inbound import Inbound, InboundPress
from channels.plugin import Accepted, ChannelPlugin, Parsed, WebhookRequest
from channels.telegram.inbound import BotIdentity, IgnoredPress, InvalidUpdate, to_inbound, to_press, update_id
from channels.telegram.settings import TelegramSettings
from kernel.errors import DeputyError, Forbidden, Unauthorized

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
log = logging.getLogger("deputy.channels.telegram")


class BadUpdate(DeputyError):
    status, code = 400, "invalid_update"


class MalformedJSON(DeputyError):
    status, code = 400, "malformed_json"


def _secret(value: Any) -> str:
    return value.get_secret_value() if value is not None else ""


class TelegramWebhook:
    """`POST /webhooks/telegram` (setWebhook with secret_token = DEPUTY_TELEGRAM_WEBHOOK_SECRET).

    The ack checks the secret in constant time, reads `update_id` and appends the update as it arrived; Telegram
    retries any non-2xx answer, so every update Deputy does not act on (edits, channel posts, other update types)
    is acknowledged with 200 and appends nothing. A button press is answered in the webhook's response (Telegram
    carries out the `answerCallbackQuery` it holds), with the toast of the read-only check. The processor parses
    the update (`parse`): an unreadable one (a malformed part, text no database stores, a date out of range) is
    set aside with the reason, never lost to a retry loop.
    """

    def __init__(self, settings: Any, sender: Channel | None) -> None:
        self.settings, self.sender = settings, sender

    def _identity(self) -> BotIdentity:
        """DEPUTY_TELEGRAM_BOT_USERNAME, else getMe through the sender (asked once)."""
        username = getattr(self.settings, "telegram_bot_username", None)
        if not username:
            lookup = getattr(self.sender, "bot_username", None)
            username = lookup() if callable(lookup) else None
        return BotIdentity(id=_secret(self.settings.telegram_bot_token).partition(":")[0] or None, username=username)

    def _check_secret(self, presented: str | None) -> None:
        """401 without the header, 403 when it does not match (or no secret is configured); constant-time."""
        if not presented:
            raise Unauthorized(f"missing {SECRET_HEADER}")
        expected = _secret(self.settings.telegram_webhook_secret).encode()
        if not hmac.compare_digest(presented.encode(), expected) or not expected:
            raise Forbidden("wrong secret token" if expected else "the telegram webhook secret is not configured")

    def accept(self, request: WebhookRequest) -> Accepted:
        """Authenticate and key one Update; what to append and how to answer."""
        self._check_secret(request.headers.get(SECRET_HEADER))
        try:
            update = json.loads(request.body)
        except ValueError as exc:
            raise MalformedJSON("request body is not valid JSON") from exc
        try:
            event_id = str(update_id(update))
        except InvalidUpdate as exc:
            raise BadUpdate(str(exc)) from exc
        if "callback_query" in update:
            return self._press(update, event_id, request)
        message = update.get("message")
        if not isinstance(message, dict) or (isinstance(message.get("from"), dict) and message["from"].get("is_bot")):
            return Accepted(answer=_ignored)  # only a person's message is acted on (`to_inbound`)
        return Accepted(answer=_recorded, event_id=event_id, body=request.body)

    def _press(self, update: dict[str, Any], event_id: str, request: WebhookRequest) -> Accepted:
        try:
            press = to_press(update, now=request.now)
        except InvalidUpdate:  # appended as it is: the processor sets it aside, saying why
            return Accepted(answer=_recorded, event_id=event_id, body=request.body)
        if isinstance(press, IgnoredPress):  # answered (the button stops spinning), nothing appended
            log.info("telegram callback ignored: %s", press.reason, extra={"press_id": press.press_id})
            ignored = press.press_id
            return Accepted(answer=lambda _: answer_callback(ignored, ""))
        assert press is not None  # a callback_query update is a press or an ignored one
        pressed = press.press_id
        return Accepted(
            answer=_recorded,
            event_id=event_id,
            body=request.body,
            kind="press",
            press=press,
            answer_press=lambda toast, _new: answer_callback(pressed, toast),
        )

    def parse(self, *, kind: str, body: bytes, received_at: datetime) -> Parsed:
        """The message or press an appended update holds (nothing for one Deputy ignores), or why it is set aside."""
        try:
            update = json.loads(body)
            if kind == "press" or "callback_query" in update:
                press = to_press(update, now=received_at)
                return Parsed(press=press) if isinstance(press, InboundPress) else Parsed()
            message = to_inbound(update, self._identity())
        except (InvalidUpdate, ValueError) as exc:
            return Parsed(set_aside=str(exc))
        return Parsed(messages=[message] if message is not None else [])


def answer_callback(press_id: str, toast: str) -> dict[str, Any]:
    """The answerCallbackQuery a webhook response carries (Telegram answers the query with it)."""
    return {"method": "answerCallbackQuery", "callback_query_id": press_id, **({"text": toast} if toast else {})}


def _recorded(new: bool) -> dict[str, Any]:
    return {"ok": True, "recorded": new}


def _ignored(_: bool) -> dict[str, Any]:
    return {"ok": True, "recorded": False}


class TelegramPlugin(ChannelPlugin):
    """Sends once DEPUTY_TELEGRAM_BOT_TOKEN is set; receives by webhook or by long polling (DEPUTY_TELEGRAM_MODE)."""

    name = "telegram"
    display_names = {"zh": "Telegram", "en": "Telegram"}
    bind_hint = {"zh": "/start {code}", "en": "/start {code}"}
    binding_columns = ("telegram_user_id", "telegram_chat_id")
    settings = TelegramSettings
    configure_hint = "DEPUTY_TELEGRAM_BOT_TOKEN"

    def sender(self, settings: Any, *, redis: Any = None) -> Channel | None:
        """The Bot API channel; its pacing is shared through Redis when there is one."""
        if not settings.telegram_bot_token:
            return None
        from channels.telegram.channel import TelegramChannel

        return TelegramChannel(_secret(settings.telegram_bot_token), api_base=settings.telegram_api_base, redis=redis)

    def webhook(self, settings: Any, *, sender: Channel | None) -> TelegramWebhook:
        """The webhook handler (it refuses every request until a secret is configured)."""
        return TelegramWebhook(settings, sender)

    def start_inbound(self, ctx: Any, *, inbound: Inbound, sender: Channel | None) -> Any:
        """Long polling when DEPUTY_TELEGRAM_MODE=polling and a bot token is set."""
        if ctx.settings.telegram_mode != "polling" or not ctx.settings.telegram_bot_token:
            return None  # asked before the import: in webhook mode the poller and its Bot API client never load
        from channels.telegram.polling import start_polling

        return start_polling(ctx, inbound=inbound, sender=sender)
