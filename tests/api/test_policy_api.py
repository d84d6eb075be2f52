"""`GET/PUT/PATCH /v1/persons/{id}/interaction_policy`: validated edits, each change one fact."""

from __future__ import annotations

import pytest

from tests.api.persons_support import DEFAULT_POLICY, assert_rejected_unchanged, create_person, person_changed_facts

URL = "/v1/persons/p_pol/interaction_policy"
FEISHU = [{"channel": "feishu", "external_user_id": "ou_pol"}]


@pytest.fixture
def person(client):
    return create_person(client, "p_pol", channel_bindings=FEISHU)


def test_get_returns_the_policy_with_defaults(client, person, viewer_headers):
    response = client.get(URL, headers=viewer_headers)
    assert response.status_code == 200 and response.json() == DEFAULT_POLICY


def test_get_policy_of_unknown_person_is_404(client):
    assert client.get("/v1/persons/p_ghost/interaction_policy").status_code == 404


def test_put_replaces_the_whole_policy_and_omitted_fields_take_defaults(client, person):
    client.patch(URL, json={"quiet_days": [6, 7], "allow_proactive_ping": False})
    response = client.put(
        URL, json={"max_proactive_contacts_per_day": 1, "quiet_hours": [{"start": "22:00", "end": "07:00"}]}
    )
    assert response.status_code == 200, response.text
    expected = {
        **DEFAULT_POLICY,
        "max_proactive_contacts_per_day": 1,
        "quiet_hours": [{"start": "22:00", "end": "07:00"}],
    }
    assert response.json() == expected
    assert client.get("/v1/persons/p_pol").json()["interaction_policy"] == expected


