"""The query and internal_update operations: run in-process, on the `internal` channel of their records."""

from __future__ import annotations

from typing import Any

from action.models import ActionType
from channels.errors import InvalidRequest
from fact import service as facts
from kernel.context import UnitOfWork
from kernel.errors import DeputyError
from person import service as persons
from person.models import InteractionPolicyPatch, PersonUpdate

QUERY_LIMIT = 100


def _query_facts(uow: UnitOfWork, args: dict[str, Any]) -> dict[str, Any]:
    filters = facts.FactFilter(
        fact_type=args.get("fact_type"), person_id=args.get("person_id"), since=args.get("since"), q=args.get("q")
    )
    rows, _ = facts.list_(uow, filters=filters, limit=min(int(args.get("limit", 50)), QUERY_LIMIT))
    return {"items": [facts.to_out(f, uow=uow).model_dump(mode="json") for f in rows]}


def _latest_person_fact(uow: UnitOfWork, person_id: str) -> Any:
    rows, _ = facts.list_(uow, filters=facts.FactFilter(fact_type="person_changed", person_id=person_id), limit=1)
    return rows[0] if rows else None


def _recording(change: Any) -> Any:
    """Run a person change and report the person_changed fact it wrote (the truth source's own record)."""

    def handler(uow: UnitOfWork, args: dict[str, Any]) -> dict[str, Any]:
        person_id = args.get("person_id")
        if not isinstance(person_id, str):
            raise InvalidRequest("operation needs a person_id", code="missing_person_id")
        before = _latest_person_fact(uow, person_id)
        try:
            change(uow, person_id, args)
        except DeputyError as exc:
            raise InvalidRequest(exc.message, code=exc.code) from exc
        except ValueError as exc:
            raise InvalidRequest(str(exc), code="validation_error") from exc
        after = _latest_person_fact(uow, person_id)
        changed = after is not None and (before is None or after.pk != before.pk)
        return {"person_id": person_id, "changed": changed, "recorded_fact_id": after.fact_id if changed else None}

    return handler


def _set_policy(uow: UnitOfWork, person_id: str, args: dict[str, Any]) -> None:
    persons.patch_policy(
        uow, person_id=person_id, patch=InteractionPolicyPatch.model_validate(args.get("patch") or {}), source="person"
    )


def _set_work_state(uow: UnitOfWork, person_id: str, args: dict[str, Any]) -> None:
    persons.update(
        uow, person_id=person_id, patch=PersonUpdate(work_state=args.get("work_state") or {}), source="person"
    )


OPERATIONS = {
    ActionType.query: {"facts": _query_facts},
    ActionType.internal_update: {
        "person.interaction_policy": _recording(_set_policy),
        "person.work_state": _recording(_set_work_state),
    },
}


def run(uow: UnitOfWork, *, action_type: ActionType, operation: dict[str, Any]) -> dict[str, Any]:
    """Run `{"name": ..., **arguments}` of this action type; InvalidRequest for an operation it does not know."""
    name = operation.get("name")
    handler = OPERATIONS[ActionType(action_type)].get(name) if isinstance(name, str) else None
    if handler is None:
        raise InvalidRequest(f"unknown {ActionType(action_type).value} operation {name!r}", code="unknown_operation")
    return handler(uow, {k: v for k, v in operation.items() if k != "name"})
