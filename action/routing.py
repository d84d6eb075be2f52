"""Channel choice (SPEC §4.3), pure: preferred channel, then the concern's origin, then other reachable bindings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class BindingLike(Protocol):
    channel: str
    external_user_id: str
    chat_id: str | None
    reachable: bool


def candidates(
    bindings: Sequence[BindingLike], *, preferred: str | None, origin: str | None, reply: bool = False
) -> list[BindingLike]:
    """Reachable bindings in the order to try them; a reactive reply goes back where the message came from first."""
    reachable = [b for b in bindings if b.reachable]
    order: list[BindingLike] = []
    for channel in (origin, preferred) if reply else (preferred, origin):
        order += [b for b in reachable if channel and b.channel == channel and b not in order]
    order += [b for b in reachable if b not in order]
    return order
