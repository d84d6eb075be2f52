"""Reconstruct why an action happened from the fact log alone: action → decision/concern → signal facts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from fact import service
from fact.models import Fact
from kernel.context import UnitOfWork

SIGNAL_TYPES = ("message_received", "external_signal", "button_pressed", "llm_proposal")
MAX_STEPS = 50


def _action_facts(uow: UnitOfWork, action_id: str, decision_ref: str) -> list[Fact]:
    stmt = select(Fact).where(Fact.fact_type == "action_result", Fact.causation_id == decision_ref).order_by(Fact.pk)
    return [f for f in uow.session.scalars(stmt) if f.content.get("action_id") == action_id]


def trace(uow: UnitOfWork, *, action_id: str, decision_ref: str) -> list[dict[str, Any]]:
    """The causal chain, nearest cause first; each step names its kind, id and fact."""
    chain: list[dict[str, Any]] = [
        {"kind": "action_result", "id": action_id, "fact": f} for f in _action_facts(uow, action_id, decision_ref)
    ]
    return chain + causes(uow, refs=[decision_ref])


def causes(uow: UnitOfWork, *, refs: list[str]) -> list[dict[str, Any]]:
    """The decisions, concerns and facts that `refs` (dec_/con_/fact_ ids) name and what caused them, nearest first."""
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    todo = list(refs)
    while todo and len(seen) < MAX_STEPS:
        ref = todo.pop(0)
        if not ref or ref in seen:
            continue
        seen.add(ref)
        if ref.startswith("dec_"):
            fact = service.get_by_dedup_key(uow, dedup_key=f"decision:{ref}")
            if fact is not None:
                chain.append({"kind": "decision", "id": ref, "fact": fact})
                todo += [i for i in fact.content.get("inputs", []) if isinstance(i, str)]
        elif ref.startswith("con_"):
            fact = service.get_by_dedup_key(uow, dedup_key=f"concern:{ref}:raised")
            if fact is not None:
                chain.append({"kind": "concern", "id": ref, "fact": fact})
                todo.append(fact.causation_id)
        elif ref.startswith("fact_"):
            fact = service.get(uow, fact_id=ref)
            if fact is not None:
                kind = "signal" if fact.fact_type in SIGNAL_TYPES else fact.fact_type
                chain.append({"kind": kind, "id": ref, "fact": fact})
                if kind != "signal" and fact.causation_id:
                    todo.append(fact.causation_id)
    return chain


def born_in_sandbox(uow: UnitOfWork, *, ref: str | None) -> bool:
    """Whether what `ref` names was caused, somewhere down its chain, by a signal the console's sandbox typed."""
    return bool(ref) and any(step["fact"].content.get("sandbox") is True for step in causes(uow, refs=[ref]))


def decision_born_in_sandbox(uow: UnitOfWork, *, content: dict[str, Any] | None) -> bool:
    """`born_in_sandbox` for a decision whose fact's content was read already (None: no such decision): its own
    mark, then the chains of its inputs."""
    if content is None:
        return False
    if content.get("sandbox") is True:
        return True
    inputs = [i for i in content.get("inputs", []) if isinstance(i, str)]
    return any(step["fact"].content.get("sandbox") is True for step in causes(uow, refs=inputs))
