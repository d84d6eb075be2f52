"""interaction_policy.follow_up_stretch on the schedule: longer follow-up waits, the escalation where it was."""

from datetime import UTC, datetime, timedelta

import pytest

from concern.rules import Step, next_step, stretched

T0 = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
H = timedelta(hours=1)
P1 = [4 * H, 24 * H, 24 * H]  # the default P1: two follow-ups, then escalate
SCHEDULE = {"P1": P1, "P0": [H, H]}


def plan(count, *, last, stretch, first=T0, deadline=None, priority="P1"):
    return next_step(
        priority=priority,
        schedule=SCHEDULE,
        contacted=True,
        follow_up_count=count,
        last_contact_at=last,
        deadline=deadline,
        now=last,
        stretch=stretch,
        first_contact_at=first,
    )


def test_a_stretch_of_one_is_the_schedule_as_configured():
    assert [plan(n, last=T0, stretch=1.0) for n in range(3)] == [
        Step("follow_up", T0 + 4 * H),
        Step("follow_up", T0 + 24 * H),
        Step("escalate", T0 + 24 * H),
    ]


def test_a_stretch_multiplies_the_wait_before_a_follow_up():
    assert plan(0, last=T0, stretch=1.5) == Step("follow_up", T0 + 6 * H)
    assert plan(0, last=T0, stretch=4.0) == Step("follow_up", T0 + 16 * H)


@pytest.mark.parametrize("stretch", [1.0, 1.5, 2.25, 4.0])
def test_a_stretched_follow_up_never_comes_sooner_than_the_schedules_own_wait(stretch):
    for count in range(2):
        step = stretched(P1, count, stretch=stretch, first=T0, last=T0 + 10 * H)
        assert step.at >= T0 + 10 * H + P1[count]


def test_the_escalation_stays_where_the_plain_schedule_puts_it():
    # Plain: contacts at 0, 4h, 28h and the escalation at 52h. Stretched ×1.5: 0, 6h; the second follow-up (42h)
    # would leave less than the last wait (24h) before 52h, so it is not sent and the loop escalates at 52h.
    assert plan(1, last=T0 + 6 * H, stretch=1.5) == Step("escalate", T0 + 52 * H)


def test_the_escalation_never_comes_sooner_than_the_last_wait_after_the_last_contact():
    # The first follow-up was held (quiet hours) until 40h: the manager still hears no sooner than 24h after it.
    assert plan(1, last=T0 + 40 * H, stretch=2.0) == Step("escalate", T0 + 64 * H)


def test_the_wait_before_escalating_is_not_stretched():
    assert plan(2, last=T0 + 28 * H, stretch=4.0) == Step("escalate", T0 + 52 * H)


def test_a_stretched_follow_up_never_goes_past_the_deadline():
    step = plan(0, last=T0, stretch=4.0, deadline=T0 + 10 * H)
    assert step.at <= T0 + 10 * H and step.kind == "escalate"
