"""Long connection end to end: events become the same facts as by webhook; the real lark client starts and stops."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from sqlalchemy import select

from app.inbound import PerceptionInbound
from app.wiring import build_context
from channels.feishu.longconn import LongConnection, start_long_connection
from fact.models import Fact
from tests.conftest import make_settings
from tests.fakes import feishu_server as fs
from tests.integration.action_helpers import add_person

TOKEN = "vtoken"


@pytest.fixture
def ctx(database_url, clock):
    """Context with a verification token (plain webhook) and websocket mode credentials."""
    context = build_context(
        make_settings(
            database_url,
            feishu_verification_token=TOKEN,
            feishu_app_id=fs.APP_ID,
            feishu_app_secret=fs.APP_SECRET,
            feishu_bot_open_id="ou_bot",
        ),
        clock=clock,
    )
    yield context
    context.close()


def message_facts(ctx) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == "message_received").order_by(Fact.pk)))


def feeding(*payloads: dict):
    """A runner that delivers `payloads` like a connection would, then keeps the loop running."""

    def runner(on_event, loop) -> None:
        for payload in payloads:
            on_event(payload)
        loop.run_until_complete(asyncio.sleep(3600))

    return runner


def wait_for(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def test_a_long_connection_event_becomes_the_same_fact_as_a_webhook_event(ctx, client):
    add_person(ctx, bindings=[{"channel": "feishu", "external_user_id": "ou_zhangsan"}])
    woken = threading.Event()
    ctx.signal_listeners.append(lambda _: woken.set())
    mentions = [fs.mention("@_user_1", "ou_bot", "Deputy", bot=True)]
    by_socket = fs.message_event(
        event_id="ev_ws", chat_type="group", text="@_user_1 /concerns", mentions=mentions, token=TOKEN
    )
    by_webhook = fs.message_event(
        event_id="ev_http", chat_type="group", text="@_user_1 /concerns", mentions=mentions, token=TOKEN
    )
    connection = LongConnection(
        ctx, inbound=PerceptionInbound(ctx), runner=feeding(by_socket, by_socket)
    )  # delivered twice: recorded once
    connection.start()
    try:
        assert wait_for(lambda: len(message_facts(ctx)) == 1) and woken.wait(10)
    finally:
        connection.stop()
    assert client.post("/webhooks/feishu", json=by_webhook).status_code == 200
    socket_fact, webhook_fact = message_facts(ctx)
    assert {**socket_fact.content, "event_id": "ev_http"} == webhook_fact.content
    assert (
        socket_fact.person_refs == webhook_fact.person_refs == ["p_zhangsan"]
        and socket_fact.content["mentions_bot"] is True
    )


def test_the_real_lark_client_runs_in_its_own_loop_and_stops(ctx):
    import lark_oapi.ws.client as ws_client

    # As if lark had first been imported inside uvicorn: its module-level loop is another thread's running loop.
    server_loop = asyncio.new_event_loop()
    threading.Thread(target=server_loop.run_forever, daemon=True).start()
    captured, ws_client.loop = ws_client.loop, server_loop
    fake = (
        fs.FakeFeishu().start()
    )  # it has no long-connection endpoint: lark asks for one, is refused and waits to retry
    ctx.settings.feishu_mode, ctx.settings.feishu_domain = "websocket", fake.domain
    try:
        connection = start_long_connection(ctx, inbound=PerceptionInbound(ctx))
        assert connection is not None
        assert wait_for(lambda: any(r.path == "/callback/ws/endpoint" for r in fake.requests))
        connection.stop()
        assert not connection.running
    finally:
        fake.stop()
        ws_client.loop = captured
        server_loop.call_soon_threadsafe(server_loop.stop)
