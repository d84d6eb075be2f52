"""Decisions (SPEC §3.4): what was concluded, from which facts, by which rule — each a `dec_…` and a `decision` fact.

The cognitive core records its decisions here, and so do the concern engine's timers and the admin API: a
decision is a kind of fact, so recording one needs no knowledge of who decided.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from fact import service as facts
from kernel.context import UnitOfWork
from kernel.ids import allocate


class DecisionKind(StrEnum):
    raise_concern = "raise_concern"
    direct_action = "direct_action"
    escalate = "escalate"
    resolve_concern = "resolve_concern"
    cancel_concern = "cancel_concern"
    snooze_concern = "snooze_concern"
    reply = "reply"
    ignore = "ignore"


def record(
    uow: UnitOfWork,
    *,
    kind: DecisionKind,
    rule: str,
    inputs: Iterable[str] = (),
    requested: list[dict[str, Any]] | None = None,
    command: dict[str, Any] | None = None,
    person_refs: Iterable[str] = (),
    source: str = "cognitive_core",
    causation_id: str | None = None,
) -> str:
    """Allocate a decision id and append its `decision` fact in the caller's transaction.

    `command` is the serialised command it carries (concern.commands), exactly what was carried out; decisions
    recorded before commands existed, and those that carry none (a timer's step), have no such key.
    """
    decision_id = allocate(uow.session, "dec", now=uow.now, tz=uow.tz)
    inputs = list(inputs)
    facts.append(
        uow,
        fact_type="decision",
        source=source,
        person_refs=person_refs,
        causation_id=causation_id or (inputs[0] if inputs else None),
        dedup_key=f"decision:{decision_id}",
        fresh_key=True,  # just allocated
        content={
            "decision_id": decision_id,
            "kind": DecisionKind(kind).value,
            "rule": rule,
            "inputs": inputs,
            "requested": requested or [],
            **({"command": command} if command is not None else {}),
            "actor": uow.actor,
        },
    )
    return decision_id


def get(uow: UnitOfWork, *, decision_id: str) -> dict[str, Any] | None:
    """A recorded decision's content (kind, rule, inputs, requested, command when it carries one), or None."""
    fact = facts.get_by_dedup_key(uow, dedup_key=f"decision:{decision_id}") if decision_id else None
    return dict(fact.content) if fact is not None else None
