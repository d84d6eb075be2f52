"""Feishu's free/busy through lark-oapi against the fake: the request Feishu documents, its refusals and rate limits
in the error taxonomy, and the calendar switched on only by DEPUTY_FEISHU_CALENDAR with the app configured."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from lark_oapi.api.calendar.v4 import ListFreebusyRequest, ListFreebusyRequestBody

from app import plugins
from channels.errors import InvalidRequest, RateLimited, Transient
from channels.feishu.calendar import FeishuCalendar
from person.calendar import CalendarFailed
from tests.conftest import make_settings
from tests.fakes import feishu_server as fs

NOON = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)  # 12:00 Asia/Shanghai
H = timedelta(hours=1)


@pytest.fixture
def fake() -> Iterator[fs.FakeFeishu]:
    server = fs.FakeFeishu().start()
    server.add_user("ou_zs", "张三")
    yield server
    server.stop()


@pytest.fixture
def calendar(fake) -> FeishuCalendar:
    return FeishuCalendar(app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=fake.domain)


def test_busy_blocks_come_back_as_moments_and_only_those_in_the_window(calendar, fake):
    fake.add_busy("ou_zs", NOON - 2 * H, NOON - H)  # over before the window
    fake.add_busy("ou_zs", NOON - H / 2, NOON + H)
    fake.add_busy("ou_zs", NOON + 3 * H, NOON + 4 * H)
    blocks = calendar.busy(external_id="ou_zs", start=NOON, end=NOON + 24 * H)
    assert blocks == [(NOON - H / 2, NOON + H), (NOON + 3 * H, NOON + 4 * H)]
    assert all(a.utcoffset() == timedelta(hours=8) for a, _ in blocks)  # as Feishu writes them, +08:00
    (seen,) = fake.freebusy_requests()
    assert seen.query == {"user_id_type": "open_id"}
    assert seen.body == {"time_min": "2026-03-18T04:00:00+00:00", "time_max": "2026-03-19T04:00:00+00:00",
                         "user_id": "ou_zs", "only_busy": True}  # fmt: skip


def test_a_window_wider_than_feishu_allows_is_cut_to_ninety_days(calendar, fake):
    assert calendar.busy(external_id="ou_zs", start=NOON, end=NOON + timedelta(days=365)) == []
    assert fake.freebusy_requests()[0].body["time_max"] == "2026-06-16T04:00:00+00:00"


def _raw(calendar: FeishuCalendar, **fields) -> None:
    """A freebusy/list request with exactly these body fields, through the same client."""
    body = ListFreebusyRequestBody(fields)
    request = ListFreebusyRequest.builder().user_id_type("open_id").request_body(body).build()
    api = calendar.api
    api.call(lambda option: api.client.calendar.v4.freebusy.list(request, option), what="freebusy")


@pytest.mark.parametrize(
    "fields",
    [
        {"time_min": "2026-03-18T12:00:00+08:00", "time_max": "2026-03-18T18:00:00+08:00"},  # nobody
        {"time_min": "2026-03-18T12:00:00+08:00", "time_max": "2026-03-18T11:00:00+08:00", "user_id": "ou_zs"},
        {"time_min": "2026-03-18T12:00:00+08:00", "time_max": "2026-06-18T12:00:00+08:00", "user_id": "ou_zs"},
        {"time_min": "tomorrow", "time_max": "2026-03-18T18:00:00+08:00", "user_id": "ou_zs"},
        {"time_min": "2026-03-18T12:00:00+08:00", "time_max": "2026-03-18T18:00:00+08:00", "user_id": "ou_nobody"},
    ],
    ids=["no_user", "time_max_before_time_min", "over_90_days", "not_rfc3339", "unknown_user"],
)
def test_feishu_refuses_a_request_it_documents_as_invalid(calendar, fields):
    with pytest.raises(InvalidRequest) as refused:
        _raw(calendar, **fields)
    assert refused.value.code == 190002


@pytest.mark.parametrize(
    ("reply", "error", "code", "retry_after"),
    [
        (fs.TOO_MANY_REQUESTS, RateLimited, 99991400, 3.0),
        (fs.CALENDAR_RATE_LIMITED, RateLimited, 190004, None),
        (fs.NO_CALENDAR_SCOPE, InvalidRequest, 99991672, None),
        (fs.SERVER_ERROR, Transient, 1500, None),
    ],
    ids=["app_rate_limit", "calendar_rate_limit", "scope_missing", "server_error"],
)
def test_failures_come_out_in_the_error_taxonomy(calendar, fake, reply, error, code, retry_after):
    fake.script("freebusy", reply)
    with pytest.raises(error) as failed:
        calendar.busy(external_id="ou_zs", start=NOON, end=NOON + H)
    assert (failed.value.code, failed.value.retry_after) == (code, retry_after)


def test_the_person_layer_hears_a_rate_limit_as_a_pause_for_everyone_and_a_refusal_as_this_person(calendar, fake):
    source = plugins.PlatformBusy(calendar)
    fake.script("freebusy", fs.TOO_MANY_REQUESTS, fs.NO_CALENDAR_SCOPE)
    with pytest.raises(CalendarFailed) as limited:
        source.busy(external_id="ou_zs", start=NOON, end=NOON + H)
    assert (limited.value.everyone, limited.value.retry_after) == (True, 3.0)
    assert "99991400" in limited.value.why
    with pytest.raises(CalendarFailed) as refused:
        source.busy(external_id="ou_zs", start=NOON, end=NOON + H)
    assert refused.value.everyone is False and "99991672" in refused.value.why


def test_the_calendar_is_read_only_when_switched_on_and_feishu_is_configured(tmp_path):
    url = f"sqlite:///{tmp_path}/d.db"
    app = {"feishu_app_id": fs.APP_ID, "feishu_app_secret": fs.APP_SECRET}
    assert plugins.calendar(make_settings(url, **app)) is None  # off by default
    assert plugins.calendar(make_settings(url, feishu_calendar=True)) is None  # no app
    assert plugins.calendar(make_settings(url, feishu_calendar=True, dry_run_channels="feishu", **app)) is None
    assert plugins.calendar(make_settings(url, feishu_calendar=True, **app)).channels == ("feishu",)
