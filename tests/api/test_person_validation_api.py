"""`POST /v1/persons` and `PATCH /v1/persons/{id}` reject bad input with a 4xx envelope and write nothing."""

from __future__ import annotations

import pytest

from tests.api.persons_support import assert_rejected_unchanged, create_person, person_body, person_changed_facts

BAD_CREATE_BODIES = {
    "person_id_without_prefix": ({"person_id": "zhangsan"}, "person_id"),
    "person_id_with_uppercase": ({"person_id": "p_Zhang"}, "person_id"),
    "person_id_with_a_dash": ({"person_id": "p_zhang-san"}, "person_id"),
    "person_id_with_an_empty_slug": ({"person_id": "p_"}, "person_id"),
    "person_id_longer_than_48": ({"person_id": "p_" + "a" * 49}, "person_id"),
    "person_id_with_a_trailing_newline": ({"person_id": "p_zhangsan\n"}, "person_id"),
    "missing_display_name": ({"display_name": None}, "display_name"),
    "empty_display_name": ({"display_name": ""}, "display_name"),
    "unknown_role": ({"role": "boss"}, "role"),
    "unknown_locale": ({"locale": "fr"}, "locale"),
    "timezone_not_iana": ({"timezone": "Mars/Olympus"}, "timezone"),
    "timezone_offset_string": ({"timezone": "+08:00"}, "timezone"),
    "manager_id_bad_pattern": ({"manager_id": "Boss"}, "manager_id"),
    "unknown_top_level_field": ({"salary": 1}, "salary"),
    "unknown_policy_field": ({"interaction_policy": {"ping_everyone": True}}, "interaction_policy.ping_everyone"),
    "unknown_quiet_window_field": (
        {"interaction_policy": {"quiet_hours": [{"start": "22:00", "end": "07:00", "tz": "UTC"}]}},
        "quiet_hours.0.tz",
    ),
    "unknown_binding_field": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": "ou_1", "token": "x"}]},
        "channel_bindings.0.token",
    ),
    "unknown_channel": (
        {"channel_bindings": [{"channel": "email", "external_user_id": "a@b"}]},
        "channel_bindings.0.channel",
    ),
    "empty_external_user_id": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": ""}]},
        "channel_bindings.0.external_user_id",
    ),
    "same_binding_twice": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": "ou_1"}] * 2},
        "channel_bindings",
    ),
    "cap_above_100": (
        {"interaction_policy": {"max_proactive_contacts_per_day": 101}},
        "max_proactive_contacts_per_day",
    ),
    "cap_negative": ({"interaction_policy": {"max_proactive_contacts_per_day": -1}}, "max_proactive_contacts_per_day"),
    "cap_as_string": (
        {"interaction_policy": {"max_proactive_contacts_per_day": "5"}},
        "max_proactive_contacts_per_day",
    ),
    "cap_as_bool": ({"interaction_policy": {"max_proactive_contacts_per_day": True}}, "max_proactive_contacts_per_day"),
    "quiet_hour_24_00": (
        {"interaction_policy": {"quiet_hours": [{"start": "24:00", "end": "08:00"}]}},
        "quiet_hours.0.start",
    ),
    "quiet_hour_without_leading_zero": (
        {"interaction_policy": {"quiet_hours": [{"start": "22:00", "end": "7:00"}]}},
        "quiet_hours.0.end",
    ),
    "quiet_hour_minute_60": (
        {"interaction_policy": {"quiet_hours": [{"start": "23:60", "end": "08:00"}]}},
        "quiet_hours.0.start",
    ),
    "quiet_day_0": ({"interaction_policy": {"quiet_days": [0]}}, "quiet_days"),
    "quiet_day_8": ({"interaction_policy": {"quiet_days": [8]}}, "quiet_days"),
    "quiet_day_repeated": ({"interaction_policy": {"quiet_days": [6, 6]}}, "quiet_days"),
    "paused_until_without_offset": ({"interaction_policy": {"paused_until": "2026-03-20T10:00:00"}}, "paused_until"),
    "preferred_channel_not_bound": (
        {
            "channel_bindings": [{"channel": "feishu", "external_user_id": "ou_1"}],
            "interaction_policy": {"preferred_channel": "telegram"},
        },
        "preferred_channel",
    ),
    "preferred_channel_unknown": ({"interaction_policy": {"preferred_channel": "sms"}}, "preferred_channel"),
}


@pytest.mark.parametrize("overrides,field", BAD_CREATE_BODIES.values(), ids=BAD_CREATE_BODIES.keys())
def test_bad_person_is_rejected_and_nothing_is_written(client, overrides, field):
    body = person_body("p_bad")
    body.update(overrides)
    body = {k: v for k, v in body.items() if v is not None}
    assert_rejected_unchanged(client, "p_bad", lambda: client.post("/v1/persons", json=body), 422, field)
    assert client.get("/v1/persons").json()["items"] == []
    assert person_changed_facts(client) == []


def test_a_person_id_of_exactly_48_characters_is_accepted(client):
    assert create_person(client, "p_" + "a" * 48)["person_id"] == "p_" + "a" * 48


def test_a_quiet_window_crossing_midnight_is_accepted(client):
    body = create_person(client, "p_night", interaction_policy={"quiet_hours": [{"start": "22:00", "end": "07:00"}]})
    assert body["interaction_policy"]["quiet_hours"] == [{"start": "22:00", "end": "07:00"}]


def test_a_cap_of_zero_is_accepted(client):
    assert (
        create_person(client, "p_zero", interaction_policy={"max_proactive_contacts_per_day": 0})["interaction_policy"][
            "max_proactive_contacts_per_day"
        ]
        == 0
    )


BAD_PATCHES = {
    "unknown_field": ({"nickname": "x"}, "nickname"),
    "person_id_is_not_patchable": ({"person_id": "p_other"}, "person_id"),
    "timezone_not_iana": ({"timezone": "Mars/Olympus"}, "timezone"),
    "timezone_null": ({"timezone": None}, "timezone"),
    "role_null": ({"role": None}, "role"),
    "unknown_locale": ({"locale": "de"}, "locale"),
    "active_as_string": ({"active": "no"}, "active"),
    "aliases_not_a_list": ({"aliases": "zs"}, "aliases"),
}


@pytest.mark.parametrize("patch,field", BAD_PATCHES.values(), ids=BAD_PATCHES.keys())
def test_bad_patch_is_rejected_and_the_person_is_unchanged(client, patch, field):
    create_person(client, "p_target")
    assert_rejected_unchanged(client, "p_target", lambda: client.patch("/v1/persons/p_target", json=patch), 422, field)
    assert len(person_changed_facts(client, "p_target")) == 1


def test_a_manager_who_does_not_exist_is_a_409_and_the_person_is_unchanged(client):
    create_person(client, "p_target")
    patch = {"manager_id": "p_ghost"}
    assert_rejected_unchanged(
        client, "p_target", lambda: client.patch("/v1/persons/p_target", json=patch), 409, "manager_id"
    )
    assert len(person_changed_facts(client, "p_target")) == 1


def test_patching_an_unknown_person_is_a_404_and_writes_nothing(client):
    assert_rejected_unchanged(
        client, "p_ghost", lambda: client.patch("/v1/persons/p_ghost", json={"display_name": "x"}), 404, "person_id"
    )
