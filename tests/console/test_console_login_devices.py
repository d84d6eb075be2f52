"""Behind one address (a proxy nobody listed as trusted, a shared NAT) the login limit still stops a guesser and
does not lock everyone out: browsers that logged in before are counted apart (device cookies), a stale token
retried spends one guess, and a guesser spread over many addresses meets the limit every new browser shares.
Through the real console login route; every browser here comes from the same address unless it says otherwise."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from app.console.auth import DEVICE_COOKIE
from app.main import create_app
from app.wiring import build_context
from tests.conftest import ADMIN_TOKEN, VIEWER_TOKEN, make_settings

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # no database question here
ENGLISH, CHINESE = {"Accept-Language": "en"}, {"Accept-Language": "zh-CN"}


def _try(browser, token: str, **kwargs) -> int:
    return browser.post("/console/login", {"token": token}, csrf=False, **kwargs).status_code


def _guesses(browser, count: int, label: str = "guess") -> list[int]:
    return [_try(browser, f"{label}-{i}") for i in range(count)]


@pytest.mark.parametrize("secure", [False, True])
def test_a_login_sets_a_signed_http_only_device_cookie_for_30_days_naming_no_token(database_url, clock, secure):
    ctx = build_context(make_settings(database_url, console_secure_cookies=secure), clock=clock)
    try:
        with TestClient(create_app(ctx=ctx, run_migrations=False)) as browser:
            response = browser.post("/console/login", data={"token": VIEWER_TOKEN}, follow_redirects=False)
    finally:
        ctx.close()
    [device] = [c for c in response.headers.get_list("set-cookie") if c.startswith(f"{DEVICE_COOKIE}=")]
    assert "HttpOnly" in device and "SameSite=lax" in device and "Path=/console" in device
    assert f"Max-Age={30 * 86400}" in device and ("Secure" in device) is secure and VIEWER_TOKEN not in device


def test_a_guesser_filling_the_shared_address_does_not_lock_out_a_browser_that_logged_in_before(open_browser):
    colleague = open_browser().login(VIEWER_TOKEN)
    colleague.post("/console/logout")  # the session ends; the device cookie stays
    guesser = open_browser()
    assert _guesses(guesser, 6) == [401] * 5 + [429]
    assert _try(colleague, VIEWER_TOKEN) == 303
    newcomer = open_browser()
    refused = newcomer.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False, headers=ENGLISH)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 15 * 60
    assert "Too many failed logins from this address" in refused.text and "logged in here before" in refused.text
    chinese = newcomer.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False, headers=CHINESE)
    assert "此地址登录失败次数过多" in chinese.text and "15 分钟后再试" in chinese.text


def test_the_shared_address_takes_a_new_browser_again_exactly_when_the_window_ends(open_browser, clock):
    assert _guesses(open_browser(), 5) == [401] * 5
    newcomer = open_browser()
    clock.advance(timedelta(minutes=15) - timedelta(seconds=1))
    limited = newcomer.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False)
    assert limited.status_code == 429 and limited.headers["Retry-After"] == "1"
    clock.advance(timedelta(seconds=1))
    assert _try(newcomer, ADMIN_TOKEN) == 303


def test_a_stale_token_retried_again_and_again_spends_one_guess(open_browser):
    stale = open_browser()
    assert [_try(stale, "last-months-token") for _ in range(12)] == [401] * 12
    assert _guesses(open_browser(), 4) == [401] * 4  # the address still had four guesses left
    assert _try(open_browser(), "one-more") == 429


def test_a_known_devices_own_guesses_fill_its_holders_bucket_and_neither_a_success_nor_a_new_cookie_empties_it(
    open_browser,
):
    viewer = open_browser().login(VIEWER_TOKEN)
    assert _guesses(viewer, 3, "admin?") == [401] * 3
    assert _try(viewer, VIEWER_TOKEN) == 303  # logging in between guesses buys no more of them
    assert _guesses(viewer, 3, "more") == [401, 401, 429]
    limited = viewer.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False, headers=ENGLISH)
    assert limited.status_code == 429 and "from this browser" in limited.text
    second = open_browser().login(VIEWER_TOKEN)  # the address was never counted: a new browser logs in ...
    assert _try(second, "yet-another") == 429  # ... and its fresh cookie names the same holder's full bucket
    assert _try(open_browser(), ADMIN_TOKEN) == 303


def test_a_forged_or_expired_device_cookie_is_a_new_browser(open_browser, clock):
    known = open_browser().login(ADMIN_TOKEN)
    assert _guesses(open_browser(), 5) == [401] * 5
    forged = open_browser()
    value = known.client.cookies.get(DEVICE_COOKIE)
    forged.client.cookies.set(DEVICE_COOKIE, value[:-2] + ("AA" if not value.endswith("AA") else "BB"), path="/console")
    assert _try(forged, ADMIN_TOKEN) == 429
    clock.advance(timedelta(minutes=14))
    assert _try(known, ADMIN_TOKEN) == 303  # re-issued: valid for another 30 days from here
    clock.advance(timedelta(days=30, seconds=1))
    assert _guesses(open_browser(), 5) == [401] * 5
    assert _try(known, ADMIN_TOKEN) == 429


def test_a_guesser_spread_over_many_addresses_meets_the_limit_every_new_browser_shares(database_url, clock):
    ctx = build_context(make_settings(database_url, console_login_new_device_attempts=6), clock=clock)
    app = create_app(ctx=ctx, run_migrations=False)
    try:
        with TestClient(app, client=("192.0.2.1", 1)) as known:
            assert _post(known, ADMIN_TOKEN) == 303
        for host in range(3):
            with TestClient(app, client=(f"203.0.113.{host}", 1)) as guesser:
                assert [_post(guesser, f"{host}-{i}") for i in range(2)] == [401, 401]
        with TestClient(app, client=("198.51.100.7", 1)) as newcomer:
            refused = newcomer.post("/console/login", data={"token": ADMIN_TOKEN}, headers=ENGLISH)
            assert refused.status_code == 429 and "browsers new to this console" in refused.text
        with TestClient(app, client=("198.51.100.7", 1), cookies=known.cookies) as known_elsewhere:
            assert _post(known_elsewhere, ADMIN_TOKEN) == 303
    finally:
        ctx.close()


def test_wrong_one_time_codes_count_in_the_same_buckets_as_wrong_tokens(open_browser):
    guesser = open_browser()
    codes = [guesser.get(f"/console/first-login?login_code=code-{i}").status_code for i in range(5)]
    assert codes == [401] * 5
    assert _try(open_browser(), ADMIN_TOKEN) == 429
    assert guesser.get("/console/first-login?login_code=code-9").status_code == 429


def _post(client: TestClient, token: str) -> int:
    return client.post("/console/login", data={"token": token}, follow_redirects=False).status_code
