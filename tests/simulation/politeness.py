"""Politeness proven from `GET /v1/facts` alone, as an auditor without database access would prove it.

Every `action_result` fact says its priority, whether it was proactive, solicited or reactive, and the target's
local time (`result_detail`, SPEC §3.6); every `person_changed` fact says the person's policy and timezone from
then on. From these alone: no proactive non-P0 contact reached anyone in their quiet time, and nobody got more
proactive, unsolicited contacts on one local day than their cap (an interrupted send counts: it may have arrived).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from person.models import InteractionPolicy
from person.rules import is_quiet

if TYPE_CHECKING:
    from tests.simulation.runner import Simulation

ADMIN = {"Authorization": "Bearer sim-admin-token"}
KEYS = {"priority", "proactive", "solicited", "reactive", "target_local_time"}
PERSON_FACING = {"send_message", "notify", "escalate", "backflow"}


class PolitenessFromFacts:
    """Reads the facts it has not seen yet through the API and checks every delivered action against them."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.seen: set[str] = set()
        self.facts: list[dict[str, Any]] = []  # oldest first

    def _read_new(self) -> None:
        fresh: list[dict[str, Any]] = []
        cursor = None
        while True:
            params = {"limit": 500, **({"cursor": cursor} if cursor else {})}
            page = self.sim.replicas["r1"].client.get("/v1/facts", params=params, headers=ADMIN).json()
            items = [f for f in page["items"] if f["fact_id"] not in self.seen]
            fresh += items
            if len(items) < len(page["items"]) or not page.get("next_cursor"):
                break
            cursor = page["next_cursor"]
        for fact in reversed(fresh):
            self.seen.add(fact["fact_id"])
            self.facts.append(fact)

    def violations(self) -> list[str]:
        """What the facts show went wrong (empty when politeness holds)."""
        self._read_new()
        found: list[str] = []
        policies: dict[str, list[tuple[datetime, InteractionPolicy, ZoneInfo]]] = defaultdict(list)
        per_day: Counter[tuple[str, str]] = Counter()
        for fact in self.facts:
            content = fact["content"]
            after = content.get("after") if fact["fact_type"] == "person_changed" else None
            if isinstance(after, dict) and "interaction_policy" in after:
                policy = InteractionPolicy.model_validate(after["interaction_policy"])
                policies[content["person_id"]].append(
                    (datetime.fromisoformat(fact["timestamp"]), policy, ZoneInfo(after["timezone"]))
                )
            if fact["fact_type"] != "action_result" or content["action_type"] not in PERSON_FACING:
                continue
            detail, target = content["result_detail"], content["target_person_id"]
            if not detail.keys() >= KEYS:
                found.append(f"{content['action_id']}: result_detail lacks {sorted(KEYS - detail.keys())}")
                continue
            delivered = content["result"] == "success" or detail.get("error") == "interrupted"
            if not delivered or not detail["proactive"] or target is None:
                continue
            at = datetime.fromisoformat(detail["target_local_time"])
            timeline = policies[target]
            # The policy in force at `at` (both, when it changed at that very instant), as the layers read it.
            known = [(p, tz) for since, p, tz in timeline if since < at][-1:] + [
                (p, tz) for since, p, tz in timeline if since == at
            ]
            if not known:
                continue
            quiet = all(is_quiet(p, tz, at) for p, tz in known)
            if detail["priority"] != "P0" and content["result"] == "success" and quiet:
                found.append(f"facts: {content['action_id']} reached {target} in quiet time {at:%a %H:%M}")
            if detail["solicited"]:
                continue
            day = (target, at.date().isoformat())  # the target's own calendar day: the offset is in the fact
            per_day[day] += 1
            if per_day[day] > max(p.max_proactive_contacts_per_day for p, _ in known):
                found.append(f"facts: {target} got {per_day[day]} proactive contacts on {at.date()} (over the cap)")
        return found
