"""Shared set-up for action-layer integration tests: persons, concerns and in-memory channels."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from action.models import ActionRequest, ActionRow
from concern.models import Concern
from fact.models import Fact
from kernel.context import AppContext
from person import service as persons
from person.models import PersonCreate
from tests.fakes.memory_channel import MemoryChannel


def add_memory_channels(ctx: AppContext) -> tuple[MemoryChannel, MemoryChannel]:
    """Register in-memory stand-ins for feishu and telegram on the context."""
    feishu, telegram = MemoryChannel("feishu"), MemoryChannel("telegram")
    ctx.channels.register(feishu)
    ctx.channels.register(telegram)
    return feishu, telegram


def add_person(
    ctx: AppContext,
    person_id: str = "p_zhangsan",
    *,
    policy: dict[str, Any] | None = None,
    bindings: list | None = None,
    **fields: Any,
) -> None:
    """Create a person bound on feishu and telegram, no quiet hours unless given."""
    data = {
        "person_id": person_id,
        "display_name": fields.pop("display_name", person_id),
        "channel_bindings": bindings
        if bindings is not None
        else [
            {"channel": "feishu", "external_user_id": f"ou_{person_id}"},
            {"channel": "telegram", "external_user_id": f"tg_{person_id}", "chat_id": f"tg_{person_id}"},
        ],
        "interaction_policy": {"quiet_hours": [], **(policy or {})},
        **fields,
    }
    with ctx.uow(actor="test") as uow:
        persons.create(uow, data=PersonCreate.model_validate(data))


def add_concern(
    ctx: AppContext,
    concern_id: str,
    *,
    target: str = "p_zhangsan",
    state: str = "waiting_reply",
    priority: str = "P1",
    follow_up_count: int = 0,
) -> None:
    """Insert a concern row directly (the concern engine's own API is not needed here)."""
    with ctx.uow() as uow:
        uow.session.add(
            Concern(
                concern_id=concern_id,
                originator_id="p_boss",
                target_person_id=target,
                question="提测什么时候能给？",
                priority=priority,
                state=state,
                follow_up_count=follow_up_count,
                created_at=uow.now,
                updated_at=uow.now,
            )
        )


def state_of(concern_id: str):
    """The concern layer's L2 inputs for `concern_id`, as the concern outbox hands them to the action layer."""
    from concern import service as concerns

    return lambda uow: concerns.state_of(uow, concern_id=concern_id)


def opening(ctx: AppContext, concern_id: str, person_id: str = "p_zhangsan"):
    """Ask the action layer whether a new loop on `person_id` may open (L2), as raising a concern does."""
    from action import service
    from action.rules import ConcernState
    from concern import service as concerns

    with ctx.uow() as uow:
        total, for_person = concerns.active_counts(uow, target_person_id=person_id, excluding=concern_id)
        return service.admit(
            uow,
            request=ask(concern_id, person_id),
            state=ConcernState("P1", active_global=total, active_for_person=for_person),
        )


def notify(person_id: str = "p_zhangsan", **kw: Any) -> ActionRequest:
    """A notify request with a decision ref."""
    return ActionRequest(
        **{
            "action_type": "notify",
            "decision_ref": "dec_20260318_001",
            "target_person_id": person_id,
            "text": "明早10点开会",
            **kw,
        }
    )


def ask(concern_id: str, person_id: str = "p_zhangsan", **kw: Any) -> ActionRequest:
    """A send_message tied to a concern."""
    return ActionRequest(
        **{
            "action_type": "send_message",
            "decision_ref": concern_id,
            "target_person_id": person_id,
            "text": "老板想了解提测什么时候能给？",
            "concern_id": concern_id,
            **kw,
        }
    )


def action_facts(ctx: AppContext) -> list[Fact]:
    """Every action_result fact, oldest first."""
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == "action_result").order_by(Fact.pk)))


def action_rows(ctx: AppContext) -> list[ActionRow]:
    """Every action row, oldest first."""
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(ActionRow).order_by(ActionRow.pk)))
