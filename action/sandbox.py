"""The sandbox's fence: what the console's sandbox typed or pressed is never sent on a live channel.

A send's causation chain is walked through the fact log (`fact.trace`: the decision or the concern that asked,
the facts that caused them) back to its first signal; a `sandbox: true` anywhere on it marks the send as born in the
sandbox; so does a button's loop (a brief's numbered line). What reports list is kept clean where it is read
(`concern.sandbox`: once a channel is live, sandbox loops are closed and left out of what people read).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from action.models import ActionRequest, ButtonRow
from fact.trace import born_in_sandbox, decision_born_in_sandbox
from kernel.context import AppContext, UnitOfWork

REFUSAL = {"error": "sandbox_only", "message": "born in the console's sandbox: sent on dry-run channels only"}


def refused(ctx: AppContext, request: ActionRequest, channel: Any, *, born: bool | None = None) -> bool:
    """True when `request` may not go out on `channel`: a live channel, and a request born in the sandbox.

    `born`: what the reservation's transaction read of the request's chain (`born_in`); None reads it now.
    """
    if getattr(channel, "dry_run", False):
        return False
    if born is not None:
        return born
    with ctx.reader() as uow:
        return born_in(uow, request)


UNREAD = object()  # `born_in`'s decision: not read yet


def born_in(uow: UnitOfWork, request: ActionRequest, *, decision: Any = UNREAD) -> bool:
    """Whether the request's chain (its decision, its loop, the loops its buttons act on) starts in the sandbox.

    `decision`: the content of the request's decision fact as the reservation read it (None: not in the log).
    """
    refs = [request.concern_id, *_button_concerns(uow, request)]
    if decision is UNREAD:
        refs.insert(0, request.decision_ref)
    elif decision_born_in_sandbox(uow, content=decision):
        return True
    return any(born_in_sandbox(uow, ref=ref) for ref in dict.fromkeys(refs) if ref)


def born_on_route(
    ctx: AppContext, uow: UnitOfWork, request: ActionRequest, channels: list[str], *, decision: Any = UNREAD
) -> bool | None:
    """`born_in` for a reservation whose route is `channels`; None (not read) when none of them is live."""
    return born_in(uow, request, decision=decision) if any_live(ctx, channels) else None


def any_live(ctx: AppContext, channels: list[str]) -> bool:
    """Whether any of these channels is installed and live (only a live one needs the chain read)."""
    return any((c := ctx.channels.get(name)) is not None and not getattr(c, "dry_run", False) for name in channels)


def _button_concerns(uow: UnitOfWork, request: ActionRequest) -> list[str]:
    """The loops a message's buttons act on (a brief's numbered lines): a sandbox loop's button must not go live."""
    tokens = [b.token for b in request.buttons]
    if not tokens:
        return []
    stmt = select(ButtonRow.concern_id).where(ButtonRow.token.in_(tokens), ButtonRow.concern_id.is_not(None))
    return [c for c in uow.session.scalars(stmt) if c]
