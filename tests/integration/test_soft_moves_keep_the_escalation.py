"""A follow-up the model holds for a meeting never goes past the moment its loop would escalate (issue 23: "never
past a deadline or the escalation time"), even where half its wait or the meeting would reach further: here the
escalation comes an hour after the follow-up."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from action.models import ActionRow
from app.pipeline import tick
from app.wiring import build_context
from concern.models import Concern
from fact.models import Fact
from tests.conftest import make_settings
from tests.fakes import feishu_server as fs
from tests.integration.calendar_helpers import NOON, OPEN_ID, H, M, add_people
from tests.simulation.meetings import placed_past_escalation

SHORT_LAST_WAIT = {"P0": ["1h", "1h"], "P1": ["4h", "1d", "2h"], "P2": ["1d", "1h"], "P3": ["2d", "1h"]}
QUESTION = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": "周报写了吗？", "priority": "P2"}


def _local(hour: int, minute: int = 0, *, day: int = 19) -> datetime:
    """A moment of March 2026 in Asia/Shanghai (UTC+8), as UTC."""
    return datetime(2026, 3, day, hour - 8, minute, tzinfo=UTC)


@pytest.fixture
def fake() -> Iterator[fs.FakeFeishu]:
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


@pytest.fixture
def ctx(database_url, clock, fake):
    settings = make_settings(
        database_url, feishu_app_id=fs.APP_ID, feishu_app_secret=fs.APP_SECRET, feishu_domain=fake.domain,
        feishu_calendar=True, follow_up_schedule=SHORT_LAST_WAIT,
    )  # fmt: skip
    context = build_context(settings, clock=clock)
    yield context
    context.close()


def _escalation_breaches(ctx) -> list[str]:
    """The simulation's invariant (tests/simulation/meetings.py), read from this database."""
    with ctx.reader() as uow:
        facts = list(uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed")))
        concerns = {c.concern_id: c for c in uow.session.scalars(select(Concern))}
        actions = {a.action_id: a for a in uow.session.scalars(select(ActionRow))}
    return placed_past_escalation(facts, concerns, actions, ctx.settings, lambda *_: [1.0])


def test_a_follow_up_held_for_a_meeting_goes_at_the_escalation_time_not_after(ctx, clock, client, fake):
    target = add_people(ctx, clock, fake, "telegram")
    response = client.post("/v1/concerns", json=QUESTION)
    concern_id = response.json()["concern_id"]
    fake.add_busy(OPEN_ID, _local(11), _local(15))  # the meeting would hold it two hours, to 14:00
    clock.set(NOON + 24 * H)  # Thursday 12:00: the follow-up is due; the loop escalates at 13:00
    tick(ctx)
    with ctx.reader() as uow:
        held = uow.session.scalars(select(Concern).where(Concern.concern_id == concern_id)).one()
    assert (held.held_by, held.held_until) == ("busy", _local(13))
    assert _escalation_breaches(ctx) == []
    clock.set(_local(13) + M / 2)
    tick(ctx)
    assert target.texts()[-1].startswith("【跟进】")
