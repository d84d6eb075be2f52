"""Two scheduler processes ticking the same due concern send one follow-up."""

import multiprocessing
from datetime import timedelta

import pytest
from sqlalchemy import select

from action.models import ActionRow
from tests.integration.story_helpers import say
from tests.integration.workers import tick_at


@pytest.mark.slow
def test_two_schedulers_ticking_the_same_due_concern_send_once(ctx, clock, team):
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
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
