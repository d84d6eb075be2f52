"""Feishu's free/busy (`calendar.v4.freebusy.list` through lark-oapi): one user's busy blocks over a window.

One user per request, by the open_id their Feishu binding carries (`user_id_type=open_id`); only busy events
(`only_busy`), the user's bound external calendars included (Feishu's default). Failures come out in the error
taxonomy, like a send's: 99991400 and Feishu's calendar rate limits (HTTP 429) as RateLimited, a timeout or a 5xx as
Transient, a refusal (190002 invalid parameters, 99991672 a scope missing) as InvalidRequest.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from channels.errors import Transient

WHAT = "calendar.v4.freebusy.list"
# A busy read comes before a contact: a slow calendar must hold the pipeline for less than a send may take.
CALENDAR_TIMEOUT = 3.0
MAX_WINDOW = timedelta(days=90)  # Feishu refuses a time_min..time_max wider than 90 days


def rfc3339(moment: datetime) -> str:
    """A moment as Feishu's RFC 3339 date_time, in UTC (`2026-03-18T04:00:00+00:00`)."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _block(item: Any) -> tuple[datetime, datetime]:
    """One freebusy_list entry as aware datetimes; an entry that is not RFC 3339 makes the answer unreadable."""
    try:
        start, end = datetime.fromisoformat(item.start_time), datetime.fromisoformat(item.end_time)
    except (TypeError, ValueError) as exc:
        raise Transient(
            f"{WHAT}: unreadable busy block {item.start_time!r}–{item.end_time!r}", code="bad_answer"
        ) from exc
    if start.tzinfo is None or end.tzinfo is None:
        raise Transient(f"{WHAT}: busy block without a UTC offset", code="bad_answer")
    return start, end


class FeishuCalendar:
    """The busy time of the app's users, with the app's own credentials and a short timeout."""

    channel = "feishu"

    def __init__(self, *, app_id: str, app_secret: str, domain: str, timeout: float = CALENDAR_TIMEOUT) -> None:
        self.app_id, self.domain, self._secret, self._timeout = app_id, domain, app_secret, timeout
        self._api: Any = None
        self._api_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Any) -> FeishuCalendar:
        """The calendar of DEPUTY_FEISHU_APP_ID / _APP_SECRET / _DOMAIN."""
        secret = settings.feishu_app_secret.get_secret_value() if settings.feishu_app_secret else ""
        return cls(app_id=settings.feishu_app_id, app_secret=secret, domain=settings.feishu_domain)

    @property
    def api(self) -> Any:
        """Its lark-oapi client (tenant tokens shared with the sender's), built on first use."""
        with self._api_lock:
            if self._api is None:
                from channels.feishu.api import FeishuApi

                self._api = FeishuApi(
                    app_id=self.app_id, app_secret=self._secret, domain=self.domain, timeout=self._timeout
                )
            return self._api

    def busy(self, *, external_id: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
        """The user's busy blocks overlapping [start, end) (at most 90 days), as Feishu lists them."""
        from lark_oapi.api.calendar.v4 import ListFreebusyRequest, ListFreebusyRequestBody

        body = (
            ListFreebusyRequestBody.builder()
            .time_min(rfc3339(start))
            .time_max(rfc3339(min(end, start + MAX_WINDOW)))
            .user_id(external_id)
            .only_busy(True)
            .build()
        )
        request = ListFreebusyRequest.builder().user_id_type("open_id").request_body(body).build()
        api = self.api
        response = api.call(lambda option: api.client.calendar.v4.freebusy.list(request, option), what=WHAT)
        items = (response.data.freebusy_list if response.data is not None else None) or []
        return [_block(item) for item in items]
