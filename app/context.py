"""The running service's shared parts and the unit of work every use case runs in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session

from app.clock import Clock, SystemClock
from app.db import Database
from app.settings import Settings
from channels.base import ChannelRegistry


def default_channels(settings: Settings | None = None) -> ChannelRegistry:
    """`internal` with its operations, plus dry-run stand-ins for channels listed in DEPUTY_DRY_RUN_CHANNELS."""
    from action.operations import register_all
    from channels.dryrun import DryRunChannel
    from channels.internal import InternalChannel

    registry = ChannelRegistry([register_all(InternalChannel())])
    for name in settings.dry_run_channels if settings else []:
        registry.register(DryRunChannel(name))
    if settings and settings.telegram_bot_token and "telegram" not in settings.dry_run_channels:
        from channels.telegram import TelegramChannel

        registry.register(TelegramChannel.from_settings(settings))
    if settings and settings.feishu_app_id and settings.feishu_app_secret and "feishu" not in settings.dry_run_channels:
        from channels.feishu import FeishuChannel

        registry.register(FeishuChannel.from_settings(settings))
    return registry


@dataclass
class UnitOfWork:
    """One transaction plus the one instant and actor the use case runs under."""

    session: Session
    now: datetime
    tz: ZoneInfo
    actor: str
    settings: Settings

    @property
    def postgres(self) -> bool:
        """True on PostgreSQL (row locks, SKIP LOCKED, advisory locks); SQLite has one writer at a time instead."""
        return self.session.get_bind().dialect.name == "postgresql"


@dataclass
class AppContext:
    """Settings, database, clock and optional Redis: built once per process."""

    settings: Settings
    db: Database
    clock: Clock = field(default_factory=SystemClock)
    redis: Any = None
    channels: ChannelRegistry = field(default_factory=lambda: default_channels())
    # Called (with this context) after a signal fact is durable; the core's processor subscribes here.
    signal_listeners: list[Callable[["AppContext"], None]] = field(default_factory=list)
    classifier: Any = None  # optional LLM classifier (cognitive_core.llm), off unless DEPUTY_LLM_BASE_URL is set

    @classmethod
    def build(cls, settings: Settings, *, clock: Clock | None = None, channels: ChannelRegistry | None = None) -> "AppContext":
        """Create the context from settings (no connections are opened yet)."""
        redis = None
        if settings.redis_url:
            import redis as redis_lib

            redis = redis_lib.Redis.from_url(settings.redis_url, socket_timeout=2, socket_connect_timeout=2)
        classifier = None
        if settings.llm_base_url:
            from cognitive_core.llm import OpenAICompatibleClassifier

            key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
            classifier = OpenAICompatibleClassifier(settings.llm_base_url, api_key=key, model=settings.llm_model, timeout=settings.llm_timeout.total_seconds())
        return cls(settings=settings, db=Database(settings.database_url), clock=clock or SystemClock(), redis=redis,
                   channels=channels or default_channels(settings), classifier=classifier)

    @contextmanager
    def uow(self, *, actor: str = "system") -> Iterator[UnitOfWork]:
        """A write transaction: commits when the block ends, rolls back on error."""
        with self.db.write() as session:
            yield UnitOfWork(session=session, now=self.clock.now(), tz=self.settings.tz, actor=actor, settings=self.settings)

    @contextmanager
    def reader(self) -> Iterator[UnitOfWork]:
        """A read-only transaction with the same shape as a unit of work."""
        with self.db.read() as session:
            yield UnitOfWork(session=session, now=self.clock.now(), tz=self.settings.tz, actor="reader", settings=self.settings)

    def signal_recorded(self) -> None:
        """Tell subscribers that new signal facts wait in the inbox (run after the HTTP answer)."""
        for listener in list(self.signal_listeners):
            listener(self)

    def close(self) -> None:
        """Release connections."""
        self.channels.close()
        if self.classifier is not None:
            self.classifier.close()
        self.db.dispose()
        if self.redis is not None:
            self.redis.close()
