"""The validated policy shapes on their own: QuietWindow, InteractionPolicy, InteractionPolicyPatch (SPEC §3.3)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from person.models import InteractionPolicy, InteractionPolicyPatch, QuietWindow


def error_fields(exc: ValidationError) -> set[str]:
    return {".".join(str(p) for p in e["loc"]) for e in exc.errors()}


@pytest.mark.parametrize(
    "start,end", [("00:00", "23:59"), ("22:00", "07:00"), ("23:00", "08:00"), ("09:30", "12:00"), ("19:59", "20:00")]
)
def test_valid_quiet_windows_are_accepted_including_across_midnight(start, end):
    window = QuietWindow(start=start, end=end)
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize(
    "bad",
    [
        "24:00",
        "7:00",
        "23:60",
        "07:0",
        "0700",
        "07:00:00",
        "",
        " 07:00",
        "07:00 ",
        "23:00\n",
        "-1:00",
        "ab:cd",
        "１２:00",
        "1٣:00",
    ],
)
def test_times_that_are_not_hh_mm_within_a_day_are_rejected(bad):
    with pytest.raises(ValidationError) as exc:
        QuietWindow(start=bad, end="08:00")
    assert error_fields(exc.value) == {"start"}


@pytest.mark.parametrize("value", [700, None, ["07:00"]])
def test_quiet_window_times_must_be_strings(value):
    with pytest.raises(ValidationError):
        QuietWindow(start="22:00", end=value)


def test_an_empty_quiet_window_is_rejected():
    with pytest.raises(ValidationError, match="differ"):
        QuietWindow(start="08:00", end="08:00")


def test_quiet_window_rejects_unknown_fields():
    with pytest.raises(ValidationError) as exc:
        QuietWindow.model_validate({"start": "22:00", "end": "07:00", "weekdays": [1]})
    assert error_fields(exc.value) == {"weekdays"}


def test_policy_defaults_match_the_spec():
    assert InteractionPolicy().model_dump(mode="json") == {
        "allow_proactive_ping": True,
        "max_proactive_contacts_per_day": 5,
        "preferred_channel": None,
        "quiet_hours": [{"start": "23:00", "end": "08:00"}],
        "quiet_days": [],
        "paused_until": None,
        "daily_brief_at": "09:00",
        "weekly_review_at": None,
        "digest": False,
        "digest_max_wait": "4h",
        "follow_up_stretch": 1.0,
    }


def test_policy_defaults_are_not_shared_between_instances():
    first = InteractionPolicy()
    first.quiet_hours.append(QuietWindow(start="12:00", end="13:00"))
    first.quiet_days.append(3)
    assert len(InteractionPolicy().quiet_hours) == 1 and InteractionPolicy().quiet_days == []


GOOD_POLICIES = [
    {"max_proactive_contacts_per_day": 0},
    {"max_proactive_contacts_per_day": 100},
    {"allow_proactive_ping": False},
    {"preferred_channel": "feishu"},
    {"preferred_channel": "telegram"},
    {"quiet_hours": []},
    {"quiet_days": [1, 7]},
    {"paused_until": "2026-03-20T10:00:00+08:00"},
    {"paused_until": "2026-03-20T02:00:00Z"},
    {"paused_until": None},
]


@pytest.mark.parametrize("data", GOOD_POLICIES, ids=[str(d) for d in GOOD_POLICIES])
def test_valid_policy_values_are_accepted(data):
    InteractionPolicy.model_validate_json(json.dumps(data))


BAD_POLICIES = {
    "cap_101": ({"max_proactive_contacts_per_day": 101}, "max_proactive_contacts_per_day"),
    "cap_minus_1": ({"max_proactive_contacts_per_day": -1}, "max_proactive_contacts_per_day"),
    "cap_string": ({"max_proactive_contacts_per_day": "5"}, "max_proactive_contacts_per_day"),
    "cap_true": ({"max_proactive_contacts_per_day": True}, "max_proactive_contacts_per_day"),
    "cap_fraction": ({"max_proactive_contacts_per_day": 5.5}, "max_proactive_contacts_per_day"),
    "day_fraction": ({"quiet_days": [6.5]}, "quiet_days.0"),
    "allow_string": ({"allow_proactive_ping": "true"}, "allow_proactive_ping"),
    "allow_int": ({"allow_proactive_ping": 1}, "allow_proactive_ping"),
    "channel_unknown": ({"preferred_channel": "email"}, "preferred_channel"),
    "day_0": ({"quiet_days": [0]}, "quiet_days.0"),
    "day_8": ({"quiet_days": [8]}, "quiet_days.0"),
    "day_string": ({"quiet_days": ["6"]}, "quiet_days.0"),
    "day_repeated": ({"quiet_days": [6, 7, 6]}, "quiet_days"),
    "paused_naive": ({"paused_until": "2026-03-20T10:00:00"}, "paused_until"),
    "paused_date_only": ({"paused_until": "2026-03-20"}, "paused_until"),
    "paused_number": ({"paused_until": 1774000000}, "paused_until"),
    "paused_text": ({"paused_until": "tomorrow"}, "paused_until"),
    "paused_digits": ({"paused_until": "1774000000"}, "paused_until"),
    "paused_without_seconds": ({"paused_until": "2026-03-20T10:00+08:00"}, "paused_until"),
    "paused_space": ({"paused_until": "2026-03-20 10:00:00+08:00"}, "paused_until"),
    "paused_lower_z": ({"paused_until": "2026-03-20T02:00:00z"}, "paused_until"),
    "window_bad_time": ({"quiet_hours": [{"start": "24:00", "end": "08:00"}]}, "quiet_hours.0.start"),
    "window_not_object": ({"quiet_hours": ["23:00-08:00"]}, "quiet_hours.0"),
    "unknown_field": ({"max_pings": 3}, "max_pings"),
}


@pytest.mark.parametrize("data,field", BAD_POLICIES.values(), ids=BAD_POLICIES.keys())
def test_invalid_policy_values_are_rejected_at_their_field(data, field):
    with pytest.raises(ValidationError) as exc:
        InteractionPolicy.model_validate_json(json.dumps(data))
    assert field in error_fields(exc.value)


def test_a_whole_number_written_with_a_point_is_the_integer_json_schema_says_it_is():
    policy = InteractionPolicy.model_validate_json('{"max_proactive_contacts_per_day": 5.0, "quiet_days": [7.0, 1]}')
    assert (policy.max_proactive_contacts_per_day, policy.quiet_days) == (5, [1, 7])


def test_quiet_days_are_kept_sorted():
    assert InteractionPolicy(quiet_days=[7, 1, 6]).quiet_days == [1, 6, 7]


def test_paused_until_keeps_its_instant():
    policy = InteractionPolicy.model_validate({"paused_until": "2026-03-20T10:00:00+08:00"})
    assert policy.paused_until == datetime(2026, 3, 20, 2, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "data,field",
    [
        ({"max_proactive_contacts_per_day": 101}, "max_proactive_contacts_per_day"),
        ({"quiet_days": [9]}, "quiet_days.0"),
        ({"x": 1}, "x"),
    ],
)
def test_policy_patch_validates_like_the_policy(data, field):
    with pytest.raises(ValidationError) as exc:
        InteractionPolicyPatch.model_validate(data)
    assert field in error_fields(exc.value)


def test_policy_patch_knows_which_fields_were_given():
    assert InteractionPolicyPatch.model_validate({"preferred_channel": None}).model_dump(exclude_unset=True) == {
        "preferred_channel": None
    }


WINDOW_SCHEMA = jsonschema_rs.validator_for(QuietWindow.model_json_schema())
TIMES = [f"{h:02d}:{m:02d}" for h in range(24) for m in range(60)]


@pytest.mark.parametrize("time", TIMES[::7])
def test_the_window_schema_refuses_a_window_that_starts_where_it_ends(time):
    assert not WINDOW_SCHEMA.is_valid({"start": time, "end": time})


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(TIMES), st.sampled_from(TIMES))
def test_the_window_schema_admits_every_window_the_model_admits(start, end):
    assert WINDOW_SCHEMA.is_valid({"start": start, "end": end}) == (start != end)
