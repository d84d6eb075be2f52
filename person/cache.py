"""A per-process copy of the active people, for matching names and aliases anywhere in a sentence.

Every change to a person or a binding appends a `person_changed` fact in its own transaction, so the newest such
fact's position is the directory's version. The copy is read in a read transaction, outside any write lock; a
write transaction only compares the version (one indexed lookup) and, if someone changed a person meanwhile,
gets `StaleDirectory` so the caller can refresh outside the transaction and try again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import func, select

from fact.models import Fact
from kernel.context import AppContext, UnitOfWork
from person.models import ChannelBinding, Person

T = TypeVar("T")

_VERSION = select(func.max(Fact.pk)).where(Fact.fact_type == "person_changed")
_NEVER = object()


@dataclass(frozen=True)
class DirectoryEntry:
    """One active person as the matching rules see them."""

    person_id: str
    display_name: str
    role: str
    locale: str
    aliases: tuple[str, ...]
    manager_id: str | None
    external_ids: tuple[tuple[str, str], ...]  # (channel, external_user_id)
    timezone: str = "UTC"
    created_at: datetime | None = None
    policy: Mapping[str, Any] = field(default_factory=dict)  # the stored interaction policy, as stored


class StaleDirectory(Exception):
    """A person changed after the copy was read: refresh outside the transaction, then try again."""


def load(uow: UnitOfWork) -> tuple[DirectoryEntry, ...]:
    """Every active person with their bindings (two queries)."""
    ids: dict[str, list[tuple[str, str]]] = {}
    for binding in uow.session.scalars(select(ChannelBinding)):
        ids.setdefault(binding.person_id, []).append((binding.channel, binding.external_user_id))
    return tuple(
        DirectoryEntry(
            person_id=person.person_id,
            display_name=person.display_name,
            role=person.role,
            locale=person.locale,
            aliases=tuple(person.aliases),
            manager_id=person.manager_id,
            external_ids=tuple(ids.get(person.person_id, ())),
            timezone=person.timezone,
            created_at=person.created_at,
            policy=person.interaction_policy,
        )
        for person in uow.session.scalars(select(Person).where(Person.active.is_(True)))
    )


class PeopleCache(Generic[T]):
    """The copy for one process and database, each entry shaped by `shape` once per reload."""

    def __init__(self, shape: Callable[[DirectoryEntry], T]) -> None:
        self._shape = shape
        self._lock = threading.Lock()
        self._version: Any = _NEVER
        self._people: tuple[T, ...] = ()
        self.reloads = 0

    def refresh(self, ctx: AppContext) -> None:
        """Reload in a read transaction if any person changed since the copy; call it outside write transactions."""
        with ctx.reader() as uow:
            version = uow.session.scalar(_VERSION)
            with self._lock:
                if version == self._version:
                    return
            people = tuple(self._shape(entry) for entry in load(uow))
        with self._lock:
            self._version, self._people = version, people
            self.reloads += 1

    def people(self, uow: UnitOfWork) -> tuple[T, ...]:
        """The copy, if it is current as this transaction sees the directory; StaleDirectory otherwise."""
        version = uow.session.scalar(_VERSION)
        with self._lock:
            if version != self._version:
                raise StaleDirectory
            return self._people

    def copy(self) -> tuple[T, ...]:
        """The copy as last read, unchecked (for a reader that may act on a copy a moment old: it re-reads what
        it then writes about)."""
        with self._lock:
            return self._people

    def current(self, uow: UnitOfWork) -> tuple[T, ...] | None:
        """The copy if current, else None (for a caller that stops its batch rather than failing it)."""
        try:
            return self.people(uow)
        except StaleDirectory:
            return None


def cache_of(ctx: AppContext, name: str, shape: Callable[[DirectoryEntry], T]) -> PeopleCache[T]:
    """This process's cache `name` over ctx's database (created on first use)."""
    with _create_lock:
        return ctx.shared.setdefault(name, PeopleCache(shape))


_create_lock = threading.Lock()
