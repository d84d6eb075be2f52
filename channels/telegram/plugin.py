"""Telegram as a plugin: sendMessage, the secret-checked webhook, and long polling with a durable offset."""

from __future__ import annotations

import hmac
import json
from typing import Any

from channels.base import Channel
from channels.inbound import Inbound, PressAnswer
from channels.plugin import ChannelPlugin, WebhookReply, WebhookRequest
from channels.telegram.inbound import (
    BotIdentity,
    IgnoredPress,
    InvalidDate,
    InvalidUpdate,
    answer_quietly,
    to_inbound,
    to_press,
    update_id,
)
from channels.telegram.settings import TelegramSettings
from kernel.errors import DeputyError, Forbidden, Invalid, Unauthorized

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class BadUpdate(DeputyError):
    status, code = 400, "invalid_update"


class MalformedJSON(DeputyError):
    status, code = 400, "malformed_json"


def _secret(value: Any) -> str:
    return value.get_secret_value() if value is not None else ""


class TelegramWebhook:
    """`POST /webhooks/telegram` (setWebhook with secret_token = DEPUTY_TELEGRAM_WEBHOOK_SECRET).

    Telegram retries any non-2xx answer, so every update Deputy does not act on (edits, callbacks without
    data, other bots, repeats of an update_id already recorded) is acknowledged with 200 and writes nothing.
    A button press is answered through the sender's answerCallbackQuery (as by long polling), with the toast
    `Inbound.press` returned, once it is recorded.
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

    def handle(self, request: WebhookRequest) -> WebhookReply:
        """Authenticate, parse one Update; the message (if any) is recorded by the caller."""
        self._check_secret(request.headers.get(SECRET_HEADER))
        try:
            update = json.loads(request.body)
        except ValueError as exc:
            raise MalformedJSON("request body is not valid JSON") from exc
        try:
            update_id(update)
            press = to_press(update, now=request.now)
            message = to_inbound(update, self._identity()) if press is None else None
        except InvalidDate as exc:  # SPEC §8: a date outside the sane range is a 422
            raise Invalid(str(exc), field="message.date") from exc
        except InvalidUpdate as exc:
            raise BadUpdate(str(exc)) from exc
        if isinstance(press, IgnoredPress):
            answer_quietly(self.sender, press, "")
            return WebhookReply(answer=lambda _: {"ok": True, "recorded": False})
        if press is not None:
            pressed = press

            def answered(answer: PressAnswer) -> dict[str, Any]:
                if answer.first:  # a redelivery (same callback id) was answered by the first: Telegram answers once
                    answer_quietly(self.sender, pressed, answer.toast)
                return {"ok": True, "recorded": answer.first}

            return WebhookReply(answer=lambda _: {"ok": True, "recorded": False}, press=press, answer_press=answered)
        return WebhookReply(
            answer=lambda recorded: {"ok": True, "recorded": recorded}, messages=[message] if message else []
        )


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
