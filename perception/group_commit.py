"""Group commit for inbound messages: concurrent requests share one write transaction and one commit.

The first request to arrive while no batch is being written becomes the writer: it takes every message queued
so far (its own included), records them in one transaction, and hands each caller its outcome. Requests that
arrive meanwhile wait, and one of them writes the next batch. Nobody is answered before their message is
committed; a batch that fails is rolled back and its messages are recorded one transaction each, so one bad
message fails only its own request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kernel.context import AppContext, UnitOfWork

T = TypeVar("T")
R = TypeVar("R")

MAX_BATCH = 64  # bounds how long the write lock is held for one batch


@dataclass
class _Item(Generic[T]):
    value: T
    done: bool = False
    result: Any = None
    error: BaseException | None = None

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


class GroupCommit(Generic[T, R]):
    """Runs `write(uow, value)` for values from many threads, batched into shared units of work."""

    def __init__(self, ctx: AppContext, write: Callable[[UnitOfWork, T], R], *, actor: str) -> None:
        self.ctx, self._write, self._actor = ctx, write, actor
        self._cond = threading.Condition()
        self._queue: list[_Item[T]] = []
        self._writing = False
        self.batches = 0  # written transactions, for tests and the benchmark

    def submit(self, value: T) -> R:
        """Record `value` (in some batch) and return what `write` returned for it, once committed."""
        item: _Item[T] = _Item(value)
        with self._cond:
            self._queue.append(item)
            while not item.done and self._writing:
                self._cond.wait()
            if item.done:
                return item.outcome()
            self._writing = True
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
        try:
            self._run(batch)
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
        return item.outcome()

    def _run(self, batch: list[_Item[T]]) -> None:
        try:
            with self.ctx.uow(actor=self._actor) as uow:
                results = [self._write(uow, item.value) for item in batch]
            self.batches += 1
        except Exception as exc:
            if len(batch) == 1:
                self._finish(batch[0], error=exc)
                return
            for item in batch:  # find the bad one: each alone
                try:
                    with self.ctx.uow(actor=self._actor) as uow:
                        result = self._write(uow, item.value)
                    self.batches += 1
                    self._finish(item, result=result)
                except Exception as single:
                    self._finish(item, error=single)
            return
        for item, result in zip(batch, results, strict=True):
            self._finish(item, result=result)

    def _finish(self, item: _Item[T], *, result: Any = None, error: BaseException | None = None) -> None:
        with self._cond:
            item.result, item.error, item.done = result, error, True
            self._cond.notify_all()
