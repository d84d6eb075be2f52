"""`work_state` through the API: a bad value is a 4xx naming the field and nothing changes; stand-ins are people.

A value the document refuses is a 422; a stand-in the document admits but the stored people refuse is a 409.
"""

from __future__ import annotations

import pytest

from tests.api.persons_support import assert_error, create_person, state

AWAY = {"status": "on_leave", "until": "2026-03-20T18:00:00+08:00", "note": "年假"}

BAD = {
    "status": ({"status": "gone"}, "work_state.status"),
    "until": ({"status": "away", "until": "friday"}, "work_state.until"),
    "until_naive": ({"status": "away", "until": "2026-03-20T18:00:00"}, "work_state.until"),
    "stand_in_pattern": ({"status": "away", "stand_in_id": "Li Si"}, "work_state.stand_in_id"),
    "stand_in_missing": ({"status": "away", "stand_in_id": "p_nobody"}, "work_state.stand_in_id"),
    "stand_in_self": ({"status": "away", "stand_in_id": "p_zhangsan"}, "work_state.stand_in_id"),
    "stand_in_deactivated": ({"status": "away", "stand_in_id": "p_gone"}, "work_state.stand_in_id"),
    "unknown_field": ({"status": "away", "cover": "p_lisi"}, "work_state.cover"),
    "null": (None, "work_state"),
}
STORED_STATE = {"stand_in_missing", "stand_in_self", "stand_in_deactivated"}  # 409: what only the people can say


@pytest.fixture
def people(client):
    create_person(client, "p_zhangsan")
    create_person(client, "p_lisi", display_name="李四")
    create_person(client, "p_gone", display_name="走了")
    assert client.delete("/v1/persons/p_gone").status_code == 200


@pytest.mark.parametrize("case", BAD)
def test_a_bad_work_state_patch_is_refused_naming_the_field_and_changes_nothing(client, people, case):
    value, field = BAD[case]
    before = state(client, "p_zhangsan")
    status = 409 if case in STORED_STATE else 422
    assert_error(client.patch("/v1/persons/p_zhangsan", json={"work_state": value}), status, field)
    assert state(client, "p_zhangsan") == before


@pytest.mark.parametrize("case", [k for k in BAD if k not in ("null", "stand_in_self")])
def test_a_bad_work_state_on_create_is_refused_and_nobody_is_created(client, people, case):
    value, field = BAD[case]
    before = state(client, "p_new")
    status = 409 if case in STORED_STATE else 422
    assert_error(client.post("/v1/persons", json={"person_id": "p_new", "display_name": "N", "work_state": value}),
                 status, field)  # fmt: skip
    assert state(client, "p_new") == before


def test_an_admin_sets_leave_with_a_stand_in_and_one_fact_records_it(client, people):
    response = client.patch("/v1/persons/p_zhangsan", json={"work_state": {**AWAY, "stand_in_id": "p_lisi"}})
    assert response.status_code == 200, response.text
    expected = {**AWAY, "until": "2026-03-20T10:00:00Z", "stand_in_id": "p_lisi"}
    assert response.json()["work_state"] == expected
    facts = client.get("/v1/facts", params={"fact_type": "person_changed", "person_id": "p_zhangsan"}).json()["items"]
    assert facts[0]["content"]["after"]["work_state"] == expected
    assert facts[0]["content"]["before"]["work_state"]["status"] == "available"


def test_setting_the_same_work_state_again_records_nothing(client, people):
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": AWAY}).status_code == 200
    before = state(client, "p_zhangsan")
    same_instant = {**AWAY, "until": "2026-03-20T10:00:00Z"}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": same_instant}).status_code == 200
    assert state(client, "p_zhangsan") == before
