"""The person page's reachability section: the model's line now, its reasons, busy time, the usual answering hours.

Its own module and partial (`partials/reachability.html`) so the page's layout can change around it.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from concern import reachability
from kernel.catalogue import Catalogue
from kernel.context import AppContext
from person.calendar import with_calendar
from person.reachability.texts import moment, reasons_out, summary

WORDS = Catalogue.columns(
    "app.console.reach",
    ("en", "zh"),
    {
        "heading": ("Reachability", "可联系"),
        "for_follow_up": ("for a P2 follow-up now", "此刻一条 P2 跟进"),
        "answering_hours": ("Usual answering hours", "通常回复时间"),
        "median_wait": ("median time to answer", "回复时间中位数"),
        "too_little": ("too little history yet ({count} answers in 4 weeks)", "历史太少（4 周内 {count} 次回复）"),
        "minutes": ("{n} min", "{n} 分钟"),
        "hours": ("{n} h", "{n} 小时"),
        "calendar": ("Calendar", "日历"),
        "calendar_busy": ("busy {blocks}", "忙碌 {blocks}"),
        "calendar_free": ("no busy time in the next 24 hours", "未来 24 小时没有忙碌时段"),
        "calendar_failed": ("could not be read just now: treated as free", "暂时读不到，按空闲处理"),
    },
)


_HEADINGS = ("heading", "for_follow_up", "answering_hours", "calendar")


def _wait(seconds: float, lang: str) -> str:
    minutes = round(seconds / 60)
    if minutes < 120:
        return WORDS.text("minutes", lang, n=minutes)
    return WORDS.text("hours", lang, n=round(minutes / 60, 1))


def _calendar(found: reachability.Answer, *, lang: str, now: datetime) -> str:
    """The calendar line: busy blocks not over yet (in the person's clock), none, or unreadable; "" when off."""
    read = found.calendar
    if read is None:
        return ""
    if read.state == "failed":
        return WORDS.text("calendar_failed", lang)
    blocks = [b for b in read.busy if b.end > now]
    if not blocks:
        return WORDS.text("calendar_free", lang)
    at = functools.partial(moment, tz=found.tz, locale=lang, now=now)
    spans = ("、" if lang == "zh" else ", ").join(f"{at(b.start)}–{at(b.end)}" for b in blocks)
    return WORDS.text("calendar_busy", lang, blocks=spans)


def section(ctx: AppContext, *, person_id: str, lang: str) -> dict[str, Any]:
    """What the partial shows, in the console reader's language."""
    return with_calendar(ctx, lambda: _section(ctx, person_id=person_id, lang=lang))


def _section(ctx: AppContext, *, person_id: str, lang: str) -> dict[str, Any]:
    with ctx.reader() as uow:
        found = reachability.answer(uow, person_id=person_id)
        reach, tz, now = found.reach, found.tz, uow.now
        rhythm = found.rhythm
        hours = ", ".join(f"{a:02d}:00–{b % 24:02d}:00" for a, b in reach.answering_hours)
        return {
            "words": {key: WORDS.template(key, lang) for key in _HEADINGS},
            "calendar": _calendar(found, lang=lang, now=now),
            "line": summary(reach, tz=tz, locale=lang, now=now),
            "reasons": reasons_out(reach, tz=tz, locale=lang, now=now),
            "held_by": reach.held_by,
            "hours": hours or WORDS.text("too_little", lang, count=rhythm.answers),
            "median": (
                f"{WORDS.template('median_wait', lang)}: {_wait(rhythm.median_wait.total_seconds(), lang)}"
                if rhythm.median_wait is not None
                else ""
            ),
        }
