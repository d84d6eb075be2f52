"""The real lark.ws.Client against a fake Feishu long connection: reconnects lose and double no event.

Each test runs Deputy's long connection as `deputy serve` does (start_long_connection: endpoint discovery, the
websocket, the frame protocol) and counts what reached the fact log.
"""

from __future__ import annotations

import inspect
import time

import pytest
from sqlalchemy import select

from app.inbound import PerceptionInbound
from app.wiring import build_context
from channels.feishu.longconn import start_long_connection
from fact.models import Fact
from tests.conftest import make_settings
from tests.fakes import feishu_server as fs
from tests.fakes.feishu_ws import WS_CONFIG
from tests.integration.action_helpers import add_person

FAST_PINGS = {**WS_CONFIG, "PingInterval": 1}  # the watchdog's silence limit is then 2.5 s


@pytest.fixture
def fake():
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


@pytest.fixture
def ctx(database_url, clock, fake):
    import lark_oapi.ws.client as ws_client

    settings = make_settings(
        database_url, feishu_app_id=fs.APP_ID, feishu_app_secret=fs.APP_SECRET, feishu_bot_open_id="ou_bot"
    )
    settings.feishu_mode, settings.feishu_domain = "websocket", fake.domain
    context = build_context(settings, clock=clock)
    add_person(context, bindings=[{"channel": "feishu", "external_user_id": "ou_zhangsan"}])
    captured = ws_client.loop
    yield context
    ws_client.loop = captured
    context.close()


def recorded(ctx) -> list[str]:
    """The event ids of the messages in the fact log, in write order."""
    with ctx.reader() as uow:
        facts = uow.session.scalars(select(Fact).where(Fact.fact_type == "message_received").order_by(Fact.pk))
        return [fact.content["event_id"] for fact in facts]


def wait_for(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(condition())


def event(n: int) -> dict:
    return fs.message_event(event_id=f"ev_{n}", message_id=f"om_in_{n}", text=f"第{n}条")


def discoveries(fake) -> int:
    return sum(1 for r in fake.requests if r.path == "/callback/ws/endpoint")


def connected(ctx, fake, config=None):
    ws = fake.start_long_connection(config)
    connection = start_long_connection(ctx, inbound=PerceptionInbound(ctx))
    assert connection is not None and ws.wait_connections(1)
    return ws, connection


def test_events_sent_while_feishu_closed_the_socket_arrive_once_after_the_reconnect(ctx, fake):
    ws, connection = connected(ctx, fake)
    try:
        assert ws.push(event(1))["code"] == 200
        ws.drop()  # a Feishu deploy: 1001 going away
        answers = [ws.deliver(event(n)) for n in (2, 3)]  # while the client reconnects
        assert ws.wait_connections(2)
        assert all(answer.result(10)["code"] == 200 for answer in answers)
        assert wait_for(lambda: len(recorded(ctx)) == 3)
    finally:
        connection.stop()
    assert recorded(ctx) == ["ev_1", "ev_2", "ev_3"] and ws.pending() == 0
    assert discoveries(fake) == 2  # the reconnect asked the endpoint again, as the SDK must


def test_an_event_whose_answer_was_lost_comes_again_and_is_recorded_once(ctx, fake):
    ws, connection = connected(ctx, fake)
    try:
        ws.lose_next_answer()
        answer = ws.deliver(event(1))
        assert ws.wait_connections(2) and answer.result(10)["code"] == 200
        assert ws.push(event(2))["code"] == 200
    finally:
        connection.stop()
    assert ws.sent.count("msg-1") == 2  # Deputy saw it twice
    assert recorded(ctx) == ["ev_1", "ev_2"]  # and wrote it once


def test_a_half_open_socket_is_closed_by_the_watchdog_and_nothing_sent_meanwhile_is_lost(ctx, fake):
    ws, connection = connected(ctx, fake, FAST_PINGS)
    try:
        assert wait_for(lambda: ws.pings >= 1)  # the client pings and gets its pong (with the config)
        ws.stall()  # the TCP connection stays; nothing comes back, not even a websocket pong
        answer = ws.deliver(event(1))  # Feishu holds it: no connection is up on its side
        assert ws.wait_connections(2, timeout=30) and answer.result(10)["code"] == 200
    finally:
        connection.stop()
    assert recorded(ctx) == ["ev_1"]


def test_feishu_s_pings_keep_a_quiet_but_healthy_connection_open(ctx, fake):
    ws, connection = connected(ctx, fake, FAST_PINGS)
    try:
        assert wait_for(lambda: ws.pings >= 4, timeout=30)  # well past the 2.5 s silence limit, no event sent
        assert ws.connections == 1
        assert ws.push(event(1))["code"] == 200
    finally:
        connection.stop()
    assert recorded(ctx) == ["ev_1"]


def test_the_sdk_leaves_the_websocket_keepalive_on():
    import websockets
    from lark_oapi.ws.client import _ws_connect_kwargs

    # A half-open socket is found by websockets' own ping/pong: the SDK must not turn it off, and its defaults
    # (the bound docs/operations.md gives) must still be 20 s + 20 s.
    kwargs = _ws_connect_kwargs({"x": "y"})
    assert "ping_interval" not in kwargs and "ping_timeout" not in kwargs
    params = inspect.signature(websockets.connect).parameters
    assert (params["ping_interval"].default, params["ping_timeout"].default) == (20, 20)
