"""A private asyncio event loop on a daemon thread, so synchronous code can drive the async Telegram SDK."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

log = logging.getLogger("deputy.channels.telegram")
T = TypeVar("T")


class LoopThread:
    """Runs coroutines on one event loop owned by a daemon thread, started on first use."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, factory: Callable[[], Awaitable[T]], *, timeout: float) -> T:
        """Run `factory()` on the loop and wait at most `timeout` s (concurrent.futures.TimeoutError after)."""
        loop = self._ensure()

        async def call() -> T:
            return await factory()

        future = asyncio.run_coroutine_threadsafe(call(), loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    @property
    def running(self) -> bool:
        """Whether the loop thread has been started and not closed."""
        return self._loop is not None

    def close(self, final: Callable[[], Awaitable[Any]] | None = None) -> None:
        """Run `final()` (resource clean-up) on the loop, then stop and join the thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            return
        if final is not None:
            try:
                asyncio.run_coroutine_threadsafe(final(), loop).result(5)
            except Exception:  # clean-up must not prevent the stop
                log.warning("telegram loop clean-up failed", exc_info=True)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(5)
        if not loop.is_running():
            loop.close()
