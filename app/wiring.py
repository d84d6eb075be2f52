"""The composition root's wiring: the application context built from settings, and the channels it sends through."""

from __future__ import annotations

from typing import Any

from app import plugins
from app.settings import Settings
from channels.base import ChannelRegistry
from kernel import catalogue
from kernel.clock import Clock, SystemClock
from kernel.context import AppContext
from kernel.db import Database
from kernel.redis_guard import guarded_client


def default_channels(settings: Settings | None = None, *, redis: Any = None) -> ChannelRegistry:
    """One sender per configured plugin, or a dry-run stand-in where DEPUTY_DRY_RUN_CHANNELS says."""
    return plugins.senders(settings or Settings(_env_file=None), redis=redis)


def build_context(
    settings: Settings,
    *,
    clock: Clock | None = None,
    channels: ChannelRegistry | None = None,
    context_class: type[AppContext] = AppContext,
) -> AppContext:
    """Create the context from settings (no connections are opened yet)."""
    catalogue.set_default_locale(settings.default_locale)
    redis: Any = None
    if settings.redis_url:
        # The one Redis client of the process: de-duplication, pacing and wake-ups all use it, each call bounded
        # by DEPUTY_REDIS_TIMEOUT_MS and skipped for a while once Redis keeps failing.
        redis = guarded_client(
            settings.redis_url,
            timeout=settings.redis_timeout_ms / 1000,
            cooldown=settings.redis_retry_after.total_seconds(),
        )
    classifier = None
    if settings.llm_base_url:
        from cognitive_core.llm.client import OpenAICompatibleLLM

        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        classifier = OpenAICompatibleLLM(
            settings.llm_base_url, api_key=key, model=settings.llm_model, timeout=settings.llm_timeout.total_seconds()
        )
    return context_class(
        settings=settings,
        db=Database(settings.database_url),
        clock=clock or SystemClock(),
        redis=redis,
        channels=channels or default_channels(settings, redis=redis),
        classifier=classifier,
        calendar=plugins.calendar(settings),  # DEPUTY_FEISHU_CALENDAR: busy time, read before P2/P3 contacts
    )
