"""What the people a principal's messages went to asked of Deputy's own pace, for that principal's brief.

Someone who pressed "too many messages" under a message the principal asked for lowered their own daily cap or
spaced their follow-ups further (`concern.recipients.fewer`); the `person_changed` fact names the principal
(`tell`, and in its refs). The brief says so once, politely: one line per person and field, the latest value.
"""

from __future__ import annotations

from datetime import datetime

from cognitive_core.reports.brief_rules import Item
from cognitive_core.reports.brief_texts import text
from fact import service as facts
from kernel.context import UnitOfWork

REASON = "too_many_messages"
_LINES = {"max_proactive_contacts_per_day": "fewer_cap", "follow_up_stretch": "fewer_stretch"}
_LIMIT = 200  # a day of such changes naming one principal is a handful; a page is plenty


def items(uow: UnitOfWork, *, me: str, since: datetime, names: dict[str, str], locale: str) -> list[Item]:
    """One line per person (and field) who asked for fewer messages since the last brief, the newest value."""
    filters = facts.FactFilter(fact_type="person_changed", person_id=me, since=since)
    rows, _ = facts.list_(uow, filters=filters, limit=_LIMIT)  # newest first
    latest: dict[tuple[str, str], tuple[float, float]] = {}
    for fact in rows:
        content = fact.content
        if content.get("reason") != REASON or content.get("tell") != me or content.get("field") not in _LINES:
            continue
        key = (content.get("person_id", ""), content["field"])
        if key not in latest:
            after = (content.get("after") or {}).get("interaction_policy", {}).get(content["field"])
            latest[key] = (after, fact.timestamp.timestamp())
    found = []
    for (person_id, field), (after, at) in latest.items():
        if after is None:
            continue
        line = text(_LINES[field], locale, who=names.get(person_id, person_id), after=f"{after:g}")
        found.append(Item("people", line, at))
    return found
