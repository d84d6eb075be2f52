"""`GET /v1/persons/{id}/reachability`: SPEC §5.1's shape, reasons in the caller's language, read from the records."""

from __future__ import annotations

from datetime import timedelta

import pytest

from concern.models import Concern
from tests.api.persons_support import assert_error, create_person
from tests.conftest import START

FEISHU = {"channel": "feishu", "external_user_id": "ou_zhang"}
TELEGRAM = {"channel": "telegram", "external_user_id": "4242"}


def reachability(client, person_id="p_zhangsan", lang=None, **params):
    headers = {"Accept-Language": lang} if lang else {}
    response = client.get(f"/v1/persons/{person_id}/reachability", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_free_person_is_reachable_now_on_their_preferred_channel(client):
    create_person(client, channel_bindings=[FEISHU, TELEGRAM], interaction_policy={"preferred_channel": "telegram"})
    body = reachability(client)
    assert body == {
        "now": True,
        "next_at": "2026-03-18T10:00:00+08:00",
        "channel": "telegram",
        "urgent": False,
        "held_by": None,
        "reasons": [{"code": "available", "text": "现在可以联系"}],
        "summary": "可联系：现在",
        "answering_hours": [],
        "median_answer_seconds": None,
        "answers_counted": 0,
        "calendar": "off",  # DEPUTY_FEISHU_CALENDAR is off
        "busy": [],
    }
    assert reachability(client, lang="en-US,en;q=0.9")["reasons"] == [
        {"code": "available", "text": "can be reached now"}
    ]


def test_quiet_time_is_read_in_the_persons_own_timezone(client):
    create_person(client, timezone="America/New_York", channel_bindings=[FEISHU],
                  interaction_policy={"quiet_hours": [{"start": "21:00", "end": "07:00"}]})  # fmt: skip
    body = reachability(client, lang="en")  # 22:00 in New York
    assert (body["now"], body["next_at"], body["held_by"]) == (False, "2026-03-18T07:00:00-04:00", "quiet_hours")
    assert body["summary"] == "reachable: from tomorrow 07:00 — quiet time until tomorrow 07:00"
    assert reachability(client, priority="P0")["now"] is True


def test_a_question_to_someone_on_leave_with_a_stand_in_waits_even_at_p0(client):
    create_person(client, "p_lisi", display_name="李四")
    state = {"status": "on_leave", "until": "2026-03-20T09:00:00+08:00", "stand_in_id": "p_lisi"}
    create_person(client, channel_bindings=[FEISHU], work_state=state)
    body = reachability(client, priority="P0", kind="question")
    assert (body["now"], body["next_at"], body["held_by"]) == (False, "2026-03-20T09:00:00+08:00", "away")
    assert body["reasons"] == [
        {"code": "stand_in", "text": "由李四代理"},
        {"code": "leave_until", "text": "请假到 后天 09:00"},
    ]


def test_open_ended_leave_and_a_zero_cap_name_no_moment(client):
    create_person(client, channel_bindings=[FEISHU], work_state={"status": "away"})
    create_person(
        client, "p_cap", channel_bindings=[TELEGRAM], interaction_policy={"max_proactive_contacts_per_day": 0}
    )
    assert [reachability(client, p)[k] for p in ("p_zhangsan", "p_cap") for k in ("next_at", "held_by")] == [
        None, "away", None, "cap"]  # fmt: skip


def test_answering_hours_come_from_the_persons_own_answers(client, ctx):
    create_person(client, "p_boss", role="principal")
    create_person(client, channel_bindings=[FEISHU])
    with ctx.uow(actor="test") as uow:
        for day in range(1, 7):  # answered at 14:xx Shanghai time on six recent days, 30 minutes after asking
            answered = START - timedelta(days=day) + timedelta(hours=4, minutes=10)
            uow.session.add(Concern(concern_id=f"con_2026031{day}_001", originator_id="p_boss",
                                    target_person_id="p_zhangsan", question="q", priority="P2", state="resolved",
                                    answered_by="p_zhangsan", resolved_at=answered,
                                    created_at=answered - timedelta(minutes=30), updated_at=answered))  # fmt: skip
    body = reachability(client)
    assert body["answering_hours"] == [{"start": "14:00", "end": "15:00"}]
    assert (body["median_answer_seconds"], body["answers_counted"]) == (1800, 6)
    assert (body["now"], body["next_at"]) == (False, "2026-03-18T14:00:00+08:00")
    assert body["summary"] == "可联系：14:00 起 — 放在通常回复的时间：14:00；通常 14–15 点回复"
    assert reachability(client, kind="question")["now"] is True  # only follow-ups move to the usual hour


def test_a_person_without_a_reachable_channel_cannot_be_reached(client):
    create_person(client, channel_bindings=[{**FEISHU, "reachable": False}])
    body = reachability(client)
    assert (body["now"], body["channel"], body["reasons"][0]["code"]) == (False, None, "no_channel")


@pytest.mark.parametrize("params,field", [({"priority": "P9"}, "priority"), ({"kind": "poke"}, "kind")])
def test_a_bad_query_is_a_422_naming_it(client, params, field):
    create_person(client)
    assert_error(client.get("/v1/persons/p_zhangsan/reachability", params=params), 422, field)


def test_an_unknown_person_is_a_404_and_viewers_may_read(client, viewer_headers):
    assert_error(client.get("/v1/persons/p_nobody/reachability"), 404)
    create_person(client)
    assert client.get("/v1/persons/p_zhangsan/reachability", headers=viewer_headers).status_code == 200
    assert client.get("/v1/persons/p_zhangsan/reachability", headers={"Authorization": ""}).status_code == 401
