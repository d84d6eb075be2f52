"""The processor's passes woken for new work do the periodic part (timers, briefs, interrupted actions) at most
every CHORES_EVERY; the interval's passes always do it, and so does the pass after one that stopped at its timer
limit."""

import threading
import time

import pytest

from app import pipeline
from app.pipeline import Processor
from app.wiring import build_context
from tests.conftest import make_settings


class _Passes:
    """Stands in for `tick`: notes each pass's `chores` and answers what the test queues."""

    def __init__(self) -> None:
        self.chores: list[bool] = []
        self.answers: list[dict[str, int]] = []
        self.ran = threading.Condition()

    def __call__(self, _ctx, *, chores: bool = True, **_):
        with self.ran:
            self.chores.append(chores)
            self.ran.notify_all()
        return self.answers.pop(0) if self.answers else {"more": 0, "timers_fired": 0}

    def wait_for(self, count: int) -> list[bool]:
        with self.ran:
            assert self.ran.wait_for(lambda: len(self.chores) >= count, timeout=20), self.chores
            return list(self.chores)


@pytest.fixture
def passes(monkeypatch) -> _Passes:
    fake = _Passes()
    monkeypatch.setattr(pipeline, "tick", fake)
    monkeypatch.setattr(pipeline, "next_wake", lambda _ctx: None)
    return fake


def _processor(ctx, interval: str) -> Processor:
    worker = build_context(make_settings(ctx.settings.database_url, scheduler_interval=interval), clock=ctx.clock)
    processor = Processor(worker, threaded=True)
    processor.start()
    return processor


def test_passes_woken_for_signals_do_the_periodic_work_at_most_every_second(ctx, passes):
    processor = _processor(ctx, "1h")
    try:
        processor.wake()
        assert passes.wait_for(1) == [True]  # never done yet: the first pass does it
        processor.wake()
        assert passes.wait_for(2) == [True, False]  # done a moment ago: this pass only takes the new work
        processor._chores_at = time.monotonic() - pipeline.CHORES_EVERY  # a second has gone by
        processor.wake()
        assert passes.wait_for(3) == [True, False, True]
    finally:
        processor.stop()
        processor.ctx.close()


def test_the_interval_pass_always_does_the_periodic_work(ctx, passes):
    processor = _processor(ctx, "1s")
    try:
        processor.wake()
        passes.wait_for(1)
        processor._chores_at = time.monotonic() + 3600  # as if just done, for an hour: only the interval decides
        assert passes.wait_for(2)[1] is True  # nobody woke it: the interval's pass
    finally:
        processor.stop()
        processor.ctx.close()


def test_a_pass_stopped_at_its_timer_limit_is_followed_by_one_that_fires_the_rest(ctx, passes):
    passes.answers.append({"more": 1, "timers_fired": pipeline.TIMERS_PER_PASS})
    processor = _processor(ctx, "1h")
    try:
        processor.wake()
        assert passes.wait_for(2) == [True, True]  # the second pass, at once and within the second, fires the rest
    finally:
        processor.stop()
        processor.ctx.close()


def test_a_tick_without_the_periodic_part_leaves_due_timers_for_a_later_pass(ctx, monkeypatch):
    fired: list[int] = []
    monkeypatch.setattr(pipeline.timers, "fire_due", lambda _ctx, limit: fired.append(limit) or 0)
    result = pipeline.tick(ctx, chores=False)
    assert fired == [] and result["timers_fired"] == 0 and result["more"] == 0
    pipeline.tick(ctx)
    assert fired == [pipeline.TIMERS_PER_PASS]
