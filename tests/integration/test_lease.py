"""Leases: one holder per name across connections and processes; a holder whose session ends loses it."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from kernel.lease import AdvisoryLease, FileLease, for_database


@pytest.fixture
def leases(database_url):
    made = []

    def make(name: str = "telegram:1:poller"):
        lease = for_database(database_url, name, lease=3)
        made.append(lease)
        return lease

    yield make
    for lease in made:
        lease.close()


def test_only_one_of_two_leases_on_a_name_is_held_until_its_holder_releases_it(leases):
    first, second, other = leases(), leases(), leases("telegram:2:poller")
    assert first.acquire() and first.held()
    assert not second.acquire() and not second.held()
    assert other.acquire()  # another name is another lock
    assert first.acquire()  # asking again while holding keeps it
    first.release()
    assert not first.held() and second.acquire() and not first.acquire()


def test_the_lease_fits_the_database(database_url, tmp_path):
    lease = for_database(database_url, "telegram:1:poller", lease=3)
    if database_url.startswith("sqlite"):
        assert isinstance(lease, FileLease) and lease.path.name.endswith(".telegram_1_poller.lock")
    else:
        assert isinstance(lease, AdvisoryLease)
    assert for_database("sqlite:///:memory:", "x", lease=3).path is None
    lease.close()


@pytest.mark.parametrize("database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_a_holder_whose_session_ends_loses_the_lease_and_another_takes_it(database_url, leases):
    holder, standby = leases(), leases()
    assert holder.acquire() and not standby.acquire()
    admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:  # as when the holder's process dies or its host vanishes: the server ends it
        ended = conn.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :name"),
            {"name": "deputy lease telegram:1:poller"},
        ).all()
    admin.dispose()
    assert ended == [(True,)]  # only the holder's session carries the lease's name
    assert not holder.held()
    assert standby.acquire() and standby.held()
    assert not holder.acquire()


@pytest.mark.parametrize("database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_the_lease_session_gives_up_on_a_vanished_peer_within_the_lease(database_url):
    lease = AdvisoryLease(database_url, "telegram:1:poller", lease=15)  # the default DEPUTY_TELEGRAM_POLL_LEASE
    assert lease.acquire()
    settings = lease._conn.execute(
        text(
            "SELECT current_setting('tcp_keepalives_idle'), current_setting('tcp_keepalives_interval'),"
            " current_setting('tcp_keepalives_count'), current_setting('tcp_user_timeout')"
        )
    ).one()
    idle, interval, count, user_timeout = (int(v.removesuffix("ms").removesuffix("s") or 0) for v in settings)
    lease.close()
    if idle:  # a TCP connection (a Unix socket has no keepalives)
        assert idle + interval * count <= 15 and user_timeout == 15000
