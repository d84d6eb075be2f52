"""Who asked for a command and where (`Origin`), and what several handlers read of a loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from concern import service
from concern.outcomes import Outcome
from kernel.context import UnitOfWork
from person import service as persons


@dataclass(frozen=True)
class Origin:
    """Who asked for a command and where: what its handler needs besides the command itself."""

    decision_id: str
    actor_id: str | None = None  # the person who asked (sender, presser, a loop's originator); None: an operator
    channel: str | None = None  # where it came in: new loops start there, replies go there
    chat_id: str | None = None  # the group it was asked in (None for a direct message): confirmations go back there
    fact_id: str | None = None  # the signal that carried it
    content: dict[str, Any] = field(default_factory=dict)  # that signal's content (a bind's account, media)
    as_admin: bool = False  # an operator (API, console): cancels any loop; a nudge skips the check before queueing
    claimed_by: str | None = None  # the first action is queued already owned by this runner (it runs it at once)


Handler = Callable[[UnitOfWork, Any, Origin], Outcome]


def at(value: str | None) -> datetime | None:
    """An ISO 8601 instant of a command's field, or None."""
    return datetime.fromisoformat(value) if value else None


def names_of(uow: UnitOfWork, concern_id: str) -> dict[str, str]:
    """The loop's originator and person asked, by display name (what the press texts name)."""
    concern = service.get(uow, concern_id=concern_id)
    if concern is None:
        return {"asker": "", "target": ""}
    asker = persons.get(uow, person_id=concern.originator_id)
    target = persons.get(uow, person_id=concern.target_person_id)
    return {"asker": asker.display_name if asker else "", "target": target.display_name if target else ""}
