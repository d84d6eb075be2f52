"""What carrying out a command did, as one type: `Done`, `Refused` (not now: a later try may work) or `Unchanged`.

Every handler of `concern.handlers` answers with one of these, as the action layer answers with a record or
`Skipped | InFlight | Deferred`. `code` names what happened (a catalogue key of the doors' words: what the sender
reads in the chat, what a pressed message says); `values` are what those words need (names, instants); `text` is
the engine's own words for the actor when the effect already said them (a nudge refused says when it could go).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kernel.errors import DeputyError


@dataclass(frozen=True)
class _Outcome:
    code: str
    values: dict[str, Any] = field(default_factory=dict)
    concern_id: str | None = None
    text: str | None = None

    @property
    def ok(self) -> bool:
        """True when the command changed something."""
        return isinstance(self, Done)


@dataclass(frozen=True)
class Done(_Outcome):
    """The command changed what it was meant to change."""


@dataclass(frozen=True)
class Refused(_Outcome):
    """Nothing changed, but a later try may work (a limit, quiet hours): a pressed message keeps its buttons."""

    not_before: datetime | None = None


@dataclass(frozen=True)
class Unchanged(_Outcome):
    """Nothing to do: the loop is closed, not the actor's, or does not exist (`error` says so to an API caller)."""

    error: DeputyError | None = None


Outcome = Done | Refused | Unchanged
