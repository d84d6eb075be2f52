"""Loops the console's sandbox raised, once the sandbox is off (a channel is live).

They were trials: the processor closes the open ones without a word to anyone (nothing they cause may go out on a
live channel anyway, `action.sandbox`), and what people read of their loops on a live channel leaves them out.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, true

from action.models import ActionRow
from concern import service
from concern.models import ACTIVE_STATES, Concern
from fact import trace
from kernel.channel_names import live
from kernel.context import AppContext, UnitOfWork

CLOSED_PER_PASS = 100


def sandbox_on(settings: Any) -> bool:
    """Whether the sandbox is on: every installed channel is dry-run."""
    return not live(settings.dry_run_channels)


def shown(settings: Any) -> Any:
    """The loops a report may list: every loop while the sandbox is on; outside it, none the sandbox raised."""
    return true() if sandbox_on(settings) else Concern.sandbox.is_(False)


def real_actions(uow: UnitOfWork, rows: list[ActionRow]) -> list[ActionRow]:
    """The action records a report may list: all while the sandbox is on; outside it, none the sandbox caused.

    Only a dry-run send or one the fence refused can have been caused by the sandbox: the others are not walked.
    """
    if sandbox_on(uow.settings):
        return rows
    return [row for row in rows if not (_maybe_sandbox(row) and _born_in_sandbox(uow, row))]


def _maybe_sandbox(row: ActionRow) -> bool:
    attempts = row.result_detail.get("attempts", [])
    return any(a.get("dry_run") is True or a.get("error") == "sandbox_only" for a in attempts)


def _born_in_sandbox(uow: UnitOfWork, row: ActionRow) -> bool:
    return any(trace.born_in_sandbox(uow, ref=ref) for ref in (row.concern_id, row.decision_ref) if ref)


def close_if_live(ctx: AppContext) -> int:
    """Close the open loops the sandbox raised, now that a channel is live; how many were closed."""
    if sandbox_on(ctx.settings):
        return 0
    with ctx.reader() as uow:
        stmt = select(Concern.concern_id).where(Concern.sandbox.is_(True), Concern.state.in_(ACTIVE_STATES))
        open_ = list(uow.session.scalars(stmt.order_by(Concern.concern_id).limit(CLOSED_PER_PASS)))
    closed = 0
    for concern_id in open_:
        with ctx.uow(actor="system") as uow:
            concern = service.get(uow, concern_id=concern_id, lock=True)
            if concern is None or concern.state not in ACTIVE_STATES:  # another replica closed it first
                continue
            # Superseding the version drops whatever the loop still had queued.
            service.change(
                uow,
                concern,
                change="sandbox_closed",
                state="cancelled",
                step_at=None,
                pending_deliveries=[],
                extra={"by": "system", "live": live(ctx.settings.dry_run_channels)},
            )
            closed += 1
    return closed
