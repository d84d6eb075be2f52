"""The people as the rules see them (`PersonView`s), kept per process and reloaded after a person changes."""

from __future__ import annotations

from cognitive_core.situation import PersonView
from kernel.context import AppContext
from person.cache import DirectoryEntry, PeopleCache, cache_of


def _view(entry: DirectoryEntry) -> PersonView:
    return PersonView(
        person_id=entry.person_id,
        display_name=entry.display_name,
        role=entry.role,
        locale=entry.locale,
        aliases=entry.aliases,
        manager_id=entry.manager_id,
        external_ids=entry.external_ids,
        timezone=entry.timezone,
    )


def people_cache(ctx: AppContext) -> PeopleCache[PersonView]:
    """The people as the rules see them, kept per process and reloaded after a person changes."""
    return cache_of(ctx, "cognitive_core.people", _view)
