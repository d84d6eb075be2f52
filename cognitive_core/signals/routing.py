"""External signals that lead somewhere: each signal type's route (DEPUTY_SIGNAL_ROUTES) carried out, or the signal
recorded as unhandled. Readers for the brief and the console: `unhandled_signals`, `briefed_signals`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from cognitive_core.signals import routes as signal_routes
from concern import flows as concerns
from concern import outbound
from concern.queue import Purpose
from fact import decisions
from fact.decisions import DecisionKind
from fact.models import Fact
from kernel.context import UnitOfWork
from person import service as persons

UNHANDLED = "external_signal:unhandled"
ROUTED = "signal_route:"  # + the signal type: the rule of every routed signal's decision


def process(uow: UnitOfWork, fact: Fact) -> str:
    """Route one external_signal fact (in the inbox's transaction); returns its decision id."""
    content = fact.content
    routes = getattr(uow.settings, "signal_routes", None) or {}
    route = routes.get(content.get("signal_type", ""))
    if route is None:
        return decisions.record(
            uow, kind=DecisionKind.ignore, rule=UNHANDLED, inputs=[fact.fact_id], person_refs=fact.person_refs
        )
    people, missing = [], []
    for person_id in signal_routes.recipients(route, content):
        person = persons.get(uow, person_id=person_id)
        (people if person is not None and person.active else missing).append(person_id)
    managers = _principal_managers(uow, people) if route.brief_manager else []
    due = signal_routes.deadline(route, content)
    requested: dict[str, Any] = {
        "route": content["signal_type"],
        "action": route.action,
        "recipients": people,
        "missing": missing,
        "notification_type": route.notification_type or content["signal_type"],
        "brief_for": managers,
    }
    if route.action == "raise":
        requested |= {"originator": route.originator, "deadline": due.isoformat() if due else None}
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.direct_action if route.action == "notify" else DecisionKind.raise_concern,
        rule=f"{ROUTED}{content['signal_type']}",
        inputs=[fact.fact_id],
        requested=[requested],
        person_refs=[*fact.person_refs, *people, *managers],
    )
    for person_id in people:
        person = persons.get_or_404(uow, person_id=person_id)
        words = signal_routes.text(route, content, person.locale)
        if route.action == "notify":
            outbound.notify(
                uow,
                to=person_id,
                text=words,
                decision_id=decision_id,
                key=f"{fact.fact_id}:route:{person_id}",
                notification_type=requested["notification_type"],
                purpose=Purpose.notice,
                priority=route.priority or "P2",
            )
        elif person_id != route.originator and persons.get(uow, person_id=route.originator) is not None:
            concerns.raise_(
                uow,
                originator_id=route.originator,
                target_person_id=person_id,
                question=words,
                priority=route.priority or "P1",
                decision_id=decision_id,
                deadline=due,
                source_fact_id=fact.fact_id,
            )
    return decision_id


def _principal_managers(uow: UnitOfWork, people: list[str]) -> list[str]:
    found: list[str] = []
    for person_id in people:
        person = persons.get(uow, person_id=person_id)
        manager = persons.get(uow, person_id=person.manager_id) if person and person.manager_id else None
        if manager is not None and manager.role == "principal" and manager.person_id not in found:
            found.append(manager.person_id)
    return found


def _decisions(uow: UnitOfWork, *, since: datetime, rule: str | None = None, prefix: str | None = None) -> list[Fact]:
    # The rule is matched in the database: every principal's brief asks, and a day holds thousands of decisions
    # whose content Python would otherwise load and parse once per principal (200 principals: seconds in one pass).
    of_rule = Fact.content["rule"].as_string()
    match = of_rule == rule if rule is not None else of_rule.startswith(prefix or "", autoescape=True)
    stmt = select(Fact).where(Fact.fact_type == "decision", Fact.timestamp >= since, match).order_by(Fact.pk)
    return list(uow.session.scalars(stmt))


def _signal(uow: UnitOfWork, fact_id: str) -> dict[str, Any] | None:
    fact = uow.session.scalars(select(Fact).where(Fact.fact_id == fact_id)).first()
    if fact is None:
        return None
    c = fact.content
    return {
        "fact_id": fact.fact_id,
        "signal_type": c.get("signal_type"),
        "source": c.get("source"),
        "external_id": c.get("external_id"),
        "person_id": c.get("person_id"),
        "content": c.get("content") or {},
        "timestamp": fact.timestamp,
    }


def unhandled_signals(uow: UnitOfWork, *, since: datetime) -> list[dict[str, Any]]:
    """External signals since `since` whose type has no route (oldest first): for every principal's brief and the
    console's overview. Each: fact_id, signal_type, source, external_id, person_id, content, timestamp."""
    found = [_signal(uow, d.content["inputs"][0]) for d in _decisions(uow, since=since, rule=UNHANDLED)]
    return [s for s in found if s is not None]


def briefed_signals(uow: UnitOfWork, *, principal_id: str, since: datetime) -> list[dict[str, Any]]:
    """Routed signals since `since` to list in this principal's brief (a route with brief_manager, reaching one of
    their reports): the signal as in `unhandled_signals`, plus `route`, `recipients` and `decision_id`."""
    out = []
    for d in _decisions(uow, since=since, prefix=ROUTED):
        requested = (d.content.get("requested") or [{}])[0]
        if principal_id not in requested.get("brief_for", []):
            continue
        signal = _signal(uow, d.content["inputs"][0])
        if signal is not None:
            recipients = requested.get("recipients", [])
            out.append(
                signal
                | {"route": requested["route"], "recipients": recipients, "decision_id": d.content["decision_id"]}
            )
    return out
