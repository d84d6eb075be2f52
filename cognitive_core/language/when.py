"""Time expressions in chat (zh / en): `parse_when` finds the first one in a text and the moment it means. Pure.

Why our own grammar (evaluation of 2026-03, the table in tests/unit/cognitive_core/time_table.py: 54 rows,
33 zh / 21 en, now = Wed 2026-03-18 10:00 Asia/Shanghai; "right" = the exact minute, the vague defaults included):

| library (version)        | zh    | en    | right day | side effects, notes                                   |
|--------------------------|-------|-------|-----------|------------------------------------------------------|
| jionlp 1.5.31            | 15/33 |  2/21 | 29/54     | 218 MB with jiojio; prints to stdout on import;      |
|                          |       |       |           | unzips dictionaries into its install dir on first    |
|                          |       |       |           | use (fails in a read-only image); days as ranges     |
| ChineseDateTimeNLP 1.0.5 | 16/33 |  2/21 | 29/54     | swaps loguru's global handlers for stdout; no        |
|                          |       |       |           | durations ("两小时后"); reads "2.0" as now            |
| dateparser 1.5.0         |  9/33 | 11/21 | 28/54     | wrong rather than none: 3月20日 = 07-08              |
| timefhuman 0.1.5         |  3/33 | 11/21 | 20/54     | English only                                         |
| parsedatetime 2.6        |  3/33 |  9/21 | 23/54     | English only, unmaintained since 2020                |
| ctparse 0.3.6            |  4/33 |  4/21 | 17/54     | English only; reads "ok will do" as a date           |
| this module              | 33/33 | 21/21 | 54/54     | no dependency, no I/O                                |

No library reads both languages, none knows the defaults a promise needs ("下班前" = 18:00, "EOD", "周五前" =
Friday 18:00, "by Friday"), and a wrong moment is worse than none (it opens a false commitment). Each library
would still need this layer on top for the vague defaults and the "before" reading, so our grammar covers
the chat vocabulary itself: atoms (a day, a part of the day, a clock time, a duration, "前"/"by") found in the
text, neighbours merged into one expression, resolved in the person's timezone, returned in UTC.
The atoms and their words are in `when_grammar`; this module merges and resolves them.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from cognitive_core.language.when_grammar import (
    AFTERNOON,
    ATOMS,
    DAY_END,
    EN_NUMBERS,
    EVENING,
    GAP,
    MONTHS_EN,
    MORNING,
    PERIODS,
    SLOTS,
    WEEKDAY_ZH,
    WEEKDAYS_EN,
    ZH_DIGITS,
)

__all__ = ["AFTERNOON", "DAY_END", "EVENING", "MORNING", "Found", "every_when", "parse_when"]


@dataclass(frozen=True)
class Found:
    """A time expression found in a text: the moment (UTC), where it stands and how precise it is."""

    at: datetime  # UTC
    span: tuple[int, int]  # text[span[0]:span[1]] are the words
    words: str
    vague: bool  # no clock time was said: a default hour stands in ("下午" = 15:00, "by Friday" = 18:00)
    before: bool = False  # "前" / "by": a deadline rather than a moment


def _zh_number(text: str) -> int:
    """`12`, `三`, `十二`, `二十`, `两` → int."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (ZH_DIGITS.get(ones, 0) if ones else 0)
    return ZH_DIGITS.get(text, 0)


def _friday(day: date, weeks: int = 0) -> date:
    return day + timedelta(days=4 - day.weekday() + 7 * weeks)


def _duration(m: re.Match) -> timedelta:
    if m.group("zdur"):
        amount = _zh_number(m.group("zdn")) if m.group("zdn") else 0
        unit, half = m.group("zdu"), 0.5 if m.group("zhalf") else 0.0
        size = {"小时": 3600, "钟头": 3600, "分钟": 60, "天": 86400, "周": 604800, "星期": 604800}[unit]
        return timedelta(seconds=(amount + half) * size)
    raw, unit = m.group("edn").lower(), m.group("edu").lower()
    amount = 0.5 if raw.startswith("half") else (int(raw) if raw.isdigit() else EN_NUMBERS[raw])
    size = {"m": 60, "h": 3600, "d": 86400, "w": 604800}[unit[0]]
    return timedelta(seconds=amount * size)


