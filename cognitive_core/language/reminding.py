"""Pure reading of a reminder request: when (in the person's timezone) and what, from the words after the command.

`/remind 10m call the vendor`, `/remind tomorrow 9:30 standup notes`, `提醒我1分钟后提交周报`,
`提醒我明天上午10点交周报`: the time is the first expression `parse_when` finds (or a compact `10m` / `2h` / `1d`
at the start), the rest of the words are what to be reminded of.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from cognitive_core.language.parsing import span
from cognitive_core.language.when import parse_when

_COMPACT = re.compile(r"^(?:in\s+)?(\d{1,4})\s*(m|h|d|min|mins|分钟|小时|天)(?:后|之后|以后)?(?=\s|$|[^\w])", re.I)
_UNIT = {"min": "m", "mins": "m"}
# Glue left between the time and the text: "提醒我明天上午10点去交周报", "remind me tomorrow to call".
_GLUE = re.compile(r"^(?:[\s,，:：、]|to\s|at\s|on\s|about\s|钟|记得|别忘了|去|要|把)+|[\s,，。.:：]+$", re.I)


def read(rest: str, *, now: datetime, tz: str) -> tuple[datetime, str, str] | None:
    """(due at in UTC, the text, the time words) or None when no time or no text is found."""
    rest = rest.strip()
    compact = _COMPACT.match(rest)
    if compact:
        amount, unit = compact.group(1), compact.group(2).lower()
        at = now.astimezone(UTC) + span(amount, _UNIT.get(unit, unit))
        words, text = compact.group(0), rest[compact.end() :]
    else:
        found = parse_when(rest, now=now, tz=tz)
        if found is None:
            return None
        at, words = found.at, found.words.strip()
        text = rest[: found.span[0]] + " " + rest[found.span[1] :]
        text = re.sub(r"^\s*(?:后|之后|以后)", "", text.strip()) if found.span[0] == 0 else text
    text = _GLUE.sub("", " ".join(text.split()))
    if not text:
        return None
    return at, text, words.strip()
