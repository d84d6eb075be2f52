"""`/v1/persons`: create, list, read, change and deactivate persons (SPEC §3.3, §8)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.wiring import build_context
from tests.api.persons_support import (
    DEFAULT_POLICY,
    assert_rejected_unchanged,
    create_person,
    person_body,
    person_changed_facts,
)
from tests.conftest import ADMIN_TOKEN, make_settings

WHOLE_PERSON = person_body(
    "p_lisi",
    display_name="李四",
    aliases=["Li Si", "老李"],
    role="principal",
    timezone="Europe/Berlin",
    locale="en",
    work_state={"status": "on_leave", "until": "2026-04-01T09:00:00+02:00", "note": "Urlaub"},
    channel_bindings=[
        {"channel": "feishu", "external_user_id": "ou_lisi", "chat_id": "oc_lisi", "reachable": True},
        {"channel": "telegram", "external_user_id": "4242"},
    ],
    interaction_policy={"max_proactive_contacts_per_day": 2, "preferred_channel": "telegram", "quiet_days": [7, 6]},
)


def test_post_accepts_a_whole_person_with_bindings_and_policy(client):
    response = client.post("/v1/persons", json=WHOLE_PERSON)
    assert response.status_code == 201, response.text
    body = response.json()
    assert {
        k: body[k]
        for k in ("person_id", "display_name", "aliases", "role", "timezone", "locale", "work_state", "active")
    } == {
        "person_id": "p_lisi",
        "display_name": "李四",
        "aliases": ["Li Si", "老李"],
        "role": "principal",
        "timezone": "Europe/Berlin",
        "locale": "en",
        "work_state": {"status": "on_leave", "until": "2026-04-01T07:00:00Z", "stand_in_id": None, "note": "Urlaub"},
        "active": True,
    }
    assert body["channel_bindings"] == [
        {"channel": "feishu", "external_user_id": "ou_lisi", "chat_id": "oc_lisi", "reachable": True},
        {"channel": "telegram", "external_user_id": "4242", "chat_id": None, "reachable": True},
    ]
    assert body["interaction_policy"] == {
        **DEFAULT_POLICY,
        "max_proactive_contacts_per_day": 2,
        "preferred_channel": "telegram",
        "quiet_days": [6, 7],
    }
    assert client.get("/v1/persons/p_lisi").json() == body


def test_omitted_policy_fields_and_timezone_take_their_defaults(client):
    body = create_person(client, "p_min")
    assert body["interaction_policy"] == DEFAULT_POLICY
    assert body["timezone"] == "Asia/Shanghai"
    assert (body["role"], body["locale"], body["aliases"], body["channel_bindings"], body["manager_id"]) == (
        "member",
        "zh",
        [],
        [],
        None,
    )


@pytest.fixture
def new_york_client(database_url, clock):
    """A service whose deployment timezone is not the usual Asia/Shanghai."""
    context = build_context(make_settings(database_url, timezone="America/New_York"), clock=clock)
    with TestClient(
        create_app(ctx=context, run_migrations=False), headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
    ) as c:
        yield c
    context.close()


def test_the_default_timezone_comes_from_settings(new_york_client):
    assert create_person(new_york_client, "p_ny")["timezone"] == "America/New_York"
    assert create_person(new_york_client, "p_tokyo", timezone="Asia/Tokyo")["timezone"] == "Asia/Tokyo"


def test_creating_a_person_appends_one_person_changed_fact_with_the_actor(client):
    body = create_person(client, "p_new")
    [fact] = person_changed_facts(client)
    assert fact["person_refs"] == ["p_new"] and fact["source"] == "admin_api"
    assert fact["content"]["actor"] == "ops"
    assert fact["content"]["before"] is None
    assert fact["content"]["after"]["person_id"] == "p_new"
    assert fact["content"]["after"]["interaction_policy"] == body["interaction_policy"]


def test_duplicate_person_id_is_a_409_and_the_first_person_is_kept(client):
    create_person(client, "p_dup", display_name="First")
    error = assert_rejected_unchanged(
        client,
        "p_dup",
        lambda: client.post("/v1/persons", json=person_body("p_dup", display_name="Second")),
        409,
        "person_id",
    )
    assert error["code"] == "conflict"
    assert client.get("/v1/persons/p_dup").json()["display_name"] == "First"


def test_list_is_newest_first_and_the_cursor_walks_every_page(client, clock):
    for name in ("p_a", "p_c", "p_b", "p_e", "p_d"):
        create_person(client, name)
        clock.advance(timedelta(minutes=1))
    first = client.get("/v1/persons", params={"limit": 2}).json()
    assert set(first) == {"items", "next_cursor"}
    seen = [p["person_id"] for p in first["items"]]
    cursor = first["next_cursor"]
    while cursor:
        page = client.get("/v1/persons", params={"limit": 2, "cursor": cursor}).json()
        seen += [p["person_id"] for p in page["items"]]
        cursor = page["next_cursor"]
    assert seen == ["p_d", "p_e", "p_b", "p_c", "p_a"]


def test_list_pages_persons_created_in_the_same_instant_without_gaps(client):
    for i in range(5):
        create_person(client, f"p_same_{i}")
    page1 = client.get("/v1/persons", params={"limit": 3}).json()
    page2 = client.get("/v1/persons", params={"limit": 3, "cursor": page1["next_cursor"]}).json()
    ids = [p["person_id"] for p in page1["items"] + page2["items"]]
    assert sorted(ids) == [f"p_same_{i}" for i in range(5)] and len(set(ids)) == 5
    assert page2["next_cursor"] is None


def test_a_forged_cursor_is_a_400_envelope(client):
    response = client.get("/v1/persons", params={"cursor": "not-a-cursor"})
    assert response.status_code == 400 and response.json()["error"]["field"] == "cursor"


def test_get_unknown_person_is_a_404_envelope(client):
    response = client.get("/v1/persons/p_nobody")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_patch_changes_only_the_given_fields_and_records_before_and_after(client, clock):
    create_person(client, "p_pat", aliases=["pat"])
    clock.advance(timedelta(hours=1))
    response = client.patch("/v1/persons/p_pat", json={"display_name": "Pat", "locale": "en"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["display_name"], body["locale"], body["aliases"]) == ("Pat", "en", ["pat"])
    assert body["updated_at"] > body["created_at"]
    facts = person_changed_facts(client, "p_pat")
    assert len(facts) == 2
    change = facts[0]["content"]
    assert (change["before"]["display_name"], change["after"]["display_name"]) == ("张三", "Pat")
    assert (change["before"]["locale"], change["after"]["locale"], change["actor"]) == ("zh", "en", "ops")


def test_patch_with_the_same_value_writes_no_fact(client):
    create_person(client, "p_same", display_name="Same")
    response = client.patch("/v1/persons/p_same", json={"display_name": "Same"})
    assert response.status_code == 200
    assert len(person_changed_facts(client, "p_same")) == 1


def test_patch_cannot_null_a_required_field(client):
    create_person(client, "p_req")
    assert_rejected_unchanged(
        client, "p_req", lambda: client.patch("/v1/persons/p_req", json={"display_name": None}), 422, "display_name"
    )


def test_delete_deactivates_and_keeps_the_person_and_its_facts(client):
    create_person(client, "p_gone")
    response = client.delete("/v1/persons/p_gone")
    assert response.status_code == 200 and response.json()["active"] is False
    assert client.get("/v1/persons/p_gone").json()["active"] is False
    facts = person_changed_facts(client, "p_gone")
    assert len(facts) == 2
    assert (facts[0]["content"]["before"]["active"], facts[0]["content"]["after"]["active"]) == (True, False)
    assert client.delete("/v1/persons/p_gone").status_code == 200
    assert len(person_changed_facts(client, "p_gone")) == 2


def test_manager_must_exist(client):
    assert_rejected_unchanged(
        client,
        "p_rep",
        lambda: client.post("/v1/persons", json=person_body("p_rep", manager_id="p_ghost")),
        409,
        "manager_id",
    )


def test_a_person_cannot_be_their_own_manager(client):
    assert_rejected_unchanged(
        client,
        "p_me",
        lambda: client.post("/v1/persons", json=person_body("p_me", manager_id="p_me")),
        409,
        "manager_id",
    )
    create_person(client, "p_me")
    assert_rejected_unchanged(
        client, "p_me", lambda: client.patch("/v1/persons/p_me", json={"manager_id": "p_me"}), 409, "manager_id"
    )


def test_a_manager_chain_cannot_form_a_cycle(client):
    create_person(client, "p_top")
    create_person(client, "p_mid", manager_id="p_top")
    create_person(client, "p_low", manager_id="p_mid")
    assert_rejected_unchanged(
        client, "p_top", lambda: client.patch("/v1/persons/p_top", json={"manager_id": "p_low"}), 409, "manager_id"
    )
    response = client.patch("/v1/persons/p_low", json={"manager_id": "p_top"})
    assert response.status_code == 200 and response.json()["manager_id"] == "p_top"
