"""Record decisions: each gets a `dec_…` id and a `decision` fact naming its rule and inputs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kernel.context import UnitOfWork
from kernel.ids import allocate
from cognitive_core.models import DecisionKind
from fact import service as facts


def record(
    uow: UnitOfWork,
    *,
    kind: DecisionKind,
    rule: str,
    inputs: Iterable[str] = (),
    requested: list[dict[str, Any]] | None = None,
    person_refs: Iterable[str] = (),
    source: str = "cognitive_core",
    causation_id: str | None = None,
) -> str:
    """Allocate a decision id and append its `decision` fact in the caller's transaction."""
    decision_id = allocate(uow.session, "dec", now=uow.now, tz=uow.tz)
    inputs = list(inputs)
    facts.append(
        uow,
        fact_type="decision",
        source=source,
        person_refs=person_refs,
        causation_id=causation_id or (inputs[0] if inputs else None),
        dedup_key=f"decision:{decision_id}",
        content={"decision_id": decision_id, "kind": DecisionKind(kind).value, "rule": rule, "inputs": inputs, "requested": requested or [], "actor": uow.actor},
    )
    return decision_id
