"""Simulated processes: the service's own AppContext, its transactions instrumented with checkpoints."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.wiring import build_context
from channels.telegram.pacing import Pacer
from kernel.clock import FrozenClock
from kernel.context import AppContext, UnitOfWork
from person.calendar import Calendar
from tests.fakes.telegram_server import FakeTelegram
from tests.simulation.platform import Platform, RealTelegram, SimChannel
from tests.simulation.scheduler import Scheduler


@dataclass
class SimContext(AppContext):
    """The real AppContext whose every transaction starts at a checkpoint of the simulation's scheduler.

    A checkpoint only parks a thread that holds no transaction (nested readers do not park), so a parked
    thread never holds a lock another thread could wait for.
    """

    scheduler: Scheduler | None = None
    _depth: threading.local = field(default_factory=threading.local)

    def _enter(self, label: str) -> None:
        depth = getattr(self._depth, "n", 0)
        if depth == 0 and self.scheduler is not None:
            self.scheduler.checkpoint(label)
        self._depth.n = depth + 1

    def _leave(self) -> None:
        self._depth.n -= 1

    @contextmanager
    def uow(self, *, actor: str = "system") -> Iterator[UnitOfWork]:
        """A checkpoint, then the real write transaction."""
        self._enter(f"uow:{actor}")
        try:
            with super().uow(actor=actor) as uow:
                yield uow
        finally:
            self._leave()

    @contextmanager
    def reader(self) -> Iterator[UnitOfWork]:
        """A checkpoint, then the real read transaction."""
        self._enter("read")
        try:
            with super().reader() as uow:
                yield uow
        finally:
            self._leave()


def sim_pacer(clock: FrozenClock) -> Pacer:
    """The Telegram pacer on the simulation's clock; its short waits take no simulated time.

    So sends in one instant really are at the same moment for the pacer: a third one to a chat within a
    second finds no slot, as three concurrent sends would. Always in-process: pacing through Redis keeps
    time on Redis's own clock, which no simulation can freeze (the channel tests cover it); with
    DEPUTY_REDIS_URL the replicas still use Redis for everything else.
    """
    now = lambda: clock.now().timestamp()  # noqa: E731
    try:
        return Pacer(namespace="sim", clock=now, sleep=lambda _: None)
    except TypeError:  # a pacer from before its clock was injectable: give its module the simulated time
        import channels.telegram.pacing as pacing

        pacing.time = SimpleNamespace(monotonic=now, sleep=lambda _: None)
        return Pacer(namespace="sim")


@dataclass
class Replica:
    """One simulated process of the service: its context, channels and HTTP client."""

    name: str
    ctx: SimContext
    client: TestClient
    generation: int = 1

    def close(self) -> None:
        """Release connections (the process is gone)."""
        self.client.close()
        self.ctx.close()


def start(
    name: str,
    settings: Settings,
    clock: FrozenClock,
    platform: Platform,
    scheduler: Scheduler,
    *,
    generation: int = 1,
    telegram: FakeTelegram | None = None,
    busy: Any = None,
) -> Replica:
    """A fresh process over the shared database, clock and platform (Telegram over HTTP when `telegram` is given)."""
    ctx = build_context(settings, clock=clock, context_class=SimContext)
    ctx.scheduler = scheduler
    if busy is not None:  # meetings (tests/simulation/meetings): each process keeps its own copy, as in service
        ctx.calendar = Calendar([busy])
    if telegram is not None:
        token = settings.telegram_bot_token.get_secret_value()
        ctx.channels.register(RealTelegram(telegram, token, platform, scheduler, pacer=sim_pacer(clock)))
    else:
        ctx.channels.register(SimChannel("telegram", platform, scheduler, pacer=sim_pacer(clock)))
    ctx.channels.register(SimChannel("feishu", platform, scheduler))
    client = TestClient(create_app(ctx=ctx, run_migrations=False), raise_server_exceptions=False)
    return Replica(name=name, ctx=ctx, client=client, generation=generation)
