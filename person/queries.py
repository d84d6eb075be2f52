"""Read persons: one by id, its channel bindings and interaction policy, its API shape, a filtered page. No writes.

The changes (each recorded as a `person_changed` fact) are in `person.service`, which also exports these reads.
"""

from __future__ import annotations

from sqlalchemy import Text, cast, or_, select

from kernel.context import UnitOfWork
from kernel.errors import NotFound
from kernel.pagination import like_pattern, page_by_time
from person import work_state
from person.models import PERSON_ID_RE, ChannelBinding, ChannelBindingOut, InteractionPolicy, Person, PersonOut


def get(uow: UnitOfWork, *, person_id: str) -> Person | None:
    """The person with this id (active or not), or None."""
    if not PERSON_ID_RE.fullmatch(person_id):
        return None  # no such person can exist; also keeps NUL and other junk away from the database
    return uow.session.get(Person, person_id)


def get_or_404(uow: UnitOfWork, *, person_id: str) -> Person:
    """The person with this id, or NotFound."""
    person = get(uow, person_id=person_id)
    if person is None:
        raise NotFound(f"person {person_id} does not exist", field="person_id")
    return person


def bindings_of(uow: UnitOfWork, *, person_id: str) -> list[ChannelBinding]:
    """A person's channel bindings in a stable order."""
    stmt = select(ChannelBinding).where(ChannelBinding.person_id == person_id).order_by(ChannelBinding.id)
    return list(uow.session.scalars(stmt))


def policy_of(person: Person) -> InteractionPolicy:
    """The validated interaction policy of a person."""
    return InteractionPolicy.model_validate(person.interaction_policy)


def to_out(uow: UnitOfWork, person: Person) -> PersonOut:
    """The API shape of a person, bindings and policy included."""
    return PersonOut(
        person_id=person.person_id,
        display_name=person.display_name,
        aliases=person.aliases,
        role=person.role,
        manager_id=person.manager_id,
        timezone=person.timezone,
        locale=person.locale,
        work_state=work_state.read(person.work_state),
        channel_bindings=[
            ChannelBindingOut.model_validate(b, from_attributes=True)
            for b in bindings_of(uow, person_id=person.person_id)
        ],
        interaction_policy=policy_of(person),
        active=person.active,
        created_at=person.created_at.astimezone(uow.tz),
        updated_at=person.updated_at.astimezone(uow.tz),
    )


def list_(
    uow: UnitOfWork,
    *,
    role: str | None = None,
    active: bool | None = None,
    q: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[Person], str | None]:
    """Persons newest first, filtered; with the next page's cursor."""
    limit = max(1, min(limit, 500))
    stmt = select(Person)
    if role:
        stmt = stmt.where(Person.role == role)
    if active is not None:
        stmt = stmt.where(Person.active == active)
    if q:
        pattern = like_pattern(q)
        stmt = stmt.where(
            or_(
                Person.person_id.ilike(pattern, escape="\\"),
                Person.display_name.ilike(pattern, escape="\\"),
                cast(Person.aliases, Text).ilike(pattern, escape="\\"),  # stored as JSON text, unescaped (kernel.db)
            )
        )
    return page_by_time(
        uow.session,
        stmt,
        Person.created_at,
        Person.person_id,
        limit=limit,
        cursor=cursor,
    )
