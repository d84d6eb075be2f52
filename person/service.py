"""Create and change persons; every change appends a `person_changed` fact in the same transaction.

The reads (`get`, `get_or_404`, `bindings_of`, `policy_of`, `to_out`, `list_`) are in `person.queries`; this module
exports them too, so `person.service` stays the one entry point for callers.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, tuple_

from fact import service as fact_service
from kernel.context import UnitOfWork
from kernel.errors import Conflict, Invalid
from person import checks
from person.models import (
    ChannelBinding,
    ChannelBindingIn,
    InteractionPolicy,
    InteractionPolicyPatch,
    Person,
    PersonCreate,
    PersonUpdate,
)
from person.queries import bindings_of, get, get_or_404, list_, policy_of, to_out
from person.work_state import stored

__all__ = [
    "bindings_of",
    "create",
    "deactivate",
    "get",
    "get_or_404",
    "list_",
    "mark_unreachable",
    "patch_policy",
    "policy_of",
    "replace_bindings",
    "replace_policy",
    "to_out",
    "update",
    "upsert",
]


def _snapshot(uow: UnitOfWork, person: Person) -> dict[str, Any]:
    return to_out(uow, person).model_dump(mode="json", exclude={"created_at", "updated_at"})


def _record_change(
    uow: UnitOfWork,
    *,
    person: Person,
    change: str,
    before: dict | None,
    source: str,
    after: dict | None = None,
    extra: dict[str, Any] | None = None,
    actor: str | None = None,
    refs: tuple[str, ...] = (),
) -> None:
    after = after if after is not None else _snapshot(uow, person)
    fact_service.append(
        uow,
        fact_type="person_changed",
        source=source,
        person_refs=[person.person_id, *(r for r in refs if r != person.person_id)],
        content={
            "change": change,
            "person_id": person.person_id,
            "actor": actor or uow.actor,
            **(extra or {}),
            "before": before,
            "after": after,
        },
    )


def _replace_bindings(uow: UnitOfWork, *, person_id: str, bindings: list[ChannelBindingIn]) -> None:
    keys = [(b.channel, b.external_user_id) for b in bindings]
    if keys:
        taken = uow.session.scalars(
            select(ChannelBinding).where(
                tuple_(ChannelBinding.channel, ChannelBinding.external_user_id).in_(keys),
                ChannelBinding.person_id != person_id,
            )
        ).first()
        if taken is not None:
            raise Conflict(
                f"{taken.channel} user {taken.external_user_id} is already bound to {taken.person_id}",
                field="channel_bindings",
            )
    uow.session.execute(delete(ChannelBinding).where(ChannelBinding.person_id == person_id))
    uow.session.flush()
    uow.session.add_all(ChannelBinding(person_id=person_id, **b.model_dump()) for b in bindings)
    uow.session.flush()


def create(uow: UnitOfWork, *, data: PersonCreate, source: str = "admin_api") -> Person:
    """Create a person with bindings and policy; Conflict if the id exists."""
    if get(uow, person_id=data.person_id) is not None:
        raise Conflict(f"person {data.person_id} already exists", field="person_id")
    checks.manager(uow, person_id=data.person_id, manager_id=data.manager_id)
    checks.distinct(data.channel_bindings)
    checks.preferred(data.interaction_policy, data.channel_bindings)
    checks.stand_in(uow, person_id=data.person_id, state=data.work_state)
    person = Person(
        person_id=data.person_id,
        display_name=data.display_name,
        aliases=data.aliases,
        role=data.role,
        manager_id=data.manager_id,
        timezone=data.timezone or uow.settings.timezone,
        locale=data.locale,
        work_state=stored(data.work_state),
        interaction_policy=data.interaction_policy.model_dump(mode="json"),
        active=True,
        created_at=uow.now,
        updated_at=uow.now,
    )
    uow.session.add(person)
    uow.session.flush()
    _replace_bindings(uow, person_id=person.person_id, bindings=data.channel_bindings)
    _record_change(uow, person=person, change="created", before=None, source=source)
    return person


def update(uow: UnitOfWork, *, person_id: str, patch: PersonUpdate, source: str = "admin_api") -> Person:
    """Apply the fields given in `patch`; no fact when nothing changed."""
    person = get_or_404(uow, person_id=person_id)
    changes = patch.model_dump(exclude_unset=True)
    for name in ("display_name", "role", "timezone", "locale", "work_state", "aliases", "active"):
        if name in changes and changes[name] is None:
            raise Invalid(f"{name} cannot be null", field=name)
    if "manager_id" in changes:
        checks.manager(uow, person_id=person_id, manager_id=changes["manager_id"])
    if "work_state" in changes:
        checks.stand_in(uow, person_id=person_id, state=patch.work_state)
        changes["work_state"] = stored(patch.work_state)
    before = _snapshot(uow, person)
    for name, value in changes.items():
        setattr(person, name, value)
    _finish(uow, person=person, before=before, change="updated", source=source)
    return person


def upsert(uow: UnitOfWork, *, data: PersonCreate, source: str = "admin_api") -> tuple[Person, str]:
    """Create the person, or make an existing one match `data` whole; outcome created/updated/unchanged."""
    person = get(uow, person_id=data.person_id)
    if person is None:
        return create(uow, data=data, source=source), "created"
    checks.manager(uow, person_id=data.person_id, manager_id=data.manager_id)
    checks.distinct(data.channel_bindings)
    checks.preferred(data.interaction_policy, data.channel_bindings)
    checks.stand_in(uow, person_id=data.person_id, state=data.work_state)
    before = _snapshot(uow, person)
    for name in ("display_name", "aliases", "role", "manager_id", "locale"):
        setattr(person, name, getattr(data, name))
    person.work_state = stored(data.work_state)
    person.timezone = data.timezone or person.timezone
    person.interaction_policy = data.interaction_policy.model_dump(mode="json")
    _replace_bindings(uow, person_id=person.person_id, bindings=data.channel_bindings)
    changed = _finish(uow, person=person, before=before, change="updated", source=source)
    return person, "updated" if changed else "unchanged"


def _finish(
    uow: UnitOfWork, *, person: Person, before: dict[str, Any], change: str, source: str, **recorded: Any
) -> bool:
    """Stamp and record the change if anything changed (`recorded`: the fact's actor, extra, refs); True if it did."""
    uow.session.flush()
    after = _snapshot(uow, person)  # created_at / updated_at are not part of it
    if after == before:
        return False
    person.updated_at = uow.now
    uow.session.flush()
    _record_change(uow, person=person, change=change, before=before, source=source, after=after, **recorded)
    return True


def deactivate(uow: UnitOfWork, *, person_id: str, source: str = "admin_api") -> Person:
    """Mark a person inactive; their facts and bindings stay."""
    person = get_or_404(uow, person_id=person_id)
    before = _snapshot(uow, person)
    person.active = False
    _finish(uow, person=person, before=before, change="deactivated", source=source)
    return person


def replace_policy(
    uow: UnitOfWork, *, person_id: str, policy: InteractionPolicy, source: str = "admin_api", **recorded: Any
) -> Person:
    """Replace the whole policy (omitted fields: defaults); `recorded`: the fact's own actor, extra content, refs."""
    person = get_or_404(uow, person_id=person_id)
    checks.preferred(policy, bindings_of(uow, person_id=person_id), field="preferred_channel", error=Conflict)
    before = _snapshot(uow, person)
    person.interaction_policy = policy.model_dump(mode="json")
    _finish(uow, person=person, before=before, change="policy_changed", source=source, **recorded)
    return person


def patch_policy(
    uow: UnitOfWork, *, person_id: str, patch: InteractionPolicyPatch, source: str = "admin_api", **recorded: Any
) -> Person:
    """Change only the policy fields given (`recorded` as for `replace_policy`)."""
    person = get_or_404(uow, person_id=person_id)
    changes = patch.model_dump(mode="json", exclude_unset=True)
    for name in (
        "allow_proactive_ping",
        "max_proactive_contacts_per_day",
        "quiet_hours",
        "quiet_days",
        "digest",
        "digest_max_wait",
        "follow_up_stretch",
    ):
        if name in changes and changes[name] is None:
            raise Invalid(f"interaction_policy.{name} cannot be null", field=f"interaction_policy.{name}")
    merged = InteractionPolicy.model_validate({**person.interaction_policy, **changes})
    return replace_policy(uow, person_id=person_id, policy=merged, source=source, **recorded)


def replace_bindings(
    uow: UnitOfWork, *, person_id: str, bindings: list[ChannelBindingIn], source: str = "admin_api"
) -> Person:
    """Replace a person's channel bindings; the preferred channel must stay bound."""
    person = get_or_404(uow, person_id=person_id)
    checks.distinct(bindings)
    checks.preferred(policy_of(person), bindings, field="channel_bindings", error=Conflict)
    before = _snapshot(uow, person)
    _replace_bindings(uow, person_id=person_id, bindings=bindings)
    _finish(uow, person=person, before=before, change="bindings_changed", source=source)
    return person


def mark_unreachable(
    uow: UnitOfWork, *, person_id: str, channel: str, reason: str, source: str = "action_layer"
) -> bool:
    """Mark a person's binding on `channel` unreachable (platform said so); True if it changed."""
    person = get_or_404(uow, person_id=person_id)
    before = _snapshot(uow, person)
    changed = False
    for binding in bindings_of(uow, person_id=person_id):
        if binding.channel == channel and binding.reachable:
            binding.reachable = False
            changed = True
    if changed:
        uow.session.flush()
        person.updated_at = uow.now
        _record_change(
            uow,
            person=person,
            change="binding_unreachable",
            before=before,
            source=source,
            extra={"channel": channel, "reason": reason},
        )
    return changed
