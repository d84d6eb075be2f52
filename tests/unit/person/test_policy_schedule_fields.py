"""The principal's-day policy fields: brief and review times, digest; validated like the other policy fields."""

import pytest
from pydantic import ValidationError

from person.models import InteractionPolicy, InteractionPolicyPatch, wait_seconds


def test_the_defaults_are_a_brief_at_nine_no_review_and_no_digest():
    policy = InteractionPolicy()
    assert (policy.daily_brief_at, policy.weekly_review_at, policy.digest, policy.digest_max_wait) == (
        "09:00",
        None,
        False,
        "4h",
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("daily_brief_at", "9:00"),
        ("daily_brief_at", "24:00"),
        ("weekly_review_at", "MONDAY 09:00"),
        ("weekly_review_at", "mon 09:00"),
        ("weekly_review_at", "MON 9:00"),
        ("digest", "yes"),
        ("digest_max_wait", "4 hours"),
        ("digest_max_wait", "0h"),
        ("digest_max_wait", "8d"),
    ],
)
def test_a_bad_value_is_refused_naming_its_field(field, value):
    with pytest.raises(ValidationError) as caught:
        InteractionPolicyPatch.model_validate({field: value})
    assert caught.value.errors()[0]["loc"][0] == field


def test_null_turns_the_brief_and_the_review_off():
    patch = InteractionPolicyPatch.model_validate({"daily_brief_at": None, "weekly_review_at": "FRI 17:30"})
    merged = InteractionPolicy.model_validate(
        {**InteractionPolicy().model_dump(), **patch.model_dump(exclude_unset=True)}
    )
    assert merged.daily_brief_at is None and merged.weekly_review_at == "FRI 17:30"


def test_a_wait_reads_in_minutes_hours_or_days():
    assert [wait_seconds(v) for v in ("30m", "4h", "1d")] == [1800, 14400, 86400]
