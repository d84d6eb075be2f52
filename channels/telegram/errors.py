"""Translate python-telegram-bot exceptions into the channel error taxonomy (channels.errors)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from channels.errors import ChannelError, InvalidRequest, RateLimited, Transient, Unreachable

if TYPE_CHECKING:
    from telegram import error as tg

_GONE = ("chat not found", "user not found", "peer_id_invalid", "user is deactivated")

log = logging.getLogger("deputy.channels.telegram.polling")


def is_parse_error(exc: BaseException) -> bool:
    """True for the BadRequest Telegram answers when HTML markup cannot be parsed."""
    from telegram import error as tg  # loaded with the channel's client: see channel._client

    return isinstance(exc, tg.BadRequest) and "can't parse entities" in str(exc).lower()


def retry_after_seconds(exc: tg.RetryAfter) -> float:
    """RetryAfter's wait in seconds, whether PTB reports an int or a timedelta."""
    value = exc._retry_after if hasattr(exc, "_retry_after") else exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def to_channel_error(exc: BaseException) -> ChannelError:
    """The taxonomy error for a PTB (or transport) exception; order matters: BadRequest is a NetworkError."""
    from telegram import error as tg  # loaded with the channel's client: see channel._client

    message = str(exc) or type(exc).__name__
    if isinstance(exc, ChannelError):
        return exc
    if isinstance(exc, tg.RetryAfter):
        return RateLimited(message, code=429, retry_after=retry_after_seconds(exc))
    if isinstance(exc, tg.Forbidden):  # bot blocked, kicked, user deactivated, never started the bot
        return Unreachable(message, code=403, permanent=True)
    if isinstance(exc, tg.InvalidToken):
        return InvalidRequest(f"telegram rejected the bot token: {message}", code="invalid_token")
    if isinstance(exc, tg.ChatMigrated):
        return InvalidRequest(message, code="chat_migrated", detail={"migrate_to_chat_id": exc.new_chat_id})
    if isinstance(exc, tg.BadRequest):
        if any(marker in message.lower() for marker in _GONE):
            return Unreachable(message, code=400, permanent=True)
        return InvalidRequest(message, code=400)
    if isinstance(exc, tg.TimedOut):
        # A pool timeout never left the process; a read timeout may have been delivered.
        return Transient(message, code="timeout", possibly_delivered="pool timeout" not in message.lower())
    if isinstance(exc, tg.Conflict):
        return Transient(message, code=409)
    if isinstance(exc, tg.NetworkError):  # connection errors, 5xx, non-JSON error bodies
        return Transient(message, code="network_error")
    if isinstance(exc, tg.TelegramError):  # a 2xx Telegram answer we could not read: it may have been sent
        return Transient(message, code="bad_response", possibly_delivered=True)
    return Transient(
        f"telegram adapter error: {type(exc).__name__}: {message}", code="adapter_error", possibly_delivered=True
    )


def poll_retry_delay(exc: BaseException, failures: int, *, backoff: float, max_backoff: float) -> float:
    """How long a poller waits after its `failures`-th failure in a row: exponential, or what Telegram asked."""
    from telegram import error as tg  # loaded with the channel's client: see channel._client

    delay = min(max_backoff, backoff * 2**failures)
    if isinstance(exc, tg.RetryAfter):
        delay = retry_after_seconds(exc)
        log.warning("telegram getUpdates rate limited; waiting %.1fs", delay)
    elif isinstance(exc, tg.Conflict):
        log.error(
            "telegram getUpdates 409 Conflict (%s): another process polls with this bot token, or a webhook "
            "is set (getUpdates fails while a webhook is set; deleteWebhook to poll). Retrying in %.1fs",
            exc,
            delay,
        )
    elif isinstance(exc, tg.InvalidToken):
        log.error("telegram rejected the bot token (%s); retrying in %.1fs", exc, delay)
    else:
        log.warning(
            "telegram polling failed (%s: %s); retrying in %.1fs",
            type(exc).__name__,
            exc,
            delay,
            exc_info=not isinstance(exc, tg.TelegramError),
        )
    return delay
