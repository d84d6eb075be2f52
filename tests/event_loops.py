"""Awaiting a coroutine from a synchronous test."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """`asyncio.run(coroutine)` on a thread of its own: the browser tests' Playwright (sync API) keeps an event loop
    running in the worker's main thread for the session, where `asyncio.run` refuses to start another."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
