"""A person saying they are away, on leave or back, in plain words (zh / en): `read` a message. Pure, no I/O.

The message is accounted for piece by piece (the words in `away_lexicon`): the stand-in clause and its person,
asides (how to reach them, why they are out), time expressions (`when.every_when`, the date grammar reminders and
deadlines use) and durations, the leave or absence words, then fillers. It is an absence only when a leave word
was found and nothing is left over, so a question (`张三请假了吗`), a hedge (`可能要请假`), someone else's leave
(`王五下周休年假`) or an answer that mentions a trip (`我在出差，合同下周给你`) sets nothing. Each time is read by its
neighbours: a return (`下周一回来`, `back Tuesday`: back that day), a start (`明天开始`, `from Monday`), an end
(`到周五`, `through Friday`: through that day; English `until Friday`: back that day) or a day off (`周五请假`:
that day); a duration counts from the start (`明天起请三天假`: back on the fourth day). Week and month spans
(`下周`, `月底`) last to their end. No time at all, or a vague one (`这几天`), is open-ended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from cognitive_core.language import away_lexicon as w
from cognitive_core.language import names, phrasing
from cognitive_core.language.when import Found, _zh_number, every_when
from cognitive_core.language.when_grammar import EN_NUMBERS

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView


@dataclass(frozen=True)
class Said:
    """What a message says about its sender's own presence: away (status, back at, stand-in) or back."""

    intent: str  # away | resume
    status: str = "away"  # away | on_leave
    until: datetime | None = None
    stand_in: PersonView | None = None


@dataclass(frozen=True)
class _Time:
    role: str  # back | start | through | until | on
    day: date
    at: datetime  # local
    exact: bool  # a clock time was said
    span: str | None  # week | month: the expression names a span, not a day
    dom: int | None = None  # a bare day of the month ("5号", "the 5th"): a range's end is read from its start


def read(
    text: str,
    *,
    people: tuple[PersonView, ...],
    mentions: tuple[tuple[str | None, str], ...] = (),
    sender_id: str | None = None,
    now: datetime | None,
    tz: str,
) -> Said | None:
    """Whether `text` says its sender is away / on leave (and until when, who stands in) or back; else None."""
    if now is None or not text.strip():
        return None
    folded = w.WEEKS_EN.sub(_as_zh, phrasing.simplified(text).lower())
    if w.PAUSE_INSTEAD.match(folded):
        return None
    marked, named = _marked(folded, people, mentions)
    back = _blank(marked, w.BACK)
    if back != marked and w.BACK_SPOKEN.search(marked) and _empty(_blank(_blank(back, w.BACK_ASIDES), w.FILLERS)):
        return Said("resume")
    stand_in = None
    for m in w.STAND_IN.finditer(marked):
        stand_in = stand_in or next((n.person for n in named if m.start() <= n.start < m.end()), None)
    rest = _blank(_blank(marked, w.STAND_IN), w.ASIDES)
    zone = ZoneInfo(tz)
    times = _times(rest, now=now, zone=zone)
    for found in every_when(rest, now=now, tz=zone):
        rest = rest[: found.span[0]] + " " * (found.span[1] - found.span[0]) + rest[found.span[1] :]
    holiday = _holiday_end(rest, now.astimezone(zone).date())
    days, hours = _duration(rest)
    rest = _blank(_blank(_blank(rest, w.HOLIDAY_END), w.DURATION), w.VAGUE)
    leave, away = w.ON_LEAVE.search(rest), w.AWAY.search(rest)
    if leave is None and away is None:
        return None
    if not _empty(_blank(_blank(_blank(rest, w.ON_LEAVE), w.AWAY), w.FILLERS)):
        return None
    until = _until(times, holiday, days, hours, now=now, zone=zone)
    helper = stand_in if stand_in is not None and stand_in.person_id != sender_id else None
    return Said("away", "on_leave" if leave else "away", until, helper)


def _as_zh(m: re.Match) -> str:
    """ "next week", "the rest of the day": the Chinese words the date grammar reads as that span (same length)."""
    day = m.group("unit") == "day"
    said = ("明天" if day else "下周") if m.group("next") else ("今天" if day else "这周")
    return said.ljust(len(m.group(0)))


def _marked(folded: str, people: tuple, mentions: tuple) -> tuple[str, list]:
    """The text with every person it names marked (same length), and who stands where."""
    found = names.named(folded, people, mentions)
    for n in found:
        folded = folded[: n.start] + w.MARK * (n.end - n.start) + folded[n.end :]
    return folded, found


def _blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _empty(text: str) -> bool:
    return not text.strip(" ,.:;!~…、，。：；！～-—")


