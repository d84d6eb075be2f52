"""The console's login limit cannot be dodged: X-Forwarded-For counts only from DEPUTY_TRUSTED_PROXIES, each client
behind a trusted proxy has its own count, and with Redis the count is shared by every replica (this process's own
count still applies when Redis does not answer). Guesses are distinct tokens: a repeated one counts once."""

from __future__ import annotations

import secrets
from datetime import timedelta
from ipaddress import ip_network

import pytest
from fastapi.testclient import TestClient

from app.console.clients import client_address, limit_key
from app.main import create_app
from app.wiring import build_context
from kernel.clock import FrozenClock
from tests.conftest import ADMIN_TOKEN, START, make_settings, redis_url
from tests.docs.readme_walkthrough import free_port

PROXY = "10.0.0.2"


def _login(client: TestClient, token: str, forwarded: str | None = None) -> int:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return client.post("/console/login", data={"token": token}, headers=headers, follow_redirects=False).status_code


def _client(ctx, peer: str) -> TestClient:
    return TestClient(create_app(ctx=ctx, run_migrations=False), raise_server_exceptions=False, client=(peer, 50000))


def test_a_new_forwarded_address_with_every_guess_still_meets_the_limit(ctx):
    with _client(ctx, "198.51.100.20") as browser:  # no trusted proxies: the header is the client's own claim
        codes = [_login(browser, f"guess-{i}", forwarded=f"203.0.113.{i}") for i in range(6)]
        assert codes == [401] * 5 + [429]
        assert _login(browser, ADMIN_TOKEN, forwarded="192.0.2.1") == 429


def test_behind_a_trusted_proxy_one_guesser_is_limited_and_everyone_else_still_logs_in(ctx):
    ctx.settings = ctx.settings.model_copy(update={"trusted_proxies": "10.0.0.0/24"})
    with _client(ctx, PROXY) as proxy:
        assert [_login(proxy, f"guess-{i}", forwarded="203.0.113.5") for i in range(6)] == [401] * 5 + [429]
        # The guesser cannot step around it by claiming another address in front of its own: the proxy appends.
        assert _login(proxy, "guess-9", forwarded="192.0.2.77, 203.0.113.5") == 429
        assert _login(proxy, ADMIN_TOKEN, forwarded="198.51.100.7") == 303


def test_an_ipv6_guesser_is_counted_by_its_64_block(ctx):
    app = create_app(ctx=ctx, run_migrations=False)
    with TestClient(app, raise_server_exceptions=False, client=("2001:db8:1:2::10", 50000)) as first:
        assert [_login(first, f"guess-{i}") for i in range(5)] == [401] * 5
    with TestClient(app, raise_server_exceptions=False, client=("2001:db8:1:2::99", 50000)) as same_block:
        assert _login(same_block, ADMIN_TOKEN) == 429
    with TestClient(app, raise_server_exceptions=False, client=("2001:db8:1:3::10", 50000)) as next_block:
        assert _login(next_block, ADMIN_TOKEN) == 303


@pytest.fixture
def replicas(database_url):
    """Two processes over one database and one Redis, on one frozen clock."""
    clock = FrozenClock(START)
    made = [build_context(make_settings(database_url, redis_url=redis_url()), clock=clock) for _ in range(2)]
    yield made, clock
    for ctx in made:
        ctx.close()


def test_the_limit_is_shared_by_every_replica_through_redis(replicas):
    (first, second), _ = replicas
    peer = f"2001:db8:{secrets.randbelow(65535):x}:{secrets.randbelow(65535):x}::1"
    one, two = (_client(ctx, peer) for ctx in (first, second))
    with one, two:
        codes = [_login(browser, f"guess-{i}") for i, browser in enumerate((one, two, one, two, one))]
        assert codes == [401] * 5
        assert _login(two, ADMIN_TOKEN) == 429 and _login(one, ADMIN_TOKEN) == 429


