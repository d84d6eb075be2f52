"""`PersonCreate`: the whole person `POST /v1/persons` accepts (SPEC §3.3)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from person.models import InteractionPolicy, PersonCreate


def validate(**fields):
    return PersonCreate.model_validate_json(json.dumps({"person_id": "p_zhangsan", "display_name": "张三", **fields}))


def error_fields(exc: ValidationError) -> set[str]:
    return {".".join(str(p) for p in e["loc"]) for e in exc.errors()}


def test_a_minimal_person_gets_defaults():
    person = validate()
    assert (person.role, person.locale, person.timezone, person.manager_id) == ("member", "zh", None, None)
    assert person.aliases == [] and person.work_state.status == "available" and person.channel_bindings == []
    assert person.interaction_policy == InteractionPolicy()


@pytest.mark.parametrize("person_id", ["p_a", "p_zhangsan", "p_zhang_san_2", "p_" + "x" * 48, "p_0", "p__"])
def test_valid_person_ids_are_accepted(person_id):
    assert PersonCreate(person_id=person_id, display_name="x").person_id == person_id


@pytest.mark.parametrize(
    "person_id",
    [
        "p_",
        "zhangsan",
        "P_zhangsan",
        "p_Zhang",
        "p-zhangsan",
        "p_zhang-san",
        "p_zhang san",
        "p_" + "x" * 49,
        "p_zhangsan\n",
        "p_张三",
        " p_a",
        "",
    ],
)
def test_person_ids_outside_the_slug_pattern_are_rejected(person_id):
    with pytest.raises(ValidationError) as exc:
        PersonCreate(person_id=person_id, display_name="x")
    assert error_fields(exc.value) == {"person_id"}


@pytest.mark.parametrize(
    "tz", ["Asia/Shanghai", "America/New_York", "Europe/Berlin", "UTC", "America/Argentina/Buenos_Aires"]
)
def test_iana_timezones_are_accepted(tz):
    assert validate(timezone=tz).timezone == tz


@pytest.mark.parametrize(
    "tz", ["Mars/Olympus", "asia/shanghai", "+08:00", "CST-8", "", "localtime", "Asia/Shanghai ", "../etc/passwd"]
)
def test_names_that_are_not_iana_timezones_are_rejected(tz):
    with pytest.raises(ValidationError) as exc:
        validate(timezone=tz)
    assert error_fields(exc.value) == {"timezone"}


BAD = {
    "unknown_top_level": ({"nickname": "zs"}, "nickname"),
    "unknown_in_policy": ({"interaction_policy": {"quiet": True}}, "interaction_policy.quiet"),
    "unknown_in_window": (
        {"interaction_policy": {"quiet_hours": [{"start": "22:00", "end": "07:00", "x": 1}]}},
        "interaction_policy.quiet_hours.0.x",
    ),
    "unknown_in_binding": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": "ou", "x": 1}]},
        "channel_bindings.0.x",
    ),
    "role": ({"role": "admin"}, "role"),
    "locale": ({"locale": "zh-CN"}, "locale"),
    "empty_display_name": ({"display_name": ""}, "display_name"),
    "long_display_name": ({"display_name": "x" * 201}, "display_name"),
    "display_name_with_nul": ({"display_name": "a\u0000b"}, "display_name"),
    "alias_with_nul": ({"aliases": ["ok", "a\u0000"]}, "aliases.1"),
    "empty_alias": ({"aliases": [""]}, "aliases.0"),
    "manager_pattern": ({"manager_id": "boss"}, "manager_id"),
    "binding_channel": (
        {"channel_bindings": [{"channel": "slack", "external_user_id": "u"}]},
        "channel_bindings.0.channel",
    ),
    "binding_id_with_nul": (
        {"channel_bindings": [{"channel": "feishu", "external_user_id": "u\u0000"}]},
        "channel_bindings.0.external_user_id",
    ),
    "binding_twice": ({"channel_bindings": [{"channel": "feishu", "external_user_id": "u"}] * 2}, "channel_bindings"),
    "work_state_not_object": ({"work_state": ["on_leave"]}, "work_state"),
    "work_state_note_with_nul": ({"work_state": {"status": "away", "note": "a\u0000"}}, "work_state.note"),
    "work_state_unknown_key": ({"work_state": {"status": "away", "mood": "ok"}}, "work_state.mood"),
}


@pytest.mark.parametrize("fields,field", BAD.values(), ids=BAD.keys())
def test_invalid_person_fields_are_rejected_at_their_field(fields, field):
    with pytest.raises(ValidationError) as exc:
        validate(**fields)
    assert field in error_fields(exc.value)
