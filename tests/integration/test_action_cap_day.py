"""The daily cap counts the person's local day, whatever timezone this process guessed for them before reading."""

from datetime import UTC, datetime

import pytest

from action import service, snapshots
from person import service as persons
from person.models import PersonUpdate
from tests.integration.action_helpers import add_memory_channels, add_person, notify

# The service's timezone is Asia/Shanghai (tests' settings). Mar 17, 12:00 UTC is 05:00 in Los Angeles (PDT) and
# 20:00 in Shanghai; Mar 18, 02:00 UTC is still Mar 17 in Los Angeles but the next day in Shanghai.
LA_MORNING = datetime(2026, 3, 17, 12, 0, tzinfo=UTC)
SHANGHAI_NEXT_DAY = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _channels(ctx):
    add_memory_channels(ctx)


def _unseen() -> None:
    """As in a process that has never judged this person (another replica, a restart)."""
    snapshots._TZ_OF.clear()


def _two_sent_on_a_los_angeles_morning(ctx, clock) -> None:
    """A person in Los Angeles with a cap of two, both used on their morning of Mar 17."""
    add_person(ctx, timezone="America/Los_Angeles", policy={"max_proactive_contacts_per_day": 2})
    clock.set(LA_MORNING)
    for kind in ("first", "second"):
        assert service.execute(ctx, request=notify(notification_type=kind)).result == "success"


def test_the_cap_counts_the_persons_day_in_a_process_that_has_not_seen_them(ctx, clock):
    _two_sent_on_a_los_angeles_morning(ctx, clock)
    clock.set(SHANGHAI_NEXT_DAY)
    _unseen()  # the first read takes Shanghai's day, where nothing was sent yet
    record = service.execute(ctx, request=notify(notification_type="third"))
    assert record.result == "blocked" and record.result_detail["blocked_by"] == "L1:daily_cap"


def test_the_cap_counts_the_persons_day_once_the_process_knows_their_timezone(ctx, clock):
    _unseen()
    _two_sent_on_a_los_angeles_morning(ctx, clock)
    assert snapshots._TZ_OF["p_zhangsan"] == "America/Los_Angeles"
    clock.set(SHANGHAI_NEXT_DAY)
    record = service.execute(ctx, request=notify(notification_type="third"))
    assert record.result == "blocked" and record.result_detail["blocked_by"] == "L1:daily_cap"


def test_a_person_who_moved_is_counted_in_their_new_timezone(ctx, clock):
    _unseen()
    _two_sent_on_a_los_angeles_morning(ctx, clock)
    with ctx.uow(actor="test") as uow:
        persons.update(uow, person_id="p_zhangsan", patch=PersonUpdate(timezone="Asia/Shanghai"))
    clock.set(SHANGHAI_NEXT_DAY)  # a new day in Shanghai: the two of yesterday no longer count
    assert service.execute(ctx, request=notify(notification_type="third")).result == "success"
    assert snapshots._TZ_OF["p_zhangsan"] == "Asia/Shanghai"


def test_a_verdict_asked_ahead_counts_the_persons_day_too(ctx, clock):
    _two_sent_on_a_los_angeles_morning(ctx, clock)
    clock.set(SHANGHAI_NEXT_DAY)
    _unseen()
    with ctx.reader() as uow:
        verdict = service.verdict_now(uow, request=notify(notification_type="third"))
    assert not verdict.allowed and verdict.blocked_by == "L1:daily_cap"
