"""Every text a person reads comes from the catalogue in their language: no English in zh, no Chinese in en.

That every entry has both languages with the same placeholders is kernel.catalogue's check, run over every
catalogue by tests/unit/test_every_catalogue.py; here only for the channel names, which are not a catalogue.
"""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from concern.escalation import texts as escalation_texts
from concern.texts import messages, reasons, replies
from kernel import channel_names

ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
CJK = re.compile(r"[\u4e00-\u9fff]")
# Not language: commands, ids and their placeholders, channel names, a time format.
NOT_WORDS = re.compile(r"/[a-z]+(?: all\b)?|\bcon_[\d_…]+|\b[pP]\d\b|@\S+|\b\d+[smhd]\b|Telegram|HH:MM")
ZH_VALUES = {
    "asker": "老板",
    "target": "张三",
    "manager": "王五",
    "answerer": "王五",
    "member": "李四",
    "maker": "王五",
    "sender": "老板",
    "text": "提测什么时候能给？",
    "answer": "明天下午",
    "reason": "原因",
    "why": "正处于免打扰时间",
    "when": "明天 08:00",
    "until": "明天 08:00",
    "since": "03-18 10:00",
    "waited": "2小时",
    "expires": "03-25 10:00",
    "concern_id": "con_20260318_001",
    "who": "小张",
    "command": "/frobnicate",
    "name": "张三",
    "state": "已取消",
    "what": "免打扰时间 22:00–07:00",
    "window": "22:00–08:00",
    "channels": "飞书",
    "previous": "王五",
    "managers": "王五、赵六",
    "count": "2",
    "names": "张三 / 张伟",
}
EN_VALUES = {
    key: (
        "Zhang San"
        if key
        in ("target", "asker", "manager", "answerer", "member", "maker", "sender", "name", "who", "previous", "names")
        else value
        if not CJK.search(value)
        else "sample"
    )
    for key, value in ZH_VALUES.items()
}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _tables():
    yield from (("messages", name, table) for name, table in messages.TEMPLATES.items())
    yield from (("replies", name, table) for name, table in replies.REPLIES.items())
    yield from (("usage", name, table) for name, table in replies.USAGE.items())
    yield from (("help", name, table) for name, table in replies.HELP.items())
    yield from (("not_understood", name, table) for name, table in replies.NOT_UNDERSTOOD.items())
    yield from (("ask_or_tell", name, table) for name, table in replies.ASK_OR_TELL.items())
    for group in (escalation_texts.OUTCOMES, escalation_texts.REFUSED):
        yield from (("escalation", name, table) for name, table in group.items())
    for group in (
        reasons.HELD,
        reasons.NOT_DONE,
        reasons.STATES,
        reasons.RESULTS,
        reasons.ACTION_TYPES,
        reasons.CHANNELS,
        {p.name: dict(p.display) for p in channel_names.platforms()},  # each plugin's name for its platform
    ):
        yield from (("reasons", name, table) for name, table in group.items())


ALL = list(_tables())


@pytest.mark.parametrize(("name", "table"), sorted(reasons.CHANNELS.items()))
def test_every_channel_name_exists_in_both_languages_with_the_same_placeholders(name, table):
    assert set(table) == {"zh", "en"}
    assert _fields(table["zh"]) == _fields(table["en"])


@pytest.mark.parametrize(("group", "name", "table"), ALL, ids=[f"{g}:{n}" for g, n, _ in ALL])
def test_a_chinese_text_rendered_with_sample_values_has_no_english_words(group, name, table):
    rendered = NOT_WORDS.sub(" ", table["zh"].format(**ZH_VALUES))
    assert ENGLISH_WORD.findall(rendered) == [], rendered


@pytest.mark.parametrize(("group", "name", "table"), ALL, ids=[f"{g}:{n}" for g, n, _ in ALL])
def test_an_english_text_rendered_with_sample_values_has_no_chinese(group, name, table):
    rendered = table["en"].format(**EN_VALUES)
    assert not CJK.search(rendered), rendered


@pytest.mark.parametrize("code", sorted(c for c in reasons.NOT_DONE if c != "unknown"))
def test_every_refusal_code_reads_as_chinese_not_as_the_action_layers_english_reason(code):
    detail = {"blocked_by": code} if code.startswith("L") else {"error": code, "attempts": [{"channel": "feishu"}]}
    if code == "L1:daily_cap":
        detail["not_before"] = "2026-03-19T00:00:00+08:00"
    text = reasons.not_done(detail, "zh", target="张三")
    assert CJK.search(text) and ENGLISH_WORD.findall(NOT_WORDS.sub(" ", text)) == [], text


def test_times_are_local_and_relative_to_the_readers_day():
    now = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)  # 23:00 in Shanghai, 15:00 in London
    shanghai, london = ZoneInfo("Asia/Shanghai"), ZoneInfo("Europe/London")
    assert messages.when(now + timedelta(hours=9), shanghai, "zh", now=now) == "明天 08:00"
    assert messages.when(now + timedelta(hours=9), london, "en", now=now) == "tomorrow 00:00"
    assert messages.when(now + timedelta(days=3), shanghai, "zh", now=now) == "03-21（周六）23:00"
    assert messages.when(now + timedelta(days=3), london, "en", now=now) == "Sat 03-21 15:00"


def test_a_held_reason_names_the_window_only_when_it_is_known():
    assert reasons.held("L1:quiet_hours", "zh", window="22:00–08:00") == " 22:00–08:00 免打扰"
    assert reasons.held("L1:quiet_hours", "zh") == "正处于免打扰时间"
    assert reasons.held("L1:quiet_hours", "en", window="22:00–08:00") == "is in quiet hours (22:00–08:00)"
