"""One poller per bot across replicas: the lease holder polls, another takes over when it dies, none lost or doubled."""

from __future__ import annotations

import multiprocessing
from datetime import timedelta

import pytest

from app.inbound import PerceptionInbound
from channels.models import read_state
from kernel.context import AppContext
from tests.conftest import redis_url
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.test_telegram_polling import event_ids, make_poller, wait_for
from tests.integration.workers import polling_replica


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


class EveryoneLeads:
    """A lease everyone holds at once: what polling was before the lease."""

    name, lease = "nobody", 1.0

    def acquire(self) -> bool:
        return True

    def held(self) -> bool:
        return True

    def release(self) -> None:
        pass

    def close(self) -> None:
        pass


def stored_offset(ctx: AppContext) -> int | None:
    with ctx.reader() as uow:
        value = read_state(uow, key=f"telegram:{TOKEN.partition(':')[0]}:updates_offset")
    return int(value) if value is not None else None


def more_polls(fake: FakeTelegram, count: int) -> None:
    seen = len(fake.get_updates_answers)
    wait_for(lambda: len(fake.get_updates_answers) >= seen + count, f"{count} more answered polls")


def test_the_fake_bot_api_ends_a_waiting_poll_with_409_when_another_poll_starts(ctx, fake):
    pollers = [make_poller(ctx, fake, lease=EveryoneLeads()).start() for _ in range(2)]
    try:
        wait_for(lambda: fake.conflicts >= 2, "getUpdates conflicts between two pollers")
    finally:
        for poller in pollers:
            poller.stop()


def test_of_two_pollers_only_the_lease_holder_polls_and_the_other_takes_over_when_it_stops(ctx: AppContext, fake):
    ctx.settings.telegram_poll_lease = timedelta(seconds=1)  # the standby asks every third of a second
    first = [fake.push_message(text=f"first {n}") for n in range(3)]
    pollers = [make_poller(ctx, fake, inbound=PerceptionInbound(ctx)).start() for _ in range(2)]
    try:
        wait_for(lambda: event_ids(ctx) == first, "the first updates")
        more_polls(fake, 3)  # the other poller keeps asking for the lease meanwhile
        leaders = [p for p in pollers if p.leading]
        assert len(leaders) == 1 and fake.conflicts == 0
        leader, standby = leaders[0], next(p for p in pollers if p is not leaders[0])
        leader.stop()
        second = [fake.push_message(text=f"second {n}") for n in range(3)]
        # The offset moves past an update only after its fact is written: wait for both.
        done = first + second, second[-1] + 1
        wait_for(lambda: standby.leading and (event_ids(ctx), stored_offset(ctx)) == done, "the standby to take over")
        assert event_ids(ctx) == first + second and fake.conflicts == 0
    finally:
        for poller in pollers:
            poller.stop()


@pytest.mark.slow
def test_when_the_polling_replica_dies_another_takes_over_and_no_update_is_lost_or_doubled(
    ctx: AppContext, database_url, fake
):
    settings = {
        "database_url": database_url,
        "telegram_mode": "polling",
        "telegram_bot_token": TOKEN,
        "telegram_api_base": fake.base_url,
        "telegram_poll_lease": "2s",
        "dry_run_channels": "telegram",
    }
    if not database_url.startswith("sqlite"):
        settings["redis_url"] = redis_url()  # the scale-out deployment: PostgreSQL and Redis
    spawn = multiprocessing.get_context("spawn")
    manager = spawn.Manager()
    status = manager.dict()
    replicas = {
        name: spawn.Process(target=polling_replica, args=(settings, name, status), daemon=True) for name in "ab"
    }
    for replica in replicas.values():
        replica.start()
    try:
        first = [fake.push_message(text=f"first {n}") for n in range(3)]
        wait_for(lambda: len(status) == 2 and event_ids(ctx) == first, "both replicas up, the first updates", 120)
        more_polls(fake, 3)  # both replicas run for several polls: the standby keeps asking for the lease
        leaders = [name for name, leading in status.items() if leading]
        assert len(leaders) == 1 and fake.conflicts == 0
        standby = next(name for name in replicas if name != leaders[0])

        second = [fake.push_message(text=f"second {n}") for n in range(3)]
        replicas[leaders[0]].kill()  # SIGKILL, wherever it is: mid-poll, mid-batch, between two updates
        replicas[leaders[0]].join(30)
        third = [fake.push_message(text=f"third {n}") for n in range(3)]
        done = first + second + third, third[-1] + 1  # every update recorded once, the offset past the last
        wait_for(lambda: status[standby] and (event_ids(ctx), stored_offset(ctx)) == done, "the takeover", 120)
        assert event_ids(ctx) == first + second + third and fake.conflicts == 0
    finally:
        for replica in replicas.values():
            replica.kill()
            replica.join(30)
        manager.shutdown()
