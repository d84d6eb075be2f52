"""Long polling (`DEPUTY_TELEGRAM_MODE=polling`): getUpdates on its own thread and loop, offset kept in the database.

Each update's fact is committed first, then the offset moves past it, so a restart resumes exactly
where the last durable update left off (an update recorded just before a crash is fetched again and
de-duplicated on update_id). Pending updates are never dropped; one Deputy cannot read (a NUL in its text, a
date out of range) is skipped with a warning and a `system` fact, so it never blocks the ones after it.
Updates are fetched as raw JSON for that reason: python-telegram-bot's parsed Updates fail the whole batch
on one unreadable update.

Only one replica polls at a time: getUpdates answers 409 Conflict to a poll when another starts. Every
replica's poller runs, but polls only while it holds the bot's lease (`kernel.lease`: a PostgreSQL advisory
lock on its own connection, a file lock beside a SQLite database); the others try to take it every third of
DEPUTY_TELEGRAM_POLL_LEASE, so one of them takes over once the holder dies. A 409 that still comes (a webhook
is set — deleteWebhook before polling — or a process outside this deployment polls) backs off, bounded and
exponentially, with an error in the log each time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import warnings
from collections.abc import Awaitable
from typing import Any

from telegram import Bot
from telegram import error as tg
from telegram.request import HTTPXRequest
from telegram.warnings import PTBUserWarning

from channels.base import Channel
from channels.inbound import Inbound, PressAnswer
from channels.models import read_state, write_state
from channels.telegram.errors import poll_retry_delay
from channels.telegram.inbound import BotIdentity, IgnoredPress, InvalidUpdate, answer_quietly, to_inbound, to_press
from kernel.context import AppContext
from kernel.lease import Lease, for_database

log = logging.getLogger("deputy.channels.telegram.polling")
# Asked for explicitly: Telegram keeps the last allowed_updates a bot asked for, which might lack callbacks.
ALLOWED = ["message", "callback_query"]


class TelegramPoller:
    """Fetches updates with getUpdates and records each `message` as a message_received fact."""

    def __init__(
        self,
        ctx: AppContext,
        *,
        inbound: Inbound,
        token: str,
        api_base: str,
        poll_timeout: int = 25,
        limit: int = 100,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        request_timeout: float = 10.0,
        lease: Lease | None = None,
        sender: Channel | None = None,
    ) -> None:
        self.ctx, self._token, self.api_base = ctx, token, api_base.rstrip("/")
        bot_id = token.partition(":")[0]
        self.offset_key = f"telegram:{bot_id}:updates_offset"
        self.poll_timeout, self.limit, self.request_timeout = poll_timeout, limit, request_timeout
        self.backoff, self.max_backoff = backoff, max_backoff
        self.inbound, self.sender = inbound, sender  # the sender answers button presses
        self._identity = BotIdentity(id=bot_id, username=getattr(ctx.settings, "telegram_bot_username", None))
        if lease is None:
            seconds = getattr(ctx.settings, "telegram_poll_lease", None)
            seconds = seconds.total_seconds() if seconds is not None else 15.0
            lease = for_database(ctx.db.url, f"telegram:{bot_id}:poller", lease=seconds)
        self.lease = lease
        self.leading = False  # whether this replica holds the lease and polls
        self._lease_failing = False
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    def start(self) -> TelegramPoller:
        """Start polling on a daemon thread."""
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), name="telegram-poller", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        return self

    def request_stop(self) -> None:
        """Ask the poller to stop (without waiting): no update after the one in hand is started."""
        self._stopping.set()
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                self._loop.call_soon_threadsafe(self._wake.set)

    def stop(self, timeout: float = 15.0) -> None:
        """Stop after the update in hand is recorded; an in-flight getUpdates is dropped (its updates stay pending)."""
        self.request_stop()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the polling thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def load_offset(self) -> int | None:
        """The next update_id to ask for, as stored; None before the first update."""
        with self.ctx.reader() as uow:
            value = read_state(uow, key=self.offset_key)
        return int(value) if value is not None else None

    def _store_offset(self, offset: int) -> None:
        with self.ctx.uow(actor="telegram_poller") as uow:
            self._advance(uow, offset)

    def _advance(self, uow: Any, offset: int) -> None:
        current = read_state(uow, key=self.offset_key)
        if current is None or int(current) < offset:  # never move backwards (another poller may be ahead)
            write_state(uow, key=self.offset_key, value=str(offset))

    def _handle(self, update: dict[str, Any]) -> bool:
        """Record one update durably, then advance the offset past it; True if a new fact was written."""
        try:
            press = to_press(update, now=self.ctx.clock.now())
            message = to_inbound(update, self._identity) if press is None else None
        except InvalidUpdate as exc:
            self._skip(update, exc)
            return False
        if press is not None:  # answered once recorded (an ignored one at once, so its button stops spinning)
            ignored = isinstance(press, IgnoredPress)
            answer = PressAnswer("") if ignored else self.inbound.press(press)  # type: ignore[arg-type]
            self._store_offset(int(update["update_id"]) + 1)
            if answer.first:  # a redelivered query was answered by the delivery that recorded it
                answer_quietly(self.sender, press, answer.toast)
            return not ignored and answer.first
        created = self.inbound.record(message) if message is not None else False
        self._store_offset(int(update["update_id"]) + 1)
        return created

    def _skip(self, update: Any, exc: InvalidUpdate) -> None:
        """Move past an update Deputy cannot read, leaving a `system` fact that says which and why."""
        uid = update.get("update_id") if isinstance(update, dict) else None
        log.warning("skipping Telegram update %s that Deputy cannot read: %s", uid, exc)
        if type(uid) is not int:  # nothing to move past; later updates still advance the offset
            return
        # Noted first, then passed over: a crash in between notes it again (once: the note is keyed by update).
        self.inbound.skipped(channel="telegram", event_id=str(uid), reason=str(exc))
        self._store_offset(uid + 1)

    async def _until_stopped(self, work: Awaitable[Any]) -> tuple[bool, Any]:
        task = asyncio.ensure_future(work)
        waiter = asyncio.ensure_future(self._wake.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            waiter.cancel()
            return True, task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return False, None

    async def _poll_once(self, bot: Bot) -> None:
        offset = await asyncio.to_thread(self.load_offset)
        query = {"offset": offset, "timeout": self.poll_timeout, "limit": self.limit, "allowed_updates": ALLOWED}
        wait = self.request_timeout + self.poll_timeout
        fetch = bot.do_api_request("getUpdates", api_kwargs=query, read_timeout=wait)
        finished, updates = await self._until_stopped(fetch)
        if not finished or not updates:
            return
        if not self._identity.username:
            try:
                self._identity = BotIdentity(id=self._identity.id, username=(await bot.get_me()).username)
            except tg.TelegramError as exc:
                log.warning("telegram getMe failed; group @-mentions of the bot are not recognised yet: %s", exc)
        created = False
        for update in updates:
            if self._stopping.is_set():
                break
            created = await asyncio.to_thread(self._handle, update) or created
        if created:
            await asyncio.to_thread(self._notify)

    def _notify(self) -> None:
        try:
            self.inbound.wake()
        except Exception:
            log.exception("a signal listener failed after telegram updates were recorded")

    def _take_lease(self) -> bool:
        try:
            taken = self.lease.acquire()
        except Exception as exc:  # the database is away: no one can be sure to be alone, so no one polls
            if not self._lease_failing:  # once per outage, not at every try
                log.warning("telegram poller: the lease could not be asked for (%s)", type(exc).__name__)
            self._lease_failing = True
            return False
        self._lease_failing = False
        if taken:
            log.info("telegram poller: this replica holds the lease and polls getUpdates")
        self.leading = taken
        return taken

    def _give_up_lease(self) -> None:
        self.leading = False
        try:
            self.lease.release()
        except Exception:  # the lock goes with its connection anyway
            log.warning("telegram poller: the lease was not released cleanly", exc_info=True)

    async def _watch_lease(self) -> None:
        """Ends (and interrupts the poll in hand) once the lease is lost: a poll must not outlive it."""
        while True:
            await asyncio.sleep(self.lease.lease / 3)
            if not await asyncio.to_thread(self.lease.held):
                log.warning("telegram poller: the lease was lost; this replica stops polling")
                self._wake.set()
                return

    async def _lead(self, bot: Bot) -> None:
        """Poll while this replica holds the lease, backing off after failures."""
        failures = 0
        watch = asyncio.ensure_future(self._watch_lease())
        try:
            while not self._stopping.is_set() and not watch.done():
                try:
                    await self._poll_once(bot)
                    failures = 0
                except Exception as exc:  # the poller must outlive any one failure
                    delay = poll_retry_delay(exc, failures, backoff=self.backoff, max_backoff=self.max_backoff)
                    failures += 1
                    await self._until_stopped(asyncio.sleep(delay))
        finally:
            watch.cancel()
            await asyncio.gather(watch, return_exceptions=True)

    async def _main(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        # do_api_request warns that getUpdates has its own method; the raw JSON is what _poll_once wants.
        warnings.filterwarnings("ignore", message=r"Please use 'Bot\.getUpdates'", category=PTBUserWarning)
        timeouts = {
            "read_timeout": self.request_timeout,
            "write_timeout": self.request_timeout,
            "connect_timeout": self.request_timeout,
        }
        requests = [HTTPXRequest(connection_pool_size=2, **timeouts), HTTPXRequest(connection_pool_size=1, **timeouts)]
        bot = Bot(
            self._token,
            base_url=f"{self.api_base}/bot",
            base_file_url=f"{self.api_base}/file/bot",
            request=requests[0],
            get_updates_request=requests[1],
        )
        self._ready.set()
        try:
            while not self._stopping.is_set():
                self._wake.clear()  # a lost lease interrupted the last term; a stop is seen through _stopping
                if self._stopping.is_set():
                    break
                if not await asyncio.to_thread(self._take_lease):
                    await self._until_stopped(asyncio.sleep(self.lease.lease / 3))
                    continue
                try:
                    await self._lead(bot)
                finally:
                    await asyncio.to_thread(self._give_up_lease)
        finally:
            for request in requests:
                await request.shutdown()
            await asyncio.to_thread(self.lease.close)


def start_polling(ctx: AppContext, *, inbound: Inbound, sender: Channel | None = None) -> TelegramPoller | None:
    """Start the poller when DEPUTY_TELEGRAM_MODE=polling and a bot token is set; else None."""
    settings = ctx.settings
    if settings.telegram_mode != "polling" or not settings.telegram_bot_token:
        return None
    log.info("telegram long polling started")
    return TelegramPoller(
        ctx,
        inbound=inbound,
        token=settings.telegram_bot_token.get_secret_value(),
        api_base=settings.telegram_api_base,
        sender=sender,
    ).start()