def test_patch_changes_only_the_given_policy_fields(client, person):
    response = client.patch(URL, json={"paused_until": "2026-03-20T10:00:00+08:00", "preferred_channel": "feishu"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["preferred_channel"] == "feishu" and body["paused_until"].startswith("2026-03-20T")
    assert {k: v for k, v in body.items() if k not in ("paused_until", "preferred_channel")} == {
        k: v for k, v in DEFAULT_POLICY.items() if k not in ("paused_until", "preferred_channel")
    }
    cleared = client.patch(URL, json={"paused_until": None, "preferred_channel": None}).json()
    assert cleared == DEFAULT_POLICY


def test_each_policy_change_writes_one_fact_with_before_after_and_actor(client, person):
    client.put(URL, json={"max_proactive_contacts_per_day": 3})
    client.patch(URL, json={"allow_proactive_ping": False})
    facts = person_changed_facts(client, "p_pol")
    assert len(facts) == 3
    put_fact, patch_fact = facts[1]["content"], facts[0]["content"]
    assert put_fact["before"]["interaction_policy"]["max_proactive_contacts_per_day"] == 5
    assert put_fact["after"]["interaction_policy"]["max_proactive_contacts_per_day"] == 3
    assert patch_fact["before"]["interaction_policy"]["allow_proactive_ping"] is True
    assert patch_fact["after"]["interaction_policy"]["allow_proactive_ping"] is False
    assert put_fact["actor"] == patch_fact["actor"] == "ops"


def test_a_policy_change_that_changes_nothing_writes_no_fact(client, person):
    assert client.patch(URL, json={"max_proactive_contacts_per_day": 5}).status_code == 200
    assert client.put(URL, json=DEFAULT_POLICY).status_code == 200
    assert client.patch(URL, json={}).status_code == 200
    assert len(person_changed_facts(client, "p_pol")) == 1


def test_cap_of_zero_is_accepted(client, person):
    assert client.patch(URL, json={"max_proactive_contacts_per_day": 0}).json()["max_proactive_contacts_per_day"] == 0


def test_quiet_window_crossing_midnight_is_accepted(client, person):
    response = client.put(URL, json={"quiet_hours": [{"start": "22:00", "end": "07:00"}]})
    assert response.json()["quiet_hours"] == [{"start": "22:00", "end": "07:00"}]


BAD_POLICIES = {
    "cap_101": ({"max_proactive_contacts_per_day": 101}, "max_proactive_contacts_per_day"),
    "cap_negative": ({"max_proactive_contacts_per_day": -1}, "max_proactive_contacts_per_day"),
    "cap_string": ({"max_proactive_contacts_per_day": "5"}, "max_proactive_contacts_per_day"),
    "cap_bool": ({"max_proactive_contacts_per_day": True}, "max_proactive_contacts_per_day"),
    "cap_float": ({"max_proactive_contacts_per_day": 2.5}, "max_proactive_contacts_per_day"),
    "allow_as_string": ({"allow_proactive_ping": "yes"}, "allow_proactive_ping"),
    "quiet_hour_24_00": ({"quiet_hours": [{"start": "24:00", "end": "08:00"}]}, "quiet_hours.0.start"),
    "quiet_hour_7_00": ({"quiet_hours": [{"start": "23:00", "end": "7:00"}]}, "quiet_hours.0.end"),
    "quiet_hour_23_60": ({"quiet_hours": [{"start": "23:60", "end": "08:00"}]}, "quiet_hours.0.start"),
    "quiet_hour_empty_window": ({"quiet_hours": [{"start": "08:00", "end": "08:00"}]}, "quiet_hours.0"),
    "quiet_hour_missing_end": ({"quiet_hours": [{"start": "08:00"}]}, "quiet_hours.0.end"),
    "quiet_hour_unknown_field": (
        {"quiet_hours": [{"start": "22:00", "end": "07:00", "days": [1]}]},
        "quiet_hours.0.days",
    ),
    "quiet_days_0": ({"quiet_days": [0]}, "quiet_days"),
    "quiet_days_8": ({"quiet_days": [1, 8]}, "quiet_days"),
    "quiet_days_repeated": ({"quiet_days": [3, 3]}, "quiet_days"),
    "quiet_days_string": ({"quiet_days": ["1"]}, "quiet_days"),
    "paused_until_naive": ({"paused_until": "2026-03-20T10:00:00"}, "paused_until"),
    "paused_until_garbage": ({"paused_until": "next week"}, "paused_until"),
    "preferred_channel_unknown": ({"preferred_channel": "sms"}, "preferred_channel"),
    "unknown_field": ({"ping_on_weekends": True}, "ping_on_weekends"),
    "daily_brief_at_no_minutes": ({"daily_brief_at": "9"}, "daily_brief_at"),
    "daily_brief_at_25h": ({"daily_brief_at": "25:00"}, "daily_brief_at"),
    "weekly_review_at_no_day": ({"weekly_review_at": "09:00"}, "weekly_review_at"),
    "digest_string": ({"digest": "true"}, "digest"),
    "digest_max_wait_unitless": ({"digest_max_wait": "4"}, "digest_max_wait"),
}


@pytest.mark.parametrize("method", ["put", "patch"])
@pytest.mark.parametrize("policy,field", BAD_POLICIES.values(), ids=BAD_POLICIES.keys())
def test_bad_policy_is_a_422_and_nothing_changes(client, person, method, policy, field):
    assert_rejected_unchanged(client, "p_pol", lambda: getattr(client, method)(URL, json=policy), 422, field)
    assert len(person_changed_facts(client, "p_pol")) == 1


@pytest.mark.parametrize("method", ["put", "patch"])
def test_a_preferred_channel_the_stored_bindings_lack_is_a_409_and_nothing_changes(client, person, method):
    # The document admits "telegram"; only the person's stored bindings (feishu alone) refuse it.
    send = lambda: getattr(client, method)(URL, json={"preferred_channel": "telegram"})  # noqa: E731
    assert_rejected_unchanged(client, "p_pol", send, 409, "preferred_channel")
    assert len(person_changed_facts(client, "p_pol")) == 1


@pytest.mark.parametrize(
    "field",
    [
        "allow_proactive_ping",
        "max_proactive_contacts_per_day",
        "quiet_hours",
        "quiet_days",
        "digest",
        "digest_max_wait",
    ],
)
def test_patch_cannot_null_a_policy_field_that_is_not_nullable(client, person, field):
    assert_rejected_unchanged(client, "p_pol", lambda: client.patch(URL, json={field: None}), 422, field)


@pytest.mark.parametrize("method", ["put", "patch"])
def test_policy_of_an_unknown_person_is_a_404_and_writes_nothing(client, method):
    assert_rejected_unchanged(
        client,
        "p_ghost",
        lambda: getattr(client, method)("/v1/persons/p_ghost/interaction_policy", json={}),
        404,
        "person_id",
    )


def test_a_pause_beyond_the_sane_range_is_422_and_changes_nothing(client, person):
    before = client.get(URL).json()
    response = client.patch(URL, json={"paused_until": "9999-12-31T23:59:59+00:00"})
    assert response.status_code == 422 and response.json()["error"]["field"] == "paused_until"
    assert client.get(URL).json() == before
    notice = client.post("/v1/notifications", json={"target_person_id": "p_pol", "text": "在吗"})
    assert notice.status_code == 200
