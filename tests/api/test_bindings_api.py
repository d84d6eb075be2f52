"""`PUT /v1/persons/{id}/channel_bindings`: replace bindings; one identity belongs to one person."""

from __future__ import annotations

import pytest

from tests.api.persons_support import assert_rejected_unchanged, create_person, person_changed_facts

FEISHU = {"channel": "feishu", "external_user_id": "ou_a", "chat_id": "oc_a", "reachable": True}
TELEGRAM = {"channel": "telegram", "external_user_id": "1001", "chat_id": "1001", "reachable": True}


def url(person_id: str) -> str:
    return f"/v1/persons/{person_id}/channel_bindings"


def test_put_replaces_all_bindings_and_records_one_fact(client):
    create_person(client, "p_a", channel_bindings=[FEISHU])
    response = client.put(url("p_a"), json={"channel_bindings": [TELEGRAM]})
    assert response.status_code == 200, response.text
    assert response.json()["channel_bindings"] == [TELEGRAM]
    assert client.get("/v1/persons/p_a").json()["channel_bindings"] == [TELEGRAM]
    facts = person_changed_facts(client, "p_a")
    assert len(facts) == 2
    change = facts[0]["content"]
    assert (change["before"]["channel_bindings"], change["after"]["channel_bindings"], change["actor"]) == (
        [FEISHU],
        [TELEGRAM],
        "ops",
    )


def test_putting_the_same_bindings_again_writes_no_fact(client):
    create_person(client, "p_a", channel_bindings=[FEISHU, TELEGRAM])
    assert client.put(url("p_a"), json={"channel_bindings": [FEISHU, TELEGRAM]}).status_code == 200
    assert len(person_changed_facts(client, "p_a")) == 1


def test_an_empty_list_removes_every_binding(client):
    create_person(client, "p_a", channel_bindings=[FEISHU])
    assert client.put(url("p_a"), json={"channel_bindings": []}).json()["channel_bindings"] == []


def test_an_identity_bound_to_another_person_is_a_409_and_nothing_changes(client):
    create_person(client, "p_a", channel_bindings=[FEISHU])
    create_person(client, "p_b", channel_bindings=[TELEGRAM])
    error = assert_rejected_unchanged(
        client, "p_b", lambda: client.put(url("p_b"), json={"channel_bindings": [FEISHU]}), 409, "channel_bindings"
    )
    assert error["code"] == "conflict"
    assert client.get("/v1/persons/p_a").json()["channel_bindings"] == [FEISHU]


def test_creating_a_person_with_a_taken_identity_is_a_409_and_nothing_is_created(client):
    create_person(client, "p_a", channel_bindings=[FEISHU])

    def send():
        return client.post("/v1/persons", json={"person_id": "p_b", "display_name": "B", "channel_bindings": [FEISHU]})

    assert_rejected_unchanged(client, "p_b", send, 409, "channel_bindings")
    assert client.get("/v1/persons/p_b").status_code == 404


def test_the_same_external_id_on_another_channel_is_a_different_identity(client):
    create_person(client, "p_a", channel_bindings=[{"channel": "feishu", "external_user_id": "42"}])
    create_person(client, "p_b", channel_bindings=[{"channel": "telegram", "external_user_id": "42"}])


def test_removing_the_preferred_channel_is_a_409_and_nothing_changes(client):
    create_person(
        client, "p_a", channel_bindings=[FEISHU, TELEGRAM], interaction_policy={"preferred_channel": "telegram"}
    )
    assert_rejected_unchanged(
        client, "p_a", lambda: client.put(url("p_a"), json={"channel_bindings": [FEISHU]}), 409, "preferred_channel"
    )


def test_bindings_keep_the_preferred_channel_when_it_stays_bound(client):
    create_person(
        client, "p_a", channel_bindings=[FEISHU, TELEGRAM], interaction_policy={"preferred_channel": "telegram"}
    )
    response = client.put(url("p_a"), json={"channel_bindings": [{**TELEGRAM, "reachable": False}]})
    assert response.status_code == 200 and response.json()["interaction_policy"]["preferred_channel"] == "telegram"


BAD_BINDINGS = {
    "unknown_top_level_field": ({"channel_bindings": [], "extra": 1}, "extra"),
    "missing_list": ({}, "channel_bindings"),
    "unknown_binding_field": ({"channel_bindings": [{**FEISHU, "secret": "x"}]}, "channel_bindings.0.secret"),
    "unknown_channel": ({"channel_bindings": [{**FEISHU, "channel": "sms"}]}, "channel_bindings.0.channel"),
    "missing_external_user_id": ({"channel_bindings": [{"channel": "feishu"}]}, "channel_bindings.0.external_user_id"),
    "reachable_as_string": ({"channel_bindings": [{**FEISHU, "reachable": "yes"}]}, "channel_bindings.0.reachable"),
    "listed_twice": ({"channel_bindings": [FEISHU, FEISHU]}, "channel_bindings"),
    "a_bare_list": ([FEISHU], "body"),
}


@pytest.mark.parametrize("body,field", BAD_BINDINGS.values(), ids=BAD_BINDINGS.keys())
def test_bad_bindings_are_a_422_and_nothing_changes(client, body, field):
    create_person(client, "p_a", channel_bindings=[TELEGRAM])
    assert_rejected_unchanged(client, "p_a", lambda: client.put(url("p_a"), json=body), 422, field)


def test_two_listings_of_one_user_that_differ_only_in_chat_or_reachable_are_a_409_and_nothing_changes(client):
    # uniqueItems refuses equal listings (422 above); no JSON Schema compares two of an entry's fields.
    create_person(client, "p_a", channel_bindings=[TELEGRAM])
    for twin in ({**FEISHU, "chat_id": "oc_other"}, {**FEISHU, "reachable": False}):
        body = {"channel_bindings": [FEISHU, twin]}
        assert_rejected_unchanged(client, "p_a", lambda b=body: client.put(url("p_a"), json=b), 409, "listed twice")


def test_bindings_of_an_unknown_person_is_a_404_and_writes_nothing(client):
    assert_rejected_unchanged(
        client, "p_ghost", lambda: client.put(url("p_ghost"), json={"channel_bindings": []}), 404, "person_id"
    )
