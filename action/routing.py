"""Channel choice (SPEC §4.3), pure: preferred channel, then the concern's origin, then other reachable bindings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class BindingLike(Protocol):
    channel: str
    external_user_id: str
    chat_id: str | None
    reachable: bool


@dataclass(frozen=True)
class ChatRoute:
    """A route to an explicit chat (a group, the chat of a message to edit): the only place to send."""

    channel: str
    external_user_id: str
    chat_id: str | None
    reachable: bool = True


def candidates(
    bindings: Sequence[BindingLike],
    *,
    preferred: str | None,
    origin: str | None,
    reply: bool = False,
    destination: Any = None,
    first: str | None = None,
) -> list[BindingLike]:
    """Reachable bindings in the order to try them; a reactive reply goes back where the message came from first,
    a follow-up the read state moved (`first`) goes there first.

    A `destination` (channel + chat) is the one route: an answer in a group stays in that group, an edit
    changes that message; there is no fallback to another channel for either.
    """
    if destination is not None:
        own = next((b.external_user_id for b in bindings if b.channel == destination.channel), "")
        return [ChatRoute(destination.channel, own, destination.chat_id)]
    reachable = [b for b in bindings if b.reachable]
    order: list[BindingLike] = []
    for channel in (origin, preferred) if reply else (first, preferred, origin):
        order += [b for b in reachable if channel and b.channel == channel and b not in order]
    order += [b for b in reachable if b not in order]
    return order