def _times(text: str, *, now: datetime, zone: ZoneInfo) -> list[_Time]:
    """Every time expression in `text` with the part it plays, read from its neighbours."""
    found = [_cue_apart(f) for f in every_when(text, now=now, tz=zone)]
    today = now.astimezone(zone).date()
    read = []
    for i, f in enumerate(found):
        before, after = text[: f.span[0]], text[f.span[1] :]
        nxt = found[i + 1] if i + 1 < len(found) else None
        ranged = nxt is not None and w.RANGE.match(text[f.span[1] : nxt.span[0]]) is not None
        dom = re.fullmatch(r"(?:the\s+)?(\d{1,2})(?:[号日]|st|nd|rd|th)", f.words.strip())
        local, part = f.at.astimezone(zone), w.PERIOD_ONLY.fullmatch(f.words.strip()) is not None
        if part:  # "下午请假" said in the morning: this afternoon, not tomorrow's
            local = datetime.combine(today, local.timetz())
        span = "week" if w.WEEK_SPAN.search(f.words) else "month" if w.MONTH_SPAN.search(f.words) else None
        role = _role(f, before, after, ranged)
        read.append(_Time(role, local.date(), local, part or not f.vague, span, int(dom.group(1)) if dom else None))
    return read


def _cue_apart(f: Found) -> Found:
    """ "tomorrow until Friday" clusters as "tomorrow until": the cue belongs to the time after it."""
    trailing = re.search(r"\s+(?:until|till|by|before)$", f.words, re.I)
    if trailing is None:
        return f
    end = f.span[1] - len(trailing.group(0))
    return Found(f.at, (f.span[0], end), f.words[: len(f.words) - len(trailing.group(0))], f.vague, False)


def _role(f: Found, before: str, after: str, ranged: bool) -> str:
    if w.UNTIL_WORDS.match(f.words) or w.UNTIL_BEFORE.search(before):
        return "until"
    by = w.BY_WORDS.match(f.words) or w.BY_BEFORE.search(before)
    if w.BACK_AFTER.match(after) or w.BACK_BEFORE.search(before) or by or f.before:
        return "back"
    if w.START_AFTER.match(after) or w.START_BEFORE.search(before) or ranged:
        return "start"
    return "through" if w.THROUGH_BEFORE.search(before) else "on"


def _holiday_end(text: str, today: date) -> date | None:
    if not w.HOLIDAY_END.search(text):
        return None
    back = date(today.year, 10, 8)
    return back if back > today else date(today.year + 1, 10, 8)


def _duration(text: str) -> tuple[int | None, int | None]:
    """(days, hours) a duration in `text` says, None for none."""
    m = w.DURATION.search(text)
    if m is None:
        return None, None
    if m.group("zn"):
        said, unit = m.group("zn"), m.group("zu")
        n = 0.5 if said == "半" else _zh_number(said)
        unit = {"天": "d", "日": "d", "周": "w", "星期": "w", "礼拜": "w", "月": "m", "小时": "h"}[unit]
    else:
        said = re.sub(r"\s+of$", "", m.group("en").lower())
        n = 2 if "couple" in said else 0.5 if said.startswith("half") else int(said) if said.isdigit() else None
        n = EN_NUMBERS[said] if n is None else n
        unit = m.group("eu").lower()[0]
    if unit == "h":
        return None, max(1, round(n))
    return max(1, round(n * {"d": 1, "w": 7, "m": 30}[unit] + 0.49)), None


def _on_or_after(start: date, dom: int) -> date:
    day = start
    while day.day != dom:
        day += timedelta(days=1)
    return day


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone)


def _after(t: _Time) -> date:
    """The first day after what `t` names: the day after a day, the Monday after a week, the 1st after a month."""
    if t.span == "week":
        return t.day + timedelta(days=7 - t.day.weekday())
    if t.span == "month":
        return (t.day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return t.day + timedelta(days=1)


def _start(t: _Time, today: date) -> date:
    return max(today, t.day - timedelta(days=t.day.weekday())) if t.span == "week" else t.day


def _until(
    times: list[_Time], holiday: date | None, days: int | None, hours: int | None, *, now: datetime, zone: ZoneInfo
) -> datetime | None:
    """When the person is back: a return said, else the end of what they said, else open-ended (None)."""
    today = now.astimezone(zone).date()
    by = {t.role: t for t in times}
    ons = [t for t in times if t.role == "on"]
    start = _start(by["start"], today) if "start" in by else _start(ons[0], today) if ons else today
    if "back" in by:
        t = by["back"]
        back = _start(t, today)
        while ons and back < start and not t.span:  # "下周请三天假，周四回来": the Thursday after it starts
            back += timedelta(days=7)
        until = datetime.combine(back, t.at.timetz()) if t.exact else _midnight(back, zone)
    elif holiday is not None:
        until = _midnight(holiday, zone)
    elif "through" in by or "until" in by:
        t = by.get("through") or by["until"]
        end = _after(t) if t.role == "through" or t.span else t.day
        if "start" in by and end <= start and t.dom:  # "3号到5号": the 5th after that 3rd
            end = _after(_Time(t.role, _on_or_after(start, t.dom), t.at, False, None))
        while "start" in by and end <= start:  # "周一到周三": the Wednesday after that Monday
            end += timedelta(days=7)
        until = t.at if t.exact else _midnight(end, zone)
    elif hours is not None:
        until = now + timedelta(hours=hours)
    elif days is not None:
        until = _midnight(start + timedelta(days=days), zone)
    elif ons:
        until = _midnight(_after(ons[-1]), zone)
    else:
        return None
    return until if until > now else None
