"""The Telegram channel: sendMessage through python-telegram-bot, split, paced and mapped into the taxonomy."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from prometheus_client import Counter

from channels.base import Channel, ChannelHealth, MediaRef, MessageEdit, OutboundMessage, SendReceipt
from channels.errors import ChannelError, InvalidRequest, Transient
from channels.telegram.errors import is_parse_error, to_channel_error
from channels.telegram.loop import LoopThread
from channels.telegram.markup import keyboard
from channels.telegram.pacing import Pacer
from channels.telegram.richtext import MAX_CAPTION_UNITS, Styled, caption_and_rest, parts, shortened, styled
from channels.telegram.text import MAX_MESSAGE_UNITS
from kernel.metrics import PROCESS_REGISTRY

if TYPE_CHECKING:
    from telegram import Bot
    from telegram.request import HTTPXRequest

log = logging.getLogger("deputy.channels.telegram")
GET_ME_RETRY = 60.0  # after a failed getMe, webhook requests do not wait on Telegram again for this long
PLAIN_FALLBACKS = Counter(
    "deputy_telegram_plain_text_fallback_total",
    "Texts Telegram refused to parse as HTML and that went again as plain text",
    ["method"],
    registry=PROCESS_REGISTRY,
)


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
        # python-telegram-bot (and httpx) load at the first call: a web process that only parses webhooks never
        # sends, and does not carry them.
        from telegram import Bot
        from telegram.request import HTTPXRequest

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

    def _html(self, method: str, field: str, text: Styled, **kwargs: Any) -> tuple[Any, bool]:
        """Call `method` with `text` as HTML; if Telegram still cannot parse it, again as its plain visible text.

        Deputy escapes everything it did not mark up, so this fallback should never run; it is counted
        (deputy_telegram_plain_text_fallback_total) and reported as `plain_text_fallback` in the receipt.
        """
        try:
            return self._call(method, parse_mode="HTML", **{field: text.html()}, **kwargs), False
        except ChannelError as exc:
            if not is_parse_error(exc.__cause__):
                raise
        log.warning("telegram could not parse HTML; sending as plain text", extra={"method": method, "field": field})
        PLAIN_FALLBACKS.labels(method=method).inc()
        return self._call(method, **{field: text.plain}, **kwargs), True

    def _send_part(self, chat_id: str, text: Styled, markup: Any = None) -> tuple[str, bool]:
        """Send one part (with the keyboard, when given) as HTML, falling back to plain text."""
        sent, plain = self._html("send_message", "text", text, chat_id=chat_id, reply_markup=markup)
        return str(sent.message_id), plain

    def _copy(self, chat_id: str, media: MediaRef, caption: Styled | None, markup: Any) -> tuple[str, bool]:
        """copyMessage: the media again, as the bot's own message (no "forwarded from"), with our caption."""
        kwargs: dict[str, Any] = {
            "chat_id": chat_id,
            "from_chat_id": media.chat_id,
            "message_id": int(media.message_id),
            "reply_markup": markup,
        }
        if caption is None:  # no caption given: the original one stays
            copied = self._call("copy_message", **kwargs)
            return str(copied.message_id), False
        copied, plain = self._html("copy_message", "caption", caption, **kwargs)
        return str(copied.message_id), plain

    def _plan(self, message: OutboundMessage) -> tuple[Styled | None, list[Styled]]:
        """The caption (None: the media keeps its own, or no media) and the text parts, in sending order."""
        text = styled(message.text)
        if message.media is None:
            return None, parts(text)
        if text.blank():
            return None, []
        caption, rest = caption_and_rest(text)
        return caption, parts(rest) if rest is not None else []

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Deliver the text (split at 4096 visible UTF-16 units); the receipt's id is the first message's id.

        Buttons go on the last message (`detail.buttons_message_id` names it, for a later edit). With media, the
        media is copied first with the text as its caption; a text over 1024 units is cut at a word for the
        caption and the rest follows as message(s) of its own.
        """
        chat_id = message.chat_id or message.external_user_id
        markup = keyboard(message.buttons)
        media = message.media
        if media is not None and media.channel != self.name:
            raise InvalidRequest(f"telegram cannot pass on {media.channel} media", code="foreign_media", permanent=True)
        caption, texts = self._plan(message)
        if not texts and media is None:
            raise InvalidRequest("telegram refuses an empty message", code="empty_text")
        offset = int(media is not None)
        steps = len(texts) + offset
        # The chat is ours for every part's slot at once (others see it busy until the last part's), so
        # our own pacing never cuts a message short; if the first slot is too far away, Paced and nothing sent.
        turns = self.pacer.reserve(chat_id, parts=steps)
        ids: list[str] = []
        plain = False
        for index in range(steps):
            keys = markup if index == steps - 1 else None
            try:
                if index:
                    turns.wait(index)
                if index < offset:
                    message_id, fallback = self._copy(chat_id, media, caption, keys)  # type: ignore[arg-type]
                else:
                    message_id, fallback = self._send_part(chat_id, texts[index - offset], keys)
            except ChannelError as exc:
                if not ids:
                    raise
                # Part of the text is already out: report what arrived rather than failing over and repeating it.
                log.warning("telegram message cut short after %d of %d parts: %s", len(ids), steps, exc.message)
                return SendReceipt(
                    message_id=ids[0],
                    detail=self._detail(ids, plain) | {"incomplete": {"parts_total": steps, **exc.to_attempt()}},
                )
            ids.append(message_id)
            plain = plain or fallback
        detail = self._detail(ids, plain)
        if markup is not None:
            detail["buttons_message_id"] = ids[-1]
        if media is not None:
            detail["media_message_id"] = ids[0]
        return SendReceipt(message_id=ids[0], detail=detail)

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """editMessageText with the new keyboard (none removes it); a media message gets its caption edited.

        An edit cannot add a message: a text over 4096 units (a caption over 1024) is cut at a word and ends with
        "…" and the edit's `cut_note` (where the whole text is). An empty text is refused (`edit_length`).
        "message is not modified" (the same text and buttons, e.g. a press answered twice) counts as success.
        """
        full = styled(edit.text)
        if full.blank():
            raise InvalidRequest("an edited text must not be empty", code="edit_length", permanent=True)
        text = shortened(full, MAX_MESSAGE_UNITS, edit.cut_note)
        ids = {"chat_id": edit.chat_id, "message_id": int(edit.message_id)}
        # No reply_markup at all removes the inline keyboard (an empty one serialises as `{}`, not a keyboard).
        markup = keyboard(edit.buttons)
        detail: dict[str, Any] = {"edited": True}
        shown = text
        try:
            try:
                _, plain = self._html("edit_message_text", "text", text, reply_markup=markup, **ids)
            except InvalidRequest as exc:
                if "no text in the message to edit" not in exc.message.lower():
                    raise
                shown = shortened(full, MAX_CAPTION_UNITS, edit.cut_note)
                _, plain = self._html("edit_message_caption", "caption", shown, reply_markup=markup, **ids)
                detail["caption"] = True
        except InvalidRequest as exc:
            reason = exc.message.lower()
            if "message is not modified" in reason:
                return SendReceipt(message_id=edit.message_id, detail={"edited": False, "not_modified": True})
            if "message to edit not found" in reason:
                raise InvalidRequest(exc.message, code="message_gone", permanent=True) from exc
            if "message can't be edited" in reason:
                raise InvalidRequest(exc.message, code="edit_unsupported", permanent=True) from exc
            raise
        if shown is not full:
            detail["cut"] = True
        if plain:
            detail["plain_text_fallback"] = True
        return SendReceipt(message_id=edit.message_id, detail=detail)

    def answer_press(self, *, press_id: str, text: str) -> None:
        """answerCallbackQuery with the toast (cut to Telegram's 200 characters); a query too old to answer is
        a permanent InvalidRequest (Telegram allows about 15 seconds)."""
        try:
            self._call("answer_callback_query", callback_query_id=press_id, text=text[:200] or None)
        except InvalidRequest as exc:
            if "query is too old" in exc.message.lower() or "query id is invalid" in exc.message.lower():
                raise InvalidRequest(exc.message, code="query_too_old", permanent=True) from exc
            raise

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
