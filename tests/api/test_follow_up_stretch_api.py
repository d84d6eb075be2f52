"""`interaction_policy.follow_up_stretch`: a number 1.0–4.0 (default 1.0), validated like every policy field."""

from __future__ import annotations

import pytest

from tests.api.persons_support import assert_rejected_unchanged, create_person, person_body, person_changed_facts

URL = "/v1/persons/p_pol/interaction_policy"

BAD_STRETCHES = {
    "below_one": 0.5,
    "zero": 0,
    "above_four": 4.5,
    "negative": -1.0,
    "a_string": "2",
    "a_bool": True,
    "a_list": [2.0],
}


@pytest.fixture
def person(client):
    return create_person(client, "p_pol")


def test_the_stretch_defaults_to_one_and_is_shown_with_the_person(client, person):
    assert person["interaction_policy"]["follow_up_stretch"] == 1.0
    listed = client.get("/v1/persons").json()["items"]
    assert [p["interaction_policy"]["follow_up_stretch"] for p in listed if p["person_id"] == "p_pol"] == [1.0]


@pytest.mark.parametrize("value", [1, 1.0, 2.25, 4])
def test_a_stretch_from_one_to_four_is_accepted_and_recorded(client, person, value):
    response = client.patch(URL, json={"follow_up_stretch": value})
    assert response.status_code == 200, response.text
    assert response.json()["follow_up_stretch"] == float(value)
    assert client.get("/v1/persons/p_pol").json()["interaction_policy"]["follow_up_stretch"] == float(value)
    if value != 1:
        change = person_changed_facts(client, "p_pol")[0]["content"]
        assert change["after"]["interaction_policy"]["follow_up_stretch"] == float(value)


@pytest.mark.parametrize("method", ["put", "patch"])
@pytest.mark.parametrize("value", BAD_STRETCHES.values(), ids=BAD_STRETCHES.keys())
def test_a_bad_stretch_is_a_422_naming_the_field_and_nothing_is_written(client, person, method, value):
    send = lambda: getattr(client, method)(URL, json={"follow_up_stretch": value})  # noqa: E731
    assert_rejected_unchanged(client, "p_pol", send, 422, "follow_up_stretch")
    assert len(person_changed_facts(client, "p_pol")) == 1


def test_a_null_stretch_is_refused_by_patch(client, person):
    error = assert_rejected_unchanged(
        client, "p_pol", lambda: client.patch(URL, json={"follow_up_stretch": None}), 422, "follow_up_stretch"
    )
    assert error["field"] == "interaction_policy.follow_up_stretch"


@pytest.mark.parametrize("value", [0.99, 4.01, "x"])
def test_a_new_person_with_a_bad_stretch_is_a_422_naming_interaction_policy_follow_up_stretch(client, value):
    body = person_body("p_new", interaction_policy={"follow_up_stretch": value})
    error = assert_rejected_unchanged(client, "p_new", lambda: client.post("/v1/persons", json=body), 422, None)
    assert error["field"] == "interaction_policy.follow_up_stretch"