def _day(m: re.Match, today: date) -> tuple[date, bool]:
    """The date an atom names and whether it is a whole span (a week, a month) rather than a day."""
    kind = m.lastgroup if m.lastgroup in SLOTS else next(k for k in SLOTS if m.group(k))
    if kind in ("zrel", "erel"):
        word = m.group(kind).lower()
        offset = {"今天": 0, "今日": 0, "today": 0, "明天": 1, "明日": 1, "tomorrow": 1, "tmr": 1, "tmrw": 1}
        return today + timedelta(days=offset.get(word, 3 if word == "大后天" else 2)), False
    if kind in ("zwd", "ewd"):
        if kind == "zwd":
            raw, nxt = m.group("zwdn"), m.group("znext") or ""
            wd = int(raw) - 1 if raw.isdigit() else WEEKDAY_ZH.index(raw) if raw != "天" else 6
            weeks = 2 if nxt == "下下" else 1 if nxt.startswith("下") else 0
            if wd == 7:
                wd = 6
            if nxt and nxt[0] in "这本下":  # a named week: that week's day (Monday-first)
                return today - timedelta(days=today.weekday()) + timedelta(days=wd + 7 * weeks), False
        else:
            wd = WEEKDAYS_EN.index(m.group("ewdn").lower()[:3])
            weeks = 0
            if (m.group("enext") or "").lower() == "next":  # "next Monday": the one in the coming week
                return today - timedelta(days=today.weekday()) + timedelta(days=wd + 7), False
        ahead = (wd - today.weekday()) % 7  # a bare weekday: the coming one, today included
        return today + timedelta(days=ahead), False
    if kind in ("zweek", "eweek"):
        word = m.group(kind)
        return _friday(today, 1 if word.startswith("下") else 0), True
    if kind in ("zmonth", "emonth"):
        return today.replace(day=calendar.monthrange(today.year, today.month)[1]), True
    if kind in ("zdom", "edom"):
        return _day_of_month(int(m.group("zdd") or m.group("edd")), today), False
    if kind == "eiso":
        return date(int(m.group("iy")), int(m.group("im")), int(m.group("id"))), False
    if kind == "zdate":
        month, day = int(m.group("zm")), int(m.group("zd"))
    else:
        name = (m.group("em1") or m.group("em2")).lower()[:3]
        month, day = MONTHS_EN.index(name) + 1, int(m.group("ed1") or m.group("ed2"))
    found = date(today.year, month, day)
    return (found if found >= today else date(today.year + 1, month, day)), False


def _day_of_month(day: int, today: date) -> date:
    """ "3号" on the 18th is next month's 3rd; on the 1st it is this month's (a month without that day: the next)."""
    year, month = today.year, today.month
    for _ in range(3):
        if day <= calendar.monthrange(year, month)[1] and date(year, month, day) >= today:
            return date(year, month, day)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return today


def _clock(m: re.Match) -> tuple[int, int, bool | None]:
    """(hour, minute, afternoon?) with None when the words do not say am or pm."""
    if m.group("hhmm"):
        hour, minute, ampm = int(m.group("hh")), int(m.group("mm")), m.group("ampm1")
    elif m.group("eclock"):
        hour, minute, ampm = int(m.group("eh")), 0, m.group("ampm2")
    elif m.group("eat"):
        hour, minute, ampm = int(m.group("eath")), 0, None
    else:
        hour = _zh_number(m.group("zh"))
        quarter = {"一刻": 15, "三刻": 45}.get(m.group("zq") or "", 0)
        minute = 30 if m.group("zhalfh") else quarter or (_zh_number(m.group("zmin")) if m.group("zmin") else 0)
        ampm = None
    if ampm:
        pm = ampm.lower().startswith("p")
        return (hour % 12 + (12 if pm else 0)), minute, pm
    return hour, minute, (True if hour >= 13 else None)


def _valid(m: re.Match, text: str) -> bool:
    """Atoms that read as time only in context: "快一点" is not 01:00; "前" needs something before it."""
    if m.group("zclock") and m.group("zh") == "一" and m.start() > 0 and text[m.start() - 1] in "快早晚慢多少好差有些":
        return False
    if m.group("zclock") and _zh_number(m.group("zh")) > 24:
        return False
    return not (m.group("zdur") and not m.group("zdn") and not m.group("zhalf"))


