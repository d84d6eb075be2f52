"""What an operator does to a loop from the API or the console: ask, cancel, nudge — as commands, like any door.

Each records its decision (source `admin_api`, the actor the token's name, the command it carries) in the same
transaction as the change, so the fact log shows who did it and why the messages that follow went out. A command
that cannot be carried out raises its error (404, 409 …) and the transaction, decision included, rolls back; one
refused by the limits (`Refused`) is returned, so its decision and the blocked question are kept.
"""

from __future__ import annotations

from concern import commands as c
from concern import handlers, service
from concern.models import Concern
from concern.outcomes import Outcome, Unchanged
from fact import decisions
from kernel.context import UnitOfWork


def carry_out(
    uow: UnitOfWork,
    command: c.Command,
    *,
    rule: str,
    person_refs: list[str],
    originator_id: str | None = None,
    claimed_by: str | None = None,
) -> Outcome:
    """Record the operator's decision and carry its command out (`rule` names the door, e.g. `admin_api:cancel`)."""
    concern_id = getattr(command, "concern_id", None)
    decision_id = decisions.record(
        uow,
        kind=command.KIND,
        rule=rule,
        source="admin_api",
        inputs=[concern_id] if concern_id else [],
        person_refs=person_refs,
        requested=[command.flat()],
        command=c.dump(command),
    )
    origin = handlers.Origin(decision_id=decision_id, actor_id=originator_id, as_admin=True, claimed_by=claimed_by)
    outcome = handlers.handle(uow, command, origin)
    if isinstance(outcome, Unchanged) and outcome.error is not None:
        raise outcome.error
    return outcome


def cancel(uow: UnitOfWork, *, concern_id: str, rule: str) -> Concern:
    """Cancel a loop as an operator; the originator is told. NotFound / Conflict when it cannot be."""
    concern = service.get_or_404(uow, concern_id=concern_id)
    carry_out(uow, c.Cancel(concern_id), rule=rule, person_refs=[concern.originator_id, concern.target_person_id])
    return concern


def nudge(uow: UnitOfWork, *, concern_id: str, rule: str, claimed_by: str | None = None) -> str:
    """Queue one follow-up to the target now (L1 and L3 still apply); returns its request key."""
    concern = service.get_or_404(uow, concern_id=concern_id)
    outcome = carry_out(
        uow, c.Nudge(concern_id), rule=rule, person_refs=[concern.target_person_id], claimed_by=claimed_by
    )
    return outcome.values["request_key"]
