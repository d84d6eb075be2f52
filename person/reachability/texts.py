"""The reachability model's reasons as people read them (zh / en), times in the person's timezone."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from kernel import channel_names
from kernel.catalogue import Catalogue
from kernel.moments import when
from person.reachability.models import Reach, Reason

REASONS = Catalogue.columns(
    "person.reachability",
    ("en", "zh"),
    {
        "available": ("can be reached now", "现在可以联系"),
        "away_until": ("away until {until}", "不在，{until} 回来"),
        "away_open": ("away, no return date yet", "不在，回来时间未定"),
        "leave_until": ("on leave until {until}", "请假到 {until}"),
        "leave_open": ("on leave, no return date yet", "请假中，回来时间未定"),
        "away_p0": ("away, but nobody stands in: a P0 still goes through", "虽不在，但无人代理：P0 照常联系"),
        "stand_in": ("{name} stands in", "由{name}代理"),
        "paused": ("paused proactive contact until {until}", "暂停主动联系到 {until}"),
        "proactive_off": ("accepts no proactive contact", "不接受主动联系"),
        "quiet_hours": ("quiet time until {until}", "免打扰到 {until}"),
        "quiet_always": ("every day is quiet time", "每天都是免打扰时间"),
        "cap": ("today's {cap} proactive contacts used up; from {until}", "今天 {cap} 次主动联系已用完，{until} 起"),
        "cap_zero": ("accepts no proactive contact (daily cap 0)", "不接受主动联系（每日上限 0）"),
        "follow_up_due": ("the next follow-up is not due before {at}", "下一次跟进不早于 {at}"),
        "promised": ("they said they would answer by {at}", "本人说 {at} 前回复"),
        "busy": ("in a meeting until {until}", "会议到 {until}"),
        "busy_bounded": ("in a meeting until {until}; waiting at most until {at}", "会议到 {until}，最多等到 {at}"),
        "calendar_unavailable": ("calendar unreadable just now: treated as free", "日历暂时读不到，按空闲处理"),
        "answering_hours": ("placed at their usual answering time, {at}", "放在通常回复的时间：{at}"),
        "usually": ("usually answers {ranges}", "通常 {ranges} 点回复"),
        "read_unanswered": ("read {at}, not answered: a gentler follow-up there", "{at} 已读未回：同一渠道温和跟进"),
        "unread": ("the last message is unread", "上一条消息未读"),
        "unread_other_channel": ("the last message is unread: trying {channel}", "上一条消息未读：改用{channel}"),
        "unread_urgent": ("the last message is unread: made urgent ({modes})", "上一条消息未读：发送后加急（{modes}）"),
        "no_channel": ("no reachable channel is bound", "没有可用的联系渠道"),
        "deactivated": ("deactivated: Deputy contacts them no more", "已停用：Deputy 不再联系此人"),
        "now": ("reachable: now", "可联系：现在"),
        "from": ("reachable: from {at}", "可联系：{at} 起"),
        "not_now": ("not reachable for now", "暂不可联系"),
    },
)
_MODES = {"app": ("in the app", "应用内"), "sms": ("SMS", "短信"), "phone": ("phone call", "电话")}
_SEPARATOR = {"zh": ("；", "、", " — "), "en": ("; ", ", ", " — ")}


def _ranges(ranges: tuple[tuple[int, int], ...], locale: str) -> str:
    if locale == "zh":
        return "、".join(f"{a}–{b}" for a, b in ranges)
    return ", ".join(f"{a:02d}:00–{b % 24:02d}:00" for a, b in ranges)


def moment(value: datetime, *, tz: ZoneInfo, locale: str, now: datetime) -> str:
    """Today's moments as the clock alone (`10:00`), others with their day (`明天 08:00`)."""
    if value.astimezone(tz).date() == now.astimezone(tz).date():
        return value.astimezone(tz).strftime("%H:%M")
    return when(value, tz, locale, now=now)


def _value(name: str, value: Any, *, tz: ZoneInfo, locale: str, now: datetime) -> str:
    if isinstance(value, datetime):
        return moment(value, tz=tz, locale=locale, now=now)
    if name == "ranges":
        return _ranges(value, locale)
    if name == "channel":
        return channel_names.display(value, locale) or value
    if name == "modes":
        index = 1 if locale == "zh" else 0
        return _SEPARATOR.get(locale, _SEPARATOR["en"])[1].join(_MODES[m][index] for m in value if m in _MODES)
    return str(value)


def reason_text(reason: Reason, *, tz: ZoneInfo, locale: str, now: datetime) -> str:
    """One reason in `locale`, its times as the person's local moments."""
    values = {k: _value(k, v, tz=tz, locale=locale, now=now) for k, v in reason.values.items()}
    return REASONS.text(reason.code, locale, **values)


def reasons_out(reach: Reach, *, tz: ZoneInfo, locale: str, now: datetime) -> list[dict[str, str]]:
    """`[{"code", "text"}]` as the API returns them."""
    return [{"code": r.code, "text": reason_text(r, tz=tz, locale=locale, now=now)} for r in reach.reasons]


def summary(reach: Reach, *, tz: ZoneInfo, locale: str, now: datetime) -> str:
    """One line: `可联系：10:00 起 — 会议到 10:00；通常 10–12 点回复`."""
    if reach.now:
        head = REASONS.text("now", locale)
    elif reach.next_at is not None:
        head = REASONS.text("from", locale, at=moment(reach.next_at, tz=tz, locale=locale, now=now))
    else:
        head = REASONS.text("not_now", locale)
    shown = [r for r in reach.reasons if r.code != "available"]
    if not shown:
        return head
    sep, _, dash = _SEPARATOR.get(locale, _SEPARATOR["en"])
    return head + dash + sep.join(reason_text(r, tz=tz, locale=locale, now=now) for r in shown)
