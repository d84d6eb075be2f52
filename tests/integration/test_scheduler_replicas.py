"""Two scheduler processes ticking the same due concern send one follow-up."""

import multiprocessing
import threading
from datetime import timedelta

import pytest
from sqlalchemy import select

from action.models import ActionRow
from concern import service, timers
from tests.integration.story_helpers import say
from tests.integration.workers import tick_at


@pytest.mark.slow
def test_two_schedulers_ticking_the_same_due_concern_send_once(ctx, clock, team):
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    due = clock.advance(timedelta(hours=4, minutes=1))
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Manager().Barrier(2)
    with spawn.Pool(2) as pool:
        results = pool.starmap(tick_at, [(ctx.settings.database_url, due.isoformat(), barrier)] * 2)
    assert sorted(r["timers_fired"] for r in results) == [0, 1]
    with ctx.reader() as uow:
        sends = list(
            uow.session.scalars(
                select(ActionRow).where(
                    ActionRow.target_person_id == "p_zhangsan", ActionRow.action_type == "send_message"
                )
            )
        )
    assert [s.result for s in sends] == ["success", "success"]  # the question, then exactly one follow-up


def test_a_replica_fires_other_due_concerns_while_one_is_being_fired(ctx, clock, team, database_url):
    if database_url.startswith("sqlite"):
        pytest.skip("SQLite has one writer at a time: there is no second replica firing alongside")
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi P1 周报写完了吗？")
    clock.advance(timedelta(hours=4, minutes=1))
    firing, go = threading.Event(), threading.Event()
    real = timers.fire

    def slow_fire(uow, concern):
        firing.set()
        assert go.wait(30)
        return real(uow, concern)

    timers.fire = slow_fire
    try:
        first = threading.Thread(target=timers.fire_due, args=(ctx,), daemon=True)
        first.start()
        assert firing.wait(30)
        with ctx.uow(actor="scheduler") as uow:  # another replica's claim while the first concern is mid-fire
            others = service.claim_due(uow, now=uow.now, limit=10)
        go.set()
        first.join(30)
    finally:
        timers.fire = real
        go.set()
    assert len(others) == 1  # one concern per transaction: only the one being fired is locked
