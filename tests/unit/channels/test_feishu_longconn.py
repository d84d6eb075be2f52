"""Long-connection glue: lark's dispatcher hands over the webhook's payload; the thread starts, reconnects and stops."""

from __future__ import annotations

import asyncio
import json
import threading
from types import SimpleNamespace

from app.settings import Settings
from channels.feishu.events import to_inbound
from channels.feishu.longconn import LongConnection, dispatcher, start_long_connection
from tests.fakes.feishu_server import mention, message_event

BOT = "ou_bot"


def settings(**kw) -> Settings:
    return Settings(_env_file=None, feishu_app_id="cli_x", feishu_app_secret="s", **kw)


def test_lark_dispatcher_delivers_a_payload_that_converts_exactly_like_the_webhook_body():
    raw = message_event(
        chat_type="group",
        text="@_user_1 /concerns",
        parent_id="om_9",
        mentions=[mention("@_user_1", BOT, "Deputy", bot=True)],
    )
    received: list[dict] = []
    # What lark.ws.Client does with every event frame's payload.
    dispatcher(received.append)._do_without_validation(json.dumps(raw).encode())
    [payload] = received
    assert to_inbound(payload, bot_open_id=BOT) == to_inbound(raw, bot_open_id=BOT)
    assert to_inbound(payload, bot_open_id=BOT).mentions_bot is True


def test_the_runner_gets_its_own_thread_and_event_loop_and_stop_ends_both():
    seen: dict = {}
    started = threading.Event()

    def runner(on_event, loop: asyncio.AbstractEventLoop) -> None:
        seen.update(thread=threading.current_thread(), loop=loop, on_event=on_event)
        started.set()
        loop.run_until_complete(asyncio.sleep(3600))  # like lark: run the loop until the connection ends

    connection = LongConnection(SimpleNamespace(settings=settings()), inbound=SimpleNamespace(), runner=runner)
    connection.start()
    assert started.wait(10)
    assert connection.running and seen["thread"] is not threading.main_thread()
    assert seen["on_event"] == connection.handle
    connection.stop()
    assert not connection.running and seen["loop"].is_closed() and connection.connects == 1


def test_a_connection_that_ends_is_started_again_until_stopped():
    third = threading.Event()

    def runner(on_event, loop) -> None:
        if connection.connects < 3:
            raise ConnectionError("server closed the connection")
        third.set()
        loop.run_until_complete(asyncio.sleep(3600))

    connection = LongConnection(
        SimpleNamespace(settings=settings()), inbound=SimpleNamespace(), runner=runner, retry_delay=0
    )
    connection.start()
    assert third.wait(10)
    connection.stop()
    assert not connection.running and connection.connects == 3


def test_the_long_connection_starts_only_in_websocket_mode_with_credentials():
    blocking = lambda on_event, loop: loop.run_until_complete(asyncio.sleep(3600))  # noqa: E731
    assert (
        start_long_connection(SimpleNamespace(settings=settings()), inbound=SimpleNamespace(), runner=blocking) is None
    )
    assert (
        start_long_connection(
            SimpleNamespace(settings=Settings(_env_file=None, feishu_mode="websocket")),
            inbound=SimpleNamespace(),
            runner=blocking,
        )
        is None
    )
    connection = start_long_connection(
        SimpleNamespace(settings=settings(feishu_mode="websocket")), inbound=SimpleNamespace(), runner=blocking
    )
    try:
        assert connection is not None and connection.running
    finally:
        connection.stop()
    assert not connection.running


def test_the_watchdog_waits_two_and_a_half_ping_intervals_of_silence():
    from channels.feishu.watchdog import check_period, silent_too_long

    assert not silent_too_long(heard=0, now=300, ping_interval=120)  # production: 300 s of silence is the limit
    assert silent_too_long(heard=0, now=300.1, ping_interval=120)
    assert silent_too_long(heard=0, now=2.6, ping_interval=0)  # a zero interval from the server counts as 1 s
    assert check_period(120) == 5.0 and check_period(1) == 0.25
