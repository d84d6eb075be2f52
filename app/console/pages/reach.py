"""The person page's reachability section: the model's line now, its reasons, and the learned answering hours.

Its own module and partial (`partials/reachability.html`) so the page's layout can change around it.
"""

from __future__ import annotations

from typing import Any

from concern import reachability
from kernel.catalogue import Catalogue
from kernel.context import AppContext
from person.reachability.texts import reasons_out, summary

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
    },
)


def _wait(seconds: float, lang: str) -> str:
    minutes = round(seconds / 60)
    if minutes < 120:
        return WORDS.text("minutes", lang, n=minutes)
    return WORDS.text("hours", lang, n=round(minutes / 60, 1))


def section(ctx: AppContext, *, person_id: str, lang: str) -> dict[str, Any]:
    """What the partial shows, in the console reader's language."""
    with ctx.reader() as uow:
        found = reachability.answer(uow, person_id=person_id)
        reach, tz, now = found.reach, found.tz, uow.now
        rhythm = found.rhythm
        hours = ", ".join(f"{a:02d}:00–{b % 24:02d}:00" for a, b in reach.answering_hours)
        return {
            "words": {key: WORDS.template(key, lang) for key in ("heading", "for_follow_up", "answering_hours")},
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
