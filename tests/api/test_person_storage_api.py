"""Input the database cannot store, or that could never name a person, is a 4xx on both backends, never a 500."""

from __future__ import annotations

import pytest

from tests.api.persons_support import assert_error, create_person, person_changed_facts

JSON_HEADERS = {"content-type": "application/json"}

UNSTORABLE = {
    "nul_in_display_name": ({"display_name": "a\u0000b"}, "display_name"),
    "nul_in_alias": ({"aliases": ["a\u0000"]}, "aliases.0"),
    "nul_in_external_user_id": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": "ou\u0000"}]},
        "channel_bindings.0.external_user_id",
    ),
    "nul_in_chat_id": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": "ou", "chat_id": "\u0000"}]},
        "channel_bindings.0.chat_id",
    ),
    "nul_in_work_state_note": ({"work_state": {"status": "away", "note": "a\u0000"}}, "work_state.note"),
    "nul_in_work_state_key": ({"work_state": {"\u0000": 1}}, "work_state"),
}


@pytest.mark.parametrize("fields,field", UNSTORABLE.values(), ids=UNSTORABLE.keys())
def test_nul_characters_are_rejected_and_nothing_is_written(client, fields, field):
    response = client.post("/v1/persons", json={"person_id": "p_nul", "display_name": "N", **fields})
    assert_error(response, 422, field)
    assert client.get("/v1/persons/p_nul").status_code == 404 and person_changed_facts(client) == []


@pytest.mark.parametrize("raw", ["NaN", "Infinity", '"\\ud800"', "[" * 40 + "1" + "]" * 40])
def test_work_state_that_is_not_storable_is_a_422_and_nothing_changes(client, raw):
    body = '{"person_id": "p_ws", "display_name": "W", "work_state": {"status": "away", "note": ' + raw + "}}"
    assert_error(client.post("/v1/persons", content=body.encode(), headers=JSON_HEADERS), 422, "work_state")
    create_person(client, "p_ws")
    patch = '{"work_state": {"status": "away", "note": ' + raw + "}}"
    assert_error(client.patch("/v1/persons/p_ws", content=patch.encode(), headers=JSON_HEADERS), 422, "work_state")
    assert client.get("/v1/persons/p_ws").json()["work_state"]["status"] == "available"
    assert len(person_changed_facts(client)) == 1


def test_a_work_state_round_trips_in_its_validated_shape(client):
    state = {"status": "away", "until": "2026-03-20T18:00:00+08:00", "note": "出差 🚀"}
    create_person(client, "p_cover")
    body = create_person(client, "p_away", work_state={**state, "stand_in_id": "p_cover"})
    expected = {**state, "until": "2026-03-20T10:00:00Z", "stand_in_id": "p_cover"}
    assert body["work_state"] == expected == client.get("/v1/persons/p_away").json()["work_state"]


@pytest.mark.parametrize("path_id", ["p_a%00", "P_A", "zhangsan", "p_" + "a" * 300, "%E5%BC%A0%E4%B8%89", "p_a%0A"])
def test_ids_no_person_can_have_are_a_404_on_every_route(client, path_id):
    for method, suffix, body in [
        ("GET", "", None),
        ("PATCH", "", {"display_name": "x"}),
        ("DELETE", "", None),
        ("GET", "/interaction_policy", None),
        ("PATCH", "/interaction_policy", {}),
        ("PUT", "/channel_bindings", {"channel_bindings": []}),
    ]:
        response = client.request(method, f"/v1/persons/{path_id}{suffix}", json=body)
        assert_error(response, 404, code="not_found")


def test_search_treats_like_wildcards_literally(client):
    create_person(client, "p_under_score", display_name="Under")
    create_person(client, "p_plain", display_name="100% Plain")
    ids = lambda q: [p["person_id"] for p in client.get("/v1/persons", params={"q": q}).json()["items"]]  # noqa: E731
    assert ids("_score") == ["p_under_score"]
    assert ids("%") == ["p_plain"]
    assert ids("plain") == ["p_plain"]


def test_search_with_a_nul_character_is_a_422(client):
    assert_error(client.get("/v1/persons", params={"q": "a\u0000"}), 422, "q")


@pytest.mark.parametrize(
    "cursor", ["p_a", "1773799200000000", "_p_a", "-1_p_a", "1_P_A", "1_p-a", "1_" + "a" * 65, "1" * 17 + "_p_a", "1_"]
)
def test_a_cursor_not_in_the_documented_form_is_a_400_never_a_500(client, cursor):
    create_person(client, "p_a")
    assert_error(client.get("/v1/persons", params={"cursor": cursor}), 400, "cursor", code="invalid_cursor")


@pytest.mark.parametrize(("cursor", "listed"), [("0_p_a", []), ("9" * 16 + "_p_a", ["p_a"]), ("", ["p_a"])])
def test_every_cursor_in_the_documented_form_is_a_position_that_yields_a_page(client, cursor, listed):
    create_person(client, "p_a")
    response = client.get("/v1/persons", params={"cursor": cursor})
    assert response.status_code == 200, response.text
    assert [p["person_id"] for p in response.json()["items"]] == listed
