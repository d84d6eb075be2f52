"""The processor's passes woken for new work do the periodic part (timers, briefs, interrupted actions) at most
every CHORES_EVERY; the interval's passes always do it, and so does the pass after one that stopped at a limit of
it (a few timers, briefs, digests per pass). A pass that does it sends the signals' replies first. A wake-up that
finds the processor idle is taken at once; wake-ups that arrive while a pass runs settle first."""

import threading
import time
from datetime import timedelta

import pytest

from app import pipeline
from app.pipeline import Processor
from app.wiring import build_context
from tests.conftest import make_settings
from tests.integration.story_helpers import say


class _Passes:
    """Stands in for `tick`: notes each pass's `chores` and answers what the test queues."""

    def __init__(self) -> None:
        self.chores: list[bool] = []
        self.interrupted: list = []  # each pass's `interrupted`: whether new work waits
        self.answers: list[dict[str, int]] = []
        self.ran = threading.Condition()
        self.entered, self.go_on = threading.Event(), threading.Event()
        self.go_on.set()

    def __call__(self, _ctx, *, chores: bool = True, interrupted=None, **_):
        with self.ran:
            self.chores.append(chores)
            self.interrupted.append(interrupted)
            self.ran.notify_all()
        self.entered.set()
        assert self.go_on.wait(20), "the test never let the pass end"
        return self.answers.pop(0) if self.answers else {"more": 0, "chores_left": 0}

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


def test_a_pass_stopped_at_a_limit_of_its_periodic_part_is_followed_by_one_that_does_the_rest(ctx, passes):
    passes.answers.append({"more": 1, "chores_left": 1})
    processor = _processor(ctx, "1h")
    try:
        processor.wake()
        assert passes.wait_for(2) == [True, True]  # the second pass, at once and within the second, fires the rest
    finally:
        processor.stop()
        processor.ctx.close()


def test_a_tick_without_the_periodic_part_leaves_due_timers_for_a_later_pass(ctx, monkeypatch):
    fired: list[int] = []
    monkeypatch.setattr(pipeline.timers, "fire_due", lambda _ctx, portion: fired.append(portion.limit) or 0)
    result = pipeline.tick(ctx, chores=False)
    assert fired == [] and result["timers_fired"] == 0 and result["more"] == 0
    pipeline.tick(ctx)
    assert fired == [pipeline.TIMERS_PER_PASS]


def _help_from_the_boss(ctx) -> None:
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？", process=False)


def test_a_pass_with_the_periodic_work_sends_the_signals_messages_before_it(ctx, team, monkeypatch):
    _, telegram = team
    asked_before_timers: list[int] = []
    fire_due = pipeline.timers.fire_due

    def timers_looked_at(ctx, *, portion):
        asked_before_timers.append(len(telegram.texts_to("tg_zs")))
        return fire_due(ctx, portion=portion)

    monkeypatch.setattr(pipeline.timers, "fire_due", timers_looked_at)
    _help_from_the_boss(ctx)
    pipeline.tick(ctx)
    assert asked_before_timers and asked_before_timers[0] == 1  # the question went out before any timer was fired


def test_a_follow_up_a_timer_fires_is_sent_in_the_same_pass(ctx, clock, team):
    _, telegram = team
    _help_from_the_boss(ctx)
    pipeline.tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 1
    for _ in range(72):  # an hour at a time until the follow-up goes out
        clock.advance(timedelta(hours=1))
        result = pipeline.tick(ctx)
        if len(telegram.texts_to("tg_zs")) > 1:
            break
    assert len(telegram.texts_to("tg_zs")) == 2, "no follow-up in three days"
    assert result["timers_fired"] >= 1  # the pass that fired the timer sent what it queued


def test_a_wake_up_that_finds_the_processor_idle_is_taken_at_once_and_one_during_a_pass_settles(ctx, passes):
    settled_before: list[int] = []
    processor = _processor(ctx, "1h")
    processor._settle = lambda: settled_before.append(len(passes.chores))  # type: ignore[method-assign]
    try:
        processor.wake()
        passes.wait_for(1)
        processor.wake()
        passes.wait_for(2)
        assert settled_before == []  # each found the processor idle: taken at once, no wait for more
        passes.entered.clear()
        passes.go_on.clear()
        processor.wake()
        assert passes.entered.wait(20)  # the third pass is running: what arrives now is a stream
        processor.wake()
        passes.go_on.set()
        passes.wait_for(4)
        assert settled_before == [3]  # the fourth pass waited for the wake-ups to pause
    finally:
        passes.go_on.set()
        processor.stop()
        processor.ctx.close()


def test_a_wake_up_during_a_pass_tells_it_that_new_work_waits(ctx, passes):
    processor = _processor(ctx, "1h")
    try:
        passes.go_on.clear()
        processor.wake()
        assert passes.entered.wait(20)
        waiting = passes.interrupted[0]
        assert waiting() is False  # nothing arrived since the pass began: it takes its full portions
        processor.wake()
        assert waiting() is True  # a webhook meanwhile: the periodic part leaves the rest to the next pass
    finally:
        passes.go_on.set()
        processor.stop()
        processor.ctx.close()


def test_without_a_thread_a_pass_run_now_is_followed_by_the_passes_its_limits_left(ctx, passes):
    passes.answers += [{"more": 1, "chores_left": 1}, {"more": 1, "chores_left": 1}]
    processor = Processor(ctx, threaded=False)
    processor.run_now()  # the tick endpoint with the scheduler off (a cron calls it)
    assert passes.chores == [True, True, True]  # the two cut short, then one that found nothing left


def test_a_pass_run_now_beside_the_thread_wakes_it_for_what_its_limits_left(ctx, passes):
    processor = _processor(ctx, "1h")
    try:
        passes.wait_for(0)
        passes.answers.append({"more": 1, "chores_left": 1})
        processor.run_now()
        assert passes.wait_for(2)[1] is True  # the thread took the rest at once, periodic part included
    finally:
        processor.stop()
        processor.ctx.close()
