"""Meetings on the Feishu calendar (DEPUTY_FEISHU_CALENDAR), read through lark-oapi from the fake Feishu: a P2/P3
contact waits for a meeting to end (at most 2 h, never past the deadline), P0/P1 go through unread, and a calendar
that cannot be read never stops a send. Zhang San is asked on Feishu and on Telegram (his calendar is Feishu's)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.pipeline import tick
from concern.models import Concern
from fact.models import Fact
from tests.fakes import feishu_server as fs
from tests.integration.calendar_helpers import NOON, OPEN_ID, H, M, Target, add_people, calendar_context
from tests.integration.story_helpers import say

THURSDAY_NOON = NOON + 24 * H  # the first P2 follow-up is due a day after the question
QUESTION = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": "周报写了吗？"}


@pytest.fixture
def fake() -> Iterator[fs.FakeFeishu]:
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


@pytest.fixture
def ctx(database_url, clock, fake):
    context = calendar_context(database_url, clock, fake)
    yield context
    context.close()


@pytest.fixture(params=["feishu", "telegram"])
def target(request, ctx, clock, fake) -> Target:
    return add_people(ctx, clock, fake, request.param)


def _ask(client, **fields) -> dict:
    response = client.post("/v1/concerns", json={**QUESTION, "priority": "P2", **fields})
    assert response.status_code == 201, response.text
    return response.json()


def _concern(ctx, concern_id: str) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern).where(Concern.concern_id == concern_id)).one()


def _changes(ctx, change: str) -> list[dict]:
    with ctx.reader() as uow:
        facts = uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed").order_by(Fact.pk))
        return [f.content for f in facts if f.content["change"] == change]


def _local(hour: int, minute: int = 0, *, day: int = 19) -> datetime:
    """A moment of March 2026 in Asia/Shanghai (UTC+8), as UTC."""
    return datetime(2026, 3, day, hour - 8, minute, tzinfo=UTC)


def test_a_p2_follow_up_waits_for_the_meeting_to_end_then_goes(ctx, clock, client, fake, target):
    concern_id = _ask(client)["concern_id"]
    assert target.texts() == ["老板想了解：周报写了吗？"]
    fake.add_busy(OPEN_ID, _local(11, 30), _local(13))
    clock.set(THURSDAY_NOON)
    tick(ctx)
    held = _concern(ctx, concern_id)
    assert (held.held_by, held.held_until, len(target.texts())) == ("busy", _local(13), 1)
    assert _changes(ctx, "held")[-1]["reasons"] == ["busy"]
    shown = client.get(f"/v1/concerns/{concern_id}").json()
    assert (shown["held_by"], shown["held_until"]) == ("busy", "2026-03-19T13:00:00+08:00")
    read = fake.freebusy_requests()[-1]  # one user per request, by open_id, from now over the next day
    assert read.query == {"user_id_type": "open_id"}
    assert read.body == {"time_min": "2026-03-19T04:00:00+00:00", "time_max": "2026-03-20T04:00:00+00:00",
                         "user_id": OPEN_ID, "only_busy": True}  # fmt: skip
    clock.set(_local(13) - M)
    tick(ctx)
    assert len(target.texts()) == 1  # not a minute early
    clock.set(_local(13) + M / 2)
    tick(ctx)
    assert target.texts()[-1].startswith("【跟进】") and _concern(ctx, concern_id).held_by is None


def test_a_long_meeting_holds_a_p2_follow_up_two_hours_at_most(ctx, clock, client, fake, target):
    concern_id = _ask(client)["concern_id"]
    fake.add_busy(OPEN_ID, _local(11), _local(15, 30))  # an offsite: back-to-back with the next block
    fake.add_busy(OPEN_ID, _local(15, 30), _local(18))
    clock.set(THURSDAY_NOON)
    tick(ctx)
    held = _concern(ctx, concern_id)
    assert (held.held_by, held.held_until) == ("busy", _local(14))
    assert _changes(ctx, "held")[-1]["reasons"] == ["busy_bounded"]
    clock.set(_local(14) + M)
    tick(ctx)  # still in the offsite: the step was held once, and goes now
    assert target.texts()[-1].startswith("【跟进】")


def test_a_p3_question_waits_for_a_meeting_but_never_past_its_deadline(ctx, clock, client, fake, target):
    fake.add_busy(OPEN_ID, _local(11, 30, day=18), _local(15, day=18))
    concern = _ask(client, priority="P3", deadline="2026-03-18T13:00:00+08:00")
    assert (concern["held_by"], concern["held_until"]) == ("busy", "2026-03-18T13:00:00+08:00")
    assert concern["action"] is None and target.texts() == []
    assert _changes(ctx, "held")[-1]["reasons"] == ["busy_bounded"]
    clock.set(_local(13, day=18) + M)
    tick(ctx)
    assert target.texts() == ["老板想了解：周报写了吗？"]


@pytest.mark.parametrize("priority", ["P0", "P1"])
def test_p0_and_p1_go_through_a_meeting_and_their_calendar_is_not_read(ctx, client, fake, target, priority):
    fake.add_busy(OPEN_ID, _local(11, day=18), _local(13, day=18))
    concern = _ask(client, priority=priority)
    assert concern["action"]["result"] == "success" and concern["held_by"] is None
    assert target.texts() == ["老板想了解：周报写了吗？"] and fake.freebusy_requests() == []


HANG_UP = fs.Reply(hang_up=True)  # the connection drops before any answer: a network error


@pytest.mark.parametrize(
    ("failure", "code"),
    [(fs.SERVER_ERROR, "1500"), (fs.TOO_MANY_REQUESTS, "99991400"), (fs.CALENDAR_RATE_LIMITED, "190004"),
     (fs.NO_CALENDAR_SCOPE, "99991672"), (HANG_UP, "network")],
    ids=["5xx", "rate_limit", "calendar_rate_limit", "no_scope", "network"],
)  # fmt: skip
def test_a_calendar_that_cannot_be_read_never_stops_a_send_and_the_loop_says_why(
    ctx, client, fake, target, caplog, failure, code
):
    fake.add_busy(OPEN_ID, _local(11, day=18), _local(13, day=18))  # he is in a meeting: a working read would hold
    fake.script("freebusy", failure)
    with caplog.at_level("WARNING", logger="deputy.person.calendar"):
        concern = _ask(client)
        answer = client.get("/v1/persons/p_zhangsan/reachability").json()
    assert concern["action"]["result"] == "success" and target.texts() == ["老板想了解：周报写了吗？"]
    (noted,) = _changes(ctx, "calendar_unavailable")
    assert noted["reasons"] == ["available", "calendar_unavailable"] and code in noted["calendar_error"]
    assert answer["calendar"] == "failed" and "calendar_unavailable" in [r["code"] for r in answer["reasons"]]
    assert len(fake.freebusy_requests()) == 1  # the answer used the failed read (or the pause it started)
    assert len([r for r in caplog.records if r.name == "deputy.person.calendar"]) == 1  # logged once


def test_two_contacts_within_five_minutes_read_the_calendar_once(ctx, clock, client, fake, target):
    _ask(client)
    clock.advance(4 * M)
    _ask(client, question="提测什么时候能给？")
    assert client.get("/v1/persons/p_zhangsan/reachability").json()["calendar"] == "ok"
    assert len(fake.freebusy_requests()) == 1
    clock.advance(2 * M)
    _ask(client, question="评审定在哪天？")
    assert len(fake.freebusy_requests()) == 2


def test_a_question_asked_in_chat_is_decided_once_after_the_calendar_is_read_outside_the_batch(ctx, fake, target):
    fake.add_busy(OPEN_ID, _local(11, 30, day=18), _local(12, 45, day=18))
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P2 周报写了吗？", process=False)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P3 评审定在哪天？")  # both in one pass
    with ctx.reader() as uow:
        loops = list(uow.session.scalars(select(Concern).order_by(Concern.concern_id)))
        decisions = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision")).all()
    assert [(c.question, c.held_by, c.held_until) for c in loops] == [
        ("周报写了吗？", "busy", _local(12, 45, day=18)),
        ("评审定在哪天？", "busy", _local(12, 45, day=18)),
    ]
    assert len([d for d in decisions if d.content.get("kind") == "raise_concern"]) == 2  # the rollback left none
    assert target.texts() == [] and len(fake.freebusy_requests()) == 1


def test_the_reachability_answer_shows_the_busy_time_ahead_in_the_persons_clock(client, fake, target):
    fake.add_busy(OPEN_ID, _local(9, day=18), _local(10, day=18))  # over
    fake.add_busy(OPEN_ID, _local(11, 30, day=18), _local(12, 45, day=18))
    fake.add_busy(OPEN_ID, _local(16, day=18), _local(17, day=18))
    answer = client.get("/v1/persons/p_zhangsan/reachability").json()
    assert (answer["calendar"], answer["held_by"], answer["next_at"]) == ("ok", "busy", "2026-03-18T12:45:00+08:00")
    assert answer["busy"] == [
        {"start": "2026-03-18T11:30:00+08:00", "end": "2026-03-18T12:45:00+08:00"},
        {"start": "2026-03-18T16:00:00+08:00", "end": "2026-03-18T17:00:00+08:00"},
    ]
    assert client.get("/v1/persons/p_zhangsan/reachability?priority=P1").json()["now"] is True
