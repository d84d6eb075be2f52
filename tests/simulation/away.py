"""Nobody away gets a proactive message below P0: checked against each person's work state over time.

The work state in force at an instant comes from the `person_changed` facts (`after.work_state`), as the policy's
does. Exempt: P0, what the person asked for (solicited, reactive: replies, backflows, briefs, a loop's outcome),
their own reminders and promises (they set them), and an operator's `POST /v1/notifications` (sent as the operator
asked, through L1–L4).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from person import work_state
from person.work_state import WorkState

OWN_KINDS = ("reminder", "commitment")


class AwayTimeline:
    """Each person's work states, oldest first, fed from the facts as the invariants read them."""

    def __init__(self) -> None:
        self._states: dict[str, list[tuple[datetime, WorkState]]] = defaultdict(list)

    def remember(self, fact: Any) -> None:
        """Keep a `person_changed` fact's work state."""
        after = fact.content.get("after") if fact.fact_type == "person_changed" else None
        if isinstance(after, dict) and "work_state" in after:
            self._states[fact.content["person_id"]].append((fact.timestamp, work_state.read(after["work_state"])))

    def away_throughout(self, person_id: str, at: datetime) -> bool:
        """True when every state in force at `at` (two when it changed at that instant) says away."""
        timeline = self._states[person_id]
        before = [s for t, s in timeline if t < at][-1:]
        same = [s for t, s in timeline if t == at]
        states = before + same
        return bool(states) and all(s.away_at(at) for s in states)

    def violations(self, deliveries: list[tuple[Any, Any]], kinds: dict[str, str]) -> list[str]:
        """Each proactive, unsolicited contact below P0 that reached someone while they were away."""
        found = []
        for _, row in deliveries:
            if not row.proactive or row.solicited or row.priority == "P0" or row.request_key.endswith(":notify"):
                continue
            if kinds.get(row.concern_id or "") in OWN_KINDS:
                continue
            if self.away_throughout(row.target_person_id, row.created_at):
                found.append(f"{row.action_id} ({row.action_type}, {row.priority}) reached {row.target_person_id} "
                             f"while they were away")  # fmt: skip
        return found
