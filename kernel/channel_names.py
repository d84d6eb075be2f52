"""The names of the installed channel plugins (`feishu`, `telegram`, …), installed by the composition root.

Persons' bindings, inbound messages and settings name channels; they validate against this list instead of
spelling the platforms out, so a new platform needs no change outside its own folder and the wiring.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

_installed: list[str] = []


def install(names: list[str] | tuple[str, ...]) -> None:
    """Declare the installed channel plugins (the composition root does, at import)."""
    for name in names:
        if name not in _installed:
            _installed.append(name)


def installed() -> tuple[str, ...]:
    """Every installed channel, configured or not."""
    return tuple(_installed)


def check(name: str) -> str:
    """`name` itself, or ValueError naming the installed channels (a pydantic validator)."""
    if name not in _installed:
        raise ValueError(f"unknown channel {name!r}; installed: {', '.join(_installed) or 'none'}")
    return name


ChannelName = Annotated[str, AfterValidator(check)]
