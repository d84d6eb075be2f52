"""The model's reasons as people read them: in the reader's language, times in the person's own clock."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from kernel.catalogue import check
from person.models import InteractionPolicy
from person.reachability.models import Busy, Reach, Reason, Situation
from person.reachability.rules import reach
from person.reachability.texts import REASONS, reasons_out, summary

SH = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 18, 1, 30, tzinfo=UTC)  # 09:30 in Shanghai


def sh(hour: int, minute: int = 0, day: int = 18) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=SH).astimezone(UTC)


def meeting_then_usual_hours() -> Reach:
    busy = (Busy(sh(9), sh(10)),)
    policy = InteractionPolicy()
    return reach(
        Situation(NOW, "P2", "follow_up", policy, SH, ("feishu",), busy=busy, answering_hours=frozenset({10, 11}))
    )


@pytest.mark.parametrize(
    "locale,line",
    [("zh", "可联系：10:00 起 — 会议到 10:00；通常 10–12 点回复"),
     ("en", "reachable: from 10:00 — in a meeting until 10:00; usually answers 10:00–12:00")],
)  # fmt: skip
def test_the_console_line_reads_in_the_readers_language(locale, line):
    assert summary(meeting_then_usual_hours(), tz=SH, locale=locale, now=NOW) == line


def test_reasons_are_code_and_text_pairs_with_other_days_named():
    answer = Reach(False, sh(8, day=19), None, False, "quiet_hours", (Reason("quiet_hours", {"until": sh(8, day=19)}),))
    assert reasons_out(answer, tz=SH, locale="zh", now=NOW) == [{"code": "quiet_hours", "text": "免打扰到 明天 08:00"}]
    assert reasons_out(answer, tz=SH, locale="en", now=NOW) == [
        {"code": "quiet_hours", "text": "quiet time until tomorrow 08:00"}
    ]


def test_urgent_modes_and_channels_read_as_words():
    urgent = Reason("unread_urgent", {"modes": ("app", "sms")})
    answer = Reach(True, NOW, "feishu", True, None, (urgent,))
    assert reasons_out(answer, tz=SH, locale="zh", now=NOW)[0]["text"] == "上一条消息未读：发送后加急（应用内、短信）"


def test_every_reason_has_both_languages():
    assert [p for p in check() if p.catalogue == REASONS.name] == []
