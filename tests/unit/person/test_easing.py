""" "Too many messages" as a pure rule: the daily cap one lower down to 1, then longer follow-up waits up to 4.0."""

import pytest

from person.models import InteractionPolicy
from person.rules import CAP_FLOOR, Easing, eased


def _policy(cap=5, stretch=1.0):
    return InteractionPolicy(max_proactive_contacts_per_day=cap, follow_up_stretch=stretch)


@pytest.mark.parametrize("cap", [2, 5, 100])
def test_the_first_choice_lowers_the_daily_cap_by_one(cap):
    assert eased(_policy(cap)) == Easing("max_proactive_contacts_per_day", cap, cap - 1)


def test_the_cap_never_goes_below_its_floor_of_one():
    policy = _policy(2)
    while (step := eased(policy)) is not None and step.field == "max_proactive_contacts_per_day":
        policy = InteractionPolicy.model_validate({**policy.model_dump(), step.field: step.after})
    assert policy.max_proactive_contacts_per_day == CAP_FLOOR == 1


def test_at_the_floor_each_press_spaces_the_follow_ups_half_as_far_again_up_to_four():
    policy, seen = _policy(1), []
    while (step := eased(policy)) is not None:
        assert step.field == "follow_up_stretch" and step.after > step.before
        seen.append(step.after)
        policy = InteractionPolicy.model_validate({**policy.model_dump(), step.field: step.after})
    assert seen == [1.5, 2.25, 3.38, 4.0]


def test_a_cap_of_zero_is_never_raised_to_one():
    assert eased(_policy(0)) == Easing("follow_up_stretch", 1.0, 1.5)


def test_nothing_is_left_to_ease_at_cap_one_and_stretch_four():
    assert eased(_policy(1, 4.0)) is None
