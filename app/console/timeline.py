"""A loop's whole story from the fact log: every fact about it and what caused each, and its causal trace as a graph."""

from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import Markup
from sqlalchemy import select

from action.models import ActionRow
from app.console import describe, graph
from app.console.i18n import Translator
from concern.models import Concern
from fact import service as facts
from fact import trace
from fact.models import Fact
from kernel.context import UnitOfWork

LIMIT = 500
COLUMNS = {
    "message_received": 0,
    "external_signal": 0,
    "button_pressed": 0,
    "llm_proposal": 0,
    "decision": 1,
    "concern_changed": 2,
    "action_result": 3,
}
PRESSES = ("callback", "button", "action_value")  # how a tapped button's signal names itself in its content


def _mentions(fact: Fact, concern_id: str) -> bool:
    text = json.dumps(fact.content, ensure_ascii=False)
    return fact.causation_id == concern_id or re.search(rf"\b{re.escape(concern_id)}\b", text) is not None


def concern_facts(uow: UnitOfWork, concern: Concern) -> list[Fact]:
    """Every fact about the loop, oldest first: its changes, decisions, actions, and the signals behind them."""
    found: dict[str, Fact] = {}
    for person_id in dict.fromkeys((concern.target_person_id, concern.originator_id)):
        named, _ = facts.list_(uow, filters=facts.FactFilter(person_id=person_id, q=concern.concern_id), limit=LIMIT)
        found.update((f.fact_id, f) for f in named if _mentions(f, concern.concern_id))
    rows = uow.session.scalars(
        select(ActionRow).where(ActionRow.concern_id == concern.concern_id).order_by(ActionRow.pk).limit(LIMIT)
    )
    for row in rows:
        chain = trace.trace(uow, action_id=row.action_id, decision_ref=row.decision_ref)
        found.update((step["fact"].fact_id, step["fact"]) for step in chain)
    causes = [f.causation_id for f in found.values() if (f.causation_id or "").startswith(("dec_", "fact_"))]
    found.update((step["fact"].fact_id, step["fact"]) for step in trace.causes(uow, refs=causes))
    return sorted(found.values(), key=lambda f: f.pk or 0)


def pressed(fact: Fact) -> bool:
    """A signal that is a tapped button rather than typed text."""
    return fact.fact_type in describe.SIGNALS and any(key in fact.content for key in PRESSES)


def _key(fact: Fact) -> str:
    if fact.fact_type == "action_result":
        return f"result-{fact.content.get('result', 'pending')}"
    return fact.fact_type


def _title(fact: Fact, t: Translator) -> str:
    c = fact.content
    if fact.fact_type == "action_result":
        return f"{t.action_type(c.get('action_type', ''))} · {t.result(c.get('result', ''))}"
    if fact.fact_type == "concern_changed":
        return f"{t('fact_concern_changed')} · {t.code('change', c.get('change'))}"
    if fact.fact_type == "decision":
        return f"{t('fact_decision')} · {t.code('kind', c.get('kind'))}"
    return t(f"fact_{fact.fact_type}")


def trace_graph(story: list[Fact], t: Translator, *, line: Any) -> Markup:
    """The loop's causal trace: signals → decisions → loop changes → actions, an arrow from each cause."""
    by_ref: dict[str, str] = {}
    for fact in story:
        by_ref[fact.fact_id] = fact.fact_id
        c = fact.content
        if fact.fact_type == "decision" and c.get("decision_id"):
            by_ref[c["decision_id"]] = fact.fact_id
        elif fact.fact_type == "action_result" and c.get("action_id"):
            by_ref[c["action_id"]] = fact.fact_id
        elif fact.fact_type == "concern_changed" and c.get("change") == "raised":
            by_ref[c["concern_id"]] = fact.fact_id
    nodes = [
        graph.Node(
            id=f.fact_id,
            column=COLUMNS.get(f.fact_type, 2),
            title=_title(f, t),
            detail=line(f).removeprefix(f"{f.content.get('concern_id')} "),
            href=describe.href(f.fact_id),
            key=_key(f),
        )
        for f in story
    ]
    edges: list[tuple[str, str]] = []
    for fact in story:
        refs = [fact.causation_id] if fact.causation_id else []
        if fact.fact_type == "decision":
            refs += [i for i in fact.content.get("inputs", []) if isinstance(i, str)]
        edges += [(by_ref[ref], fact.fact_id) for ref in dict.fromkeys(refs) if ref in by_ref]
    columns = [t("fact_message_received"), t("fact_decision"), t("concerns"), t("actions")]
    return graph.trace_graph(nodes, edges, columns=columns, label=t("trace"))