def test_through_redis_a_repeated_guess_counts_once_and_a_known_device_logs_in_on_any_replica(replicas):
    (first, second), clock = replicas
    known = _client(first, PROXY)
    with known:
        assert _login(known, ADMIN_TOKEN) == 303  # its device cookie is signed with the key both replicas share
    one, two = (_client(ctx, PROXY) for ctx in (first, second))
    with one, two:
        assert [_login(browser, "stale") for browser in (one, two, one, two)] == [401] * 4
        assert [_login(browser, f"guess-{i}") for i, browser in enumerate((two, one, two, one))] == [401] * 4
        assert _login(one, ADMIN_TOKEN) == 429 and _login(two, ADMIN_TOKEN) == 429
    with _client(second, PROXY) as known_on_two:
        known_on_two.cookies = known.cookies
        assert _login(known_on_two, ADMIN_TOKEN) == 303
    clock.advance(timedelta(minutes=15) - timedelta(seconds=1))
    with _client(second, PROXY) as newcomer:
        assert _login(newcomer, ADMIN_TOKEN) == 429  # the shared window's end, read from Redis
        clock.advance(timedelta(seconds=1))
        assert _login(newcomer, ADMIN_TOKEN) == 303


def test_the_limit_every_new_browser_shares_is_shared_by_every_replica(database_url):
    clock = FrozenClock(START)
    settings = make_settings(database_url, redis_url=redis_url(), console_login_new_device_attempts=4)
    made = [build_context(settings, clock=clock) for _ in range(2)]
    try:
        for i in range(4):
            with _client(made[i % 2], f"203.0.113.{i}") as guesser:
                assert _login(guesser, f"guess-{i}") == 401
        with _client(made[0], "198.51.100.1") as a, _client(made[1], "198.51.100.2") as b:
            assert _login(a, ADMIN_TOKEN) == 429 and _login(b, ADMIN_TOKEN) == 429
    finally:
        for ctx in made:
            ctx.close()


def test_when_redis_does_not_answer_this_process_still_counts(database_url, clock):
    nowhere = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens: every call fails at once
    ctx = build_context(make_settings(database_url, redis_url=nowhere), clock=clock)
    try:
        with _client(ctx, "198.51.100.30") as browser:
            assert [_login(browser, f"guess-{i}") for i in range(6)] == [401] * 5 + [429]
    finally:
        ctx.close()


@pytest.mark.parametrize(
    ("peer", "header", "trusted", "expected"),
    [
        ("198.51.100.1", ["1.2.3.4"], [], "198.51.100.1"),
        ("10.0.0.2", ["1.2.3.4"], ["10.0.0.0/8"], "1.2.3.4"),
        ("10.0.0.2", ["6.6.6.6, 1.2.3.4, 10.0.0.3"], ["10.0.0.0/8"], "1.2.3.4"),
        ("10.0.0.2", ["6.6.6.6", "1.2.3.4"], ["10.0.0.0/8"], "1.2.3.4"),
        ("10.0.0.2", [], ["10.0.0.0/8"], "10.0.0.2"),
        ("10.0.0.2", ["not-an-ip"], ["10.0.0.0/8"], "10.0.0.2"),
        ("127.0.0.1", ["1.2.3.4"], [], "127.0.0.1"),
    ],
    ids=["untrusted-peer", "trusted", "rightmost-untrusted", "two-headers", "no-header", "garbage", "loopback"],
)
def test_the_client_address_believes_only_trusted_proxies(peer, header, trusted, expected):
    assert client_address(peer, header, [ip_network(t) for t in trusted]) == expected


def test_the_limit_counts_ipv6_by_its_64_and_mapped_ipv4_as_ipv4():
    assert limit_key("2001:db8::1") == limit_key("2001:db8::ffff") == "2001:db8::/64"
    assert limit_key("::ffff:192.0.2.1") == "192.0.2.1" and limit_key("unknown") == "unknown"