def _clusters(text: str) -> list[list[re.Match]]:
    """Atoms next to each other (only spaces, "at", "on", "的" between them), one slot of each kind per cluster."""
    clusters: list[list[re.Match]] = []
    for m in ATOMS.finditer(text):
        if not _valid(m, text):
            continue
        slot = SLOTS[m.lastgroup] if m.lastgroup in SLOTS else next(SLOTS[k] for k in SLOTS if m.group(k))
        last = clusters[-1] if clusters else None
        slots = {_slot(a) for a in last} if last else set()
        joined = (
            last is not None
            and GAP.match(text[last[-1].end() : m.start()])
            and slot not in slots
            and "dur" not in slots
            and slot != "dur"
            and not (slot == "before" and last[-1].group("ebefore"))
        )
        if joined:
            last.append(m)
        else:
            clusters.append([m])
    return clusters


def _slot(m: re.Match) -> str:
    return SLOTS[m.lastgroup] if m.lastgroup in SLOTS else next(SLOTS[k] for k in SLOTS if m.group(k))


def _resolve(atoms: list[re.Match], now: datetime, tz: ZoneInfo) -> tuple[datetime, bool] | None:
    """The UTC moment of one cluster and whether it is vague; None for a cluster that names no time."""
    by = {_slot(a): a for a in atoms}
    if "dur" in by:
        return now.astimezone(UTC) + _duration(by["dur"]), False
    local_now = now.astimezone(tz)
    today = local_now.date()
    day, whole_span = _day(by["day"], today) if "day" in by else (None, False)
    hour, minute, vague, pm = DAY_END, 0, True, None
    if "period" in by:
        word = by["period"].group().lower()
        if word.startswith("tomorrow") and day is None:
            day = today + timedelta(days=1)
        word = re.sub(r"^(?:this|tomorrow)\s+", "", word)
        hour, pm, offset = PERIODS.get(word, PERIODS.get(word.replace("the ", ""), (DAY_END, True, None)))
        if offset is not None and day is None:
            day = today + timedelta(days=offset)
    if "clock" in by:
        hour, minute, said_pm = _clock(by["clock"])
        vague = False
        if said_pm is None and pm and hour < 12:
            hour += 12
        elif said_pm is None and pm is None and "period" not in by and 1 <= hour <= 6:
            hour += 12  # "3点给你" at work means 15:00: nobody promises 3 am
    elif "period" not in by and "day" not in by:
        return None  # a bare "前" / "by"
    if whole_span and "clock" not in by:
        hour, minute = DAY_END, 0
    if hour >= 24:
        return None
    moment = datetime.combine(day or today, time(hour, minute), tzinfo=tz)
    if day is None and moment <= local_now:
        moment = datetime.combine(today + timedelta(days=1), time(hour, minute), tzinfo=tz)  # the next one
    return moment.astimezone(UTC), vague


def _within(atoms: list[re.Match]) -> bool:
    """ "一小时内", "within the hour": a span to finish in, so a deadline (its end) rather than a moment."""
    dur = next((a for a in atoms if _slot(a) == "dur"), None)
    return dur is not None and (dur.group().endswith("内") or dur.group().lower().startswith("within"))


def every_when(text: str, *, now: datetime, tz: ZoneInfo | str) -> list[Found]:
    """Every time expression in `text`, in order (`parse_when` is the first of them)."""
    found, start = [], 0
    while (one := parse_when(text[start:], now=now, tz=tz)) is not None:
        a, b = one.span[0] + start, one.span[1] + start
        found.append(Found(one.at, (a, b), one.words, one.vague, one.before))
        start = b
    return found


def parse_when(text: str, *, now: datetime, tz: ZoneInfo | str, locale: str | None = None) -> Found | None:
    """The first time expression in `text` (zh or en, anywhere in a sentence) as a moment, or None.

    `now` is aware; `tz` is the speaker's timezone, where "明天下午3点" is read. A moment already past is
    returned as found (callers decide: a deadline in the past is none). `locale` is accepted for callers
    that know it; both languages are always read, as people mix them ("EOD 前给你").
    """
    zone = ZoneInfo(tz) if isinstance(tz, str) else tz
    for atoms in _clusters(text):
        resolved = _resolve(atoms, now, zone)
        if resolved is None:
            continue
        start, end = atoms[0].start(), atoms[-1].end()
        nxt = ATOMS.match(text, end + len(text[end:]) - len(text[end:].lstrip(" ")))  # "EOD 前"
        before = any(_slot(a) == "before" for a in atoms) or _within(atoms)
        if nxt is not None and (nxt.group("zbefore") or nxt.group("elatest")) and not atoms[-1].group("elatest"):
            end, before = nxt.end(), True
        at, vague = resolved
        return Found(at=at, span=(start, end), words=text[start:end], vague=vague, before=before)
    return None
