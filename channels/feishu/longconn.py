"""Feishu long connection (`DEPUTY_FEISHU_MODE=websocket`): lark.ws.Client in its own thread and event loop.

Messages (im.message.receive_v1), read receipts (im.message.message_read_v1) and card button presses
(card.action.trigger) arrive here; a press is answered in the frame's reply with the toast `Inbound.press`
returned. Feishu delivers at least once (an event not answered within 3 s, or sent while no connection is up,
comes again), so every kind is de-duplicated downstream on `event_id`, as webhook redeliveries are; a socket
Feishu stopped answering on is closed by channels/feishu/watchdog.py and the SDK reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.feishu.events import MESSAGE_READ, MESSAGE_RECEIVED, ingest
from channels.feishu.presses import is_press, to_press, toast
from channels.inbound import Inbound

log = logging.getLogger("deputy.channels.feishu.longconn")

OnEvent = Callable[[dict[str, Any]], dict[str, Any] | None]  # a card press's answer (the toast), else None
# Blocks in the calling thread, running `loop`, delivering each event payload to the callback, until the
# connection ends for good or the loop is stopped.
Runner = Callable[[OnEvent, asyncio.AbstractEventLoop], None]


def event_payload(event: Any) -> dict[str, Any]:
    """The webhook-shaped payload of a lark CustomizedEvent, so both transports share one converter."""
    header = event.header
    return {
        "schema": "2.0",
        "header": {
            "event_id": header.event_id,
            "event_type": header.event_type,
            "create_time": header.create_time,
            "app_id": header.app_id,
        },
        "event": event.event,
    }


def dispatcher(on_event: OnEvent) -> Any:
    """A lark event dispatcher handing messages and card presses to `on_event` (ws frames are not signed)."""
    import lark_oapi as lark
    from lark_oapi.core.json import JSON
    from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTriggerResponse

    def pressed(trigger: Any) -> Any:
        # Back to the webhook's JSON shape (the SDK's marshaller gives exactly the keys Feishu sent it).
        return P2CardActionTriggerResponse(on_event(json.loads(JSON.marshal(trigger))) or {})

    return (
        lark.EventDispatcherHandler.builder("", "")
        .register_p2_customized_event(MESSAGE_RECEIVED, lambda e: on_event(event_payload(e)))
        .register_p2_customized_event(MESSAGE_READ, lambda e: on_event(event_payload(e)))
        .register_p2_card_action_trigger(pressed)
        .build()
    )


def lark_runner(settings: Any) -> Runner:
    """A runner over lark-oapi's ws.Client, built inside the connection thread."""

    def run(on_event: OnEvent, loop: asyncio.AbstractEventLoop) -> None:
        import lark_oapi as lark
        import lark_oapi.ws.client as ws_client

        from channels.feishu.watchdog import watched_client_class

        # lark's ws module drives a module-level loop captured at import time; inside uvicorn that is the
        # server's running loop, and start() would fail with "This event loop is already running".
        ws_client.loop = loop
        secret = settings.feishu_app_secret.get_secret_value() if settings.feishu_app_secret else ""
        client = watched_client_class()(
            settings.feishu_app_id,
            secret,
            event_handler=dispatcher(on_event),
            domain=settings.feishu_domain,
            log_level=lark.LogLevel.INFO,
        )
        loop.create_task(client.watch())  # runs once start() runs the loop; cancelled when the loop closes
        client.start()

    return run


class LongConnection:
    """Keeps one long connection alive (reconnecting after `retry_delay`) and hands events to the inbound port."""

    def __init__(self, ctx: Any, *, inbound: Inbound, runner: Runner | None = None, retry_delay: float = 5.0) -> None:
        self.ctx = ctx
        self.inbound = inbound
        self.runner = runner or lark_runner(ctx.settings)
        self.retry_delay = retry_delay
        self.connects = 0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._after: ThreadPoolExecutor | None = None

    @property
    def running(self) -> bool:
        """True while the connection thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def handle(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Record one event durably (the webhook's path), then wake the core off the connection's loop; a card
        press is answered with its toast."""
        try:
            if is_press(payload):
                press = to_press(payload, now=self.ctx.clock.now())
                if press is None:
                    return {}
                answer = toast(self.inbound.press(press).toast)  # in band: a redelivery gets the toast again
                self._wake()
                return answer
            if ingest(payload, bot_open_id=self.ctx.settings.feishu_bot_open_id, inbound=self.inbound):
                self._wake()
            return None
        except Exception:  # lark answers the frame with 500, so Feishu delivers the event again later
            log.exception("feishu long-connection event not recorded")
            raise

    def _wake(self) -> None:
        if self._after is not None:
            self._after.submit(self.inbound.wake)

    def start(self) -> None:
        """Start the connection thread (once)."""
        if self.running:
            return
        self._stopping.clear()
        self._after = ThreadPoolExecutor(max_workers=1, thread_name_prefix="feishu-core")
        self._thread = threading.Thread(target=self._run, name="feishu-longconn", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            while not self._stopping.is_set():
                self.connects += 1
                try:
                    self.runner(self.handle, loop)
                except Exception as exc:  # includes "Event loop stopped before Future completed" on stop()
                    if not self._stopping.is_set():
                        log.warning("feishu long connection ended: %s; reconnecting in %.0fs", exc, self.retry_delay)
                self._stopping.wait(self.retry_delay)
        finally:
            self._loop = None
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            with contextlib.suppress(RuntimeError):  # a late stop() landed first; the tasks are cancelled either way
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reconnecting, stop the loop, and wait for the thread to end."""
        self._stopping.set()
        deadline = time.monotonic() + timeout
        while self.running and time.monotonic() < deadline:
            loop = self._loop  # keep stopping it: the runner may (re)enter run_until_complete meanwhile
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):  # closed meanwhile
                    loop.call_soon_threadsafe(loop.stop)
            self._thread.join(0.05)  # type: ignore[union-attr]
        if self._after is not None:
            self._after.shutdown(wait=False)


def start_long_connection(ctx: Any, *, inbound: Inbound, runner: Runner | None = None) -> LongConnection | None:
    """Start the long connection when DEPUTY_FEISHU_MODE=websocket and the app credentials are set; else None."""
    s = ctx.settings
    if s.feishu_mode != "websocket" or not (s.feishu_app_id and s.feishu_app_secret):
        return None
    connection = LongConnection(ctx, inbound=inbound, runner=runner)
    connection.start()
    return connection
