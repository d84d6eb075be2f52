"""The Telegram channel: sendMessage through python-telegram-bot, split, paced and mapped into the taxonomy."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from typing import Any

from telegram import Bot
from telegram.request import HTTPXRequest

from channels.base import Channel, ChannelHealth, OutboundMessage, SendReceipt
from channels.errors import ChannelError, InvalidRequest, Transient
from channels.telegram.errors import is_parse_error, to_channel_error
from channels.telegram.loop import LoopThread
from channels.telegram.pacing import Pacer
from channels.telegram.text import split_text

log = logging.getLogger("deputy.channels.telegram")
GET_ME_RETRY = 60.0  # after a failed getMe, webhook requests do not wait on Telegram again for this long


class TelegramChannel(Channel):
    """Sends through the Bot API at `api_base` (a setting, so tests use a local fake server).

    The Channel interface is synchronous; PTB is async, so calls run on a private event loop
    on a daemon thread (`close()` stops it). Nothing here retries or sleeps beyond pacing's waits of at most 1 s.
    """

    name = "telegram"

    def __init__(
        self,
        token: str,
        *,
        api_base: str = "https://api.telegram.org",
        redis: Any = None,
        timeout: float = 10.0,
        chat_interval: float = 1.0,
        bot_rate: float = 30.0,
        max_wait: float = 1.0,
    ) -> None:
        self._token = token
        self.api_base = api_base.rstrip("/")
        self.bot_id = token.partition(":")[0]
        self.timeout = timeout
        self.pacer = Pacer(
            namespace=self.bot_id, redis=redis, chat_interval=chat_interval, bot_rate=bot_rate, max_wait=max_wait
        )
        self._loop = LoopThread("telegram-send")
        self._lock = threading.Lock()
        self._bot: Bot | None = None
        self._requests: list[HTTPXRequest] = []
        self._username: str | None = None
        self._get_me_failed_at = float("-inf")

    def _client(self) -> Bot:
        with self._lock:
            if self._bot is None:
                timeouts = {
                    "read_timeout": self.timeout,
                    "write_timeout": self.timeout,
                    "connect_timeout": self.timeout,
                }
                self._requests = [
                    HTTPXRequest(connection_pool_size=16, **timeouts),
                    HTTPXRequest(connection_pool_size=1, **timeouts),
                ]
                self._bot = Bot(
                    self._token,
                    base_url=f"{self.api_base}/bot",
                    base_file_url=f"{self.api_base}/file/bot",
                    request=self._requests[0],
                    get_updates_request=self._requests[1],
                )
            return self._bot

    def _call(self, method: str, **kwargs: Any) -> Any:
        """Run one Bot method on the private loop; every failure leaves as a ChannelError."""
        bot = self._client()
        try:
            return self._loop.run(lambda: getattr(bot, method)(**kwargs), timeout=self.timeout * 2 + 5)
        except concurrent.futures.TimeoutError as exc:
            raise Transient(
                f"telegram {method} did not answer in time", code="timeout", possibly_delivered=True
            ) from exc
        except Exception as exc:
            raise to_channel_error(exc) from exc

    def _send_part(self, chat_id: str, text: str) -> tuple[str, bool]:
        """Send one part as HTML; if Telegram cannot parse the markup, send it again as plain text."""
        try:
            sent = self._call("send_message", chat_id=chat_id, text=text, parse_mode="HTML")
            return str(sent.message_id), False
        except ChannelError as exc:
            if not is_parse_error(exc.__cause__):
                raise
        log.info("telegram could not parse HTML; sending as plain text", extra={"chat_id": chat_id})
        sent = self._call("send_message", chat_id=chat_id, text=text)
        return str(sent.message_id), True

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Deliver the text (split at 4096 UTF-16 units); the receipt's id is the first part's message_id."""
        chat_id = message.chat_id or message.external_user_id
        parts = split_text(message.text)
        if not parts:
            raise InvalidRequest("telegram refuses an empty message", code="empty_text")
        # The chat is ours for every part's slot at once (others see it busy until the last part's), so
        # our own pacing never cuts a message short; if the first slot is too far away, Paced and nothing sent.
        turns = self.pacer.reserve(chat_id, parts=len(parts))
        ids: list[str] = []
        plain = False
        for index, part in enumerate(parts):
            try:
                if index:
                    turns.wait(index)
                message_id, fallback = self._send_part(chat_id, part)
            except ChannelError as exc:
                if not ids:
                    raise
                # Part of the text is already out: report what arrived rather than failing over and repeating it.
                log.warning("telegram message cut short after %d of %d parts: %s", len(ids), len(parts), exc.message)
                return SendReceipt(
                    message_id=ids[0],
                    detail=self._detail(ids, plain) | {"incomplete": {"parts_total": len(parts), **exc.to_attempt()}},
                )
            ids.append(message_id)
            plain = plain or fallback
        return SendReceipt(message_id=ids[0], detail=self._detail(ids, plain))

    @staticmethod
    def _detail(ids: list[str], plain: bool) -> dict[str, Any]:
        detail: dict[str, Any] = {"message_ids": ids}
        if plain:
            detail["plain_text_fallback"] = True
        return detail

    def bot_username(self) -> str | None:
        """The bot's @username from getMe, asked once and cached; None (for a minute) after getMe fails."""
        if self._username is None and time.monotonic() - self._get_me_failed_at > GET_ME_RETRY:
            try:
                self._username = self._call("get_me").username
            except ChannelError as exc:
                self._get_me_failed_at = time.monotonic()
                log.warning("telegram getMe failed: %s", exc.message)
        return self._username

    def health(self) -> ChannelHealth:
        """Configured or not; no network call (getMe only when the username is first needed)."""
        if not self._token:
            return ChannelHealth(name=self.name, ok=False, detail="no bot token configured")
        who = f"@{self._username}" if self._username else f"bot {self.bot_id}"
        return ChannelHealth(name=self.name, ok=True, detail=f"{who} via {self.api_base}")

    def close(self) -> None:
        """Close the HTTP client and stop the private event loop (a later send starts them again)."""
        with self._lock:
            self._bot, requests, self._requests = None, self._requests, []

        async def shutdown() -> None:
            for request in requests:
                await request.shutdown()

        self._loop.close(shutdown)
