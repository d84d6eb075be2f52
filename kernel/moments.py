"""How a moment reads to a person: `今天 08:00` / `明天 08:00` / `03-20（周五）08:00`, in their timezone and language.

Pure; every layer that tells someone a time (the concern engine's messages, the reachability model's reasons) uses
this one rendering.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

WEEKDAYS = {"zh": "一二三四五六日", "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")}


def when(instant: datetime, tz: ZoneInfo, locale: str = "zh", *, now: datetime | None = None) -> str:
    """A local moment for the reader: `今天 08:00` / `明天 08:00` / `03-20（周五）08:00` (`today 08:00` …)."""
    local = instant.astimezone(tz)
    if now is None:
        return local.strftime("%m-%d %H:%M")
    days = (local.date() - now.astimezone(tz).date()).days
    clock = local.strftime("%H:%M")
    if locale == "zh":
        named = {0: "今天", 1: "明天", 2: "后天"}.get(days)
        return f"{named} {clock}" if named else f"{local:%m-%d}（周{WEEKDAYS['zh'][local.weekday()]}）{clock}"
    named = {0: "today", 1: "tomorrow"}.get(days)
    return f"{named} {clock}" if named else f"{WEEKDAYS['en'][local.weekday()]} {local:%m-%d} {clock}"
