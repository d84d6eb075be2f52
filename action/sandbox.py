"""The sandbox's fence: what the console's sandbox typed or pressed is never sent on a live channel.

A send's causation chain is walked through the fact log (the decision or the concern that asked, the facts that
caused them) back to its first signal; a `sandbox: true` anywhere on it marks the send as born in the sandbox.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from action.models import ActionRequest, ButtonRow
from fact import service as facts
from fact.models import Fact
from kernel.context import AppContext, UnitOfWork

# Deeper than any real chain (signal > decision > concern > decision > follow-up ...), short of a loop's cost.
MAX_STEPS = 64
REFUSAL = {"error": "sandbox_only", "message": "born in the console's sandbox: sent on dry-run channels only"}


def _step(uow: UnitOfWork, ref: str) -> Fact | None:
    """The fact a causation reference names: a decision (dec_…), a concern's raising (con_…), or a fact id."""
    if ref.startswith("dec_"):
        return facts.get_by_dedup_key(uow, dedup_key=f"decision:{ref}")
    if ref.startswith("con_"):
        return facts.get_by_dedup_key(uow, dedup_key=f"concern:{ref}:raised")
    return facts.get(uow, fact_id=ref)


def born_in_sandbox(uow: UnitOfWork, *, ref: str | None) -> bool:
    """Whether the chain of causes from `ref` back to its first signal passes a sandbox signal."""
    seen: set[str] = set()
    while ref and ref not in seen and len(seen) < MAX_STEPS:
        seen.add(ref)
        fact = _step(uow, ref)
        if fact is None:
            return False
        if fact.content.get("sandbox") is True:
            return True
        ref = _next(fact)
    return False


def _next(fact: Fact) -> str | None:
    """The cause of `fact`: its causation id, unless that names the fact itself (a concern's own id)."""
    content: dict[str, Any] = fact.content
    cause = fact.causation_id
    if cause and cause == content.get("concern_id") and fact.fact_type == "concern_changed":
        return None
    return cause


def refused(ctx: AppContext, request: ActionRequest, channel: Any) -> bool:
    """True when `request` may not go out on `channel`: a live channel, and a request born in the sandbox."""
    if getattr(channel, "dry_run", False):
        return False
    with ctx.reader() as uow:
        refs = [request.decision_ref, request.concern_id, *_button_concerns(uow, request)]
        return any(born_in_sandbox(uow, ref=ref) for ref in dict.fromkeys(refs) if ref)


def _button_concerns(uow: UnitOfWork, request: ActionRequest) -> list[str]:
    """The loops a message's buttons act on (a brief's numbered lines): a sandbox loop's button must not go live."""
    tokens = [b.token for b in request.buttons]
    if not tokens:
        return []
    stmt = select(ButtonRow.concern_id).where(ButtonRow.token.in_(tokens), ButtonRow.concern_id.is_not(None))
    return [c for c in uow.session.scalars(stmt) if c]
