"""The console's login limit as pure rules: which buckets an attempt meets, the sliding window and its boundary,
distinct guesses, known devices apart from their address, and a guesser spread over many addresses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.console.limits import ADDRESS, DEVICE, NEW_DEVICES, Attempt, Bucket, Limited, LoginLimiter, buckets, wait

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=10)
SHARED = Attempt("198.51.100.1")  # everyone behind one NAT, or one proxy nobody listed as trusted


def _limiter(attempts: int = 3, new_device_attempts: int = 100) -> LoginLimiter:
    return LoginLimiter(attempts=attempts, window=WINDOW, new_device_attempts=new_device_attempts)


def _guess(limiter: LoginLimiter, attempt: Attempt, count: int, *, at: datetime = NOW, label: str = "g") -> None:
    for i in range(count):
        assert limiter.retry_after(attempt, now=at) is None
        limiter.failed(attempt, f"{label}-{i}", now=at)


def test_a_known_device_is_counted_in_its_holders_bucket_and_any_other_browser_by_address_and_with_all_new_ones():
    assert buckets(Attempt("1.1.1.1", device="ops"), attempts=5, new_device_attempts=50) == (
        Bucket(DEVICE, "device:ops", 5),
    )
    assert buckets(Attempt("1.1.1.1"), attempts=5, new_device_attempts=50) == (
        Bucket(ADDRESS, "address:1.1.1.1", 5),
        Bucket(NEW_DEVICES, "new", 50),
    )


def test_the_wait_is_until_enough_failures_have_left_the_window_for_one_more():
    times = [NOW, NOW + timedelta(minutes=1), NOW + timedelta(minutes=2)]
    assert wait(times, limit=2, window=WINDOW, now=NOW + timedelta(minutes=3)) == timedelta(minutes=8)
    assert wait(times, limit=3, window=WINDOW, now=NOW + timedelta(minutes=3)) == timedelta(minutes=7)
    assert wait(times, limit=4, window=WINDOW, now=NOW + timedelta(minutes=3)) is None


def test_a_failure_leaves_the_window_exactly_at_its_end():
    limiter = _limiter(attempts=1)
    limiter.failed(SHARED, "guess", now=NOW)
    just_before = NOW + WINDOW - timedelta(microseconds=1)
    assert limiter.retry_after(SHARED, now=just_before) == Limited(ADDRESS, timedelta(microseconds=1))
    assert limiter.retry_after(SHARED, now=NOW + WINDOW) is None


def test_distinct_guesses_fill_an_address_and_the_same_guess_retried_counts_once():
    limiter = _limiter(attempts=3)
    for second in range(20):  # a browser retrying a stale token, again and again
        limiter.failed(SHARED, "stale-token", now=NOW + timedelta(seconds=second))
    _guess(limiter, SHARED, 2, at=NOW + timedelta(minutes=1))
    # Full now; the stale token's slot empties a window after it was last tried (at 19 s).
    assert limiter.retry_after(SHARED, now=NOW + timedelta(minutes=1)) == Limited(ADDRESS, timedelta(seconds=559))


def test_a_guesser_who_fills_the_shared_address_locks_out_no_known_device():
    limiter = _limiter(attempts=3)
    _guess(limiter, SHARED, 3)
    assert limiter.retry_after(SHARED, now=NOW).kind == ADDRESS  # new browsers behind it wait, as the guesser does
    known = Attempt(SHARED.address, device="ops")
    assert limiter.retry_after(known, now=NOW) is None
    _guess(limiter, known, 3, label="ops-typo")  # a known device's own mistakes fill its holder's bucket only
    assert limiter.retry_after(known, now=NOW) == Limited(DEVICE, WINDOW)
    assert limiter.retry_after(Attempt("203.0.113.9", device="auditor"), now=NOW) is None


def test_a_holders_devices_share_one_bucket_so_fresh_cookies_buy_no_fresh_guesses():
    limiter = _limiter(attempts=3)
    _guess(limiter, Attempt("192.0.2.1", device="auditor"), 3)
    assert limiter.retry_after(Attempt("192.0.2.2", device="auditor"), now=NOW).kind == DEVICE


def test_a_guesser_spread_over_many_addresses_meets_the_limit_every_new_browser_shares():
    limiter = _limiter(attempts=3, new_device_attempts=10)
    for host in range(5):
        _guess(limiter, Attempt(f"203.0.113.{host}"), 2, label=f"from-{host}")
    assert limiter.retry_after(Attempt("192.0.2.200"), now=NOW) == Limited(NEW_DEVICES, WINDOW)
    assert limiter.retry_after(Attempt("192.0.2.200", device="ops"), now=NOW) is None


def test_the_longest_wait_of_the_full_buckets_is_the_one_given():
    limiter = _limiter(attempts=2, new_device_attempts=3)
    _guess(limiter, Attempt("203.0.113.1"), 1, label="early")
    _guess(limiter, SHARED, 2, at=NOW + timedelta(minutes=4))
    assert limiter.retry_after(SHARED, now=NOW + timedelta(minutes=5)) == Limited(ADDRESS, timedelta(minutes=9))


@pytest.mark.parametrize(("tries", "kept"), [(3, [3, 3]), (40, [3, 4])])
def test_a_bucket_keeps_no_more_guesses_than_its_limit(tries, kept):
    limiter = _limiter(attempts=3, new_device_attempts=4)
    for i in range(tries):  # a race past the check, or Redis counting while this process was limited
        limiter.failed(SHARED, f"g-{i}", now=NOW + timedelta(seconds=i))
    assert sorted(len(guesses) for guesses in limiter._local.values()) == kept  # memory stays bounded
    assert limiter.retry_after(SHARED, now=NOW + timedelta(seconds=tries)) is not None
