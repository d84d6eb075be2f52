"""The refusals a person's change meets before anything is written: 422 what the document says, 409 what the state says.

A request the OpenAPI document admits is never a 422 (docs/api.md): a manager or stand-in that does not exist, is
deactivated, is the person themselves or closes a cycle, and a preferred channel the *stored* bindings lack, are 409s.
"""

from __future__ import annotations

from kernel.context import UnitOfWork
from kernel.errors import Conflict, Invalid
from person.models import ChannelBinding, ChannelBindingIn, InteractionPolicy
from person.queries import get
from person.work_state import WorkState


def manager(uow: UnitOfWork, *, person_id: str, manager_id: str | None) -> None:
    """A manager is another existing person, and the chain above them never comes back to `person_id`."""
    if manager_id is None:
        return
    if manager_id == person_id:
        raise Conflict("a person cannot be their own manager", field="manager_id")
    seen = {person_id}
    current = get(uow, person_id=manager_id)
    if current is None:
        raise Conflict(f"manager {manager_id} does not exist", field="manager_id")
    while current is not None and current.manager_id:
        if current.manager_id in seen:
            raise Conflict("manager chain would form a cycle", field="manager_id")
        seen.add(current.person_id)
        current = get(uow, person_id=current.manager_id)


def stand_in(uow: UnitOfWork, *, person_id: str, state: WorkState) -> None:
    """A stand-in is another active person; the check runs before anything is written."""
    stand_in_id = state.stand_in_id
    if stand_in_id is None:
        return
    field = "work_state.stand_in_id"
    if stand_in_id == person_id:
        raise Conflict("a person cannot stand in for themselves", field=field)
    stand_in = get(uow, person_id=stand_in_id)
    if stand_in is None:
        raise Conflict(f"stand-in {stand_in_id} does not exist", field=field)
    if not stand_in.active:
        raise Conflict(f"stand-in {stand_in_id} is deactivated", field=field)


def preferred(
    policy: InteractionPolicy,
    bindings: list[ChannelBindingIn] | list[ChannelBinding],
    *,
    field: str = "interaction_policy.preferred_channel",
    error: type[Invalid] | type[Conflict] = Invalid,
) -> None:
    """Against bindings in the same body the document says it (422); against stored ones only the state can (409)."""
    channels = {b.channel for b in bindings}
    if policy.preferred_channel is not None and policy.preferred_channel not in channels:
        raise error(
            f"preferred_channel {policy.preferred_channel} is not one of the person's bound channels",
            field=field,
        )


def distinct(bindings: list[ChannelBindingIn]) -> None:
    """One listing per channel and user: two that differ only in `chat_id` or `reachable` contradict each other."""
    seen = set()
    for b in bindings:
        if (b.channel, b.external_user_id) in seen:
            raise Conflict(f"binding {b.channel}:{b.external_user_id} is listed twice", field="channel_bindings")
        seen.add((b.channel, b.external_user_id))
