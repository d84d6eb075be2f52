"""Functions run in separate OS processes by the concurrency and crash tests (spawn-safe, module level)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from action import service
from action.models import ActionRequest
from app.settings import Settings
from app.wiring import build_context
from channels.base import ChannelHealth, OutboundMessage, SendReceipt
from kernel.clock import FrozenClock
from kernel.context import AppContext
from tests.fakes.memory_channel import MemoryChannel


def build_ctx(database_url: str, start_iso: str) -> AppContext:
    """A context like the service's, with in-memory feishu/telegram channels and a frozen clock."""
    ctx = build_context(
        Settings(_env_file=None, database_url=database_url), clock=FrozenClock(datetime.fromisoformat(start_iso))
    )
    ctx.channels.register(MemoryChannel("feishu"))
    ctx.channels.register(MemoryChannel("telegram"))
    return ctx


def notify_burst(database_url: str, start_iso: str, indexes: list[int], barrier) -> list[str]:
    """Fire one notify per index concurrently (threads) once every process is ready; return the results."""
    ctx = build_ctx(database_url, start_iso)
    requests = [
        ActionRequest(
            action_type="notify",
            decision_ref="dec_20260318_001",
            target_person_id="p_zhangsan",
            text=f"notice {i}",
            notification_type=f"kind_{i}",
        )
        for i in indexes
    ]
    barrier.wait()
    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        results = list(pool.map(lambda r: service.execute(ctx, request=r).result, requests))
    ctx.close()
    return results


class DyingChannel(MemoryChannel):
    """A channel whose send kills the process: the crash between 'decided' and 'sent'."""

    def send(self, message: OutboundMessage) -> SendReceipt:
        os._exit(17)

    def health(self) -> ChannelHealth:
        return ChannelHealth(name=self.name, ok=True)


def notify_and_die(database_url: str, start_iso: str, concern_id: str | None = None) -> None:
    """Reserve a notify (or a concern's send_message) and die inside the channel send."""
    ctx = build_ctx(database_url, start_iso)
    ctx.channels.register(DyingChannel("feishu"))
    ctx.channels.register(DyingChannel("telegram"))
    if concern_id:
        request = ActionRequest(
            action_type="send_message",
            decision_ref=concern_id,
            target_person_id="p_zhangsan",
            text="again?",
            concern_id=concern_id,
        )
    else:
        request = ActionRequest(
            action_type="notify", decision_ref="dec_20260318_001", target_person_id="p_zhangsan", text="never confirmed"
        )
    service.execute(ctx, request=request)


def tick_at(database_url: str, now_iso: str, barrier) -> dict:
    """Run one scheduler tick at `now` once every process is ready."""
    from app.pipeline import tick

    ctx = build_ctx(database_url, now_iso)
    barrier.wait()
    result = tick(ctx)
    ctx.close()
    return result


def polling_replica(settings: dict, name: str, status) -> None:
    """A whole replica (the app and its lifespan) in Telegram polling mode; reports whether it polls until killed."""
    import time

    from fastapi.testclient import TestClient

    from app.main import create_app
    from channels.telegram.polling import TelegramPoller

    ctx = build_context(Settings(_env_file=None, **settings))
    app = create_app(ctx=ctx, run_migrations=False)
    with TestClient(app):
        poller = next(t for t in app.state.transports if isinstance(t, TelegramPoller))
        while True:
            status[name] = poller.leading
            time.sleep(0.05)


def process_timed(database_url: str, start_iso: str, barrier, hold: float) -> list[tuple[int, float, float, int]]:
    """Process the inbox until it is empty, each signal held `hold` seconds; (fact_pk, start, end, pid) per signal.

    CLOCK_MONOTONIC is one clock for every process of the host, so the intervals of several processes compare.
    """
    import time

    from cognitive_core import inbox

    ctx = build_ctx(database_url, start_iso)
    spans: list[tuple[int, float, float, int]] = []
    real = inbox._process

    def timed(uow, entry, people, *rest):  # the rest as the inbox passes them (llm, the phrasings' book)
        start = time.monotonic()
        real(uow, entry, people, *rest)
        uow.session.flush()
        time.sleep(hold)  # widen the window in which another processor could take the same sender's next signal
        spans.append((entry.fact_pk, start, time.monotonic(), os.getpid()))

    inbox._process = timed
    barrier.wait()
    idle = 0
    while idle < 3:
        idle = idle + 1 if inbox.process_pending(ctx, limit=200) == 0 else 0
        time.sleep(0.01 * idle)
    ctx.close()
    return spans
