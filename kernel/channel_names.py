"""The installed channel plugins (`feishu`, `telegram`, …) and their particulars, installed by the composition root.

Persons' bindings, inbound messages and settings name channels; they validate against this registry, and
what people read (a channel's name, how to send a bind code) and the CSV import's binding columns come from
it, instead of spelling the platforms out: a new platform needs no change outside its own folder and the wiring.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated

from pydantic import AfterValidator, Field

DEFAULT_BIND_HINT = "bind {code}"  # the bot understands `/start <code>`, `bind <code>` and `绑定 <code>` everywhere


@dataclass(frozen=True)
class Platform:
    """One installed platform as the layers above the channels may know it."""

    name: str
    # language (zh, en) → the platform's name as people read it (`飞书`); unset: the name itself
    display: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # the CSV import's columns for a binding: the external user id and the chat id
    binding_columns: tuple[str, str] = ("", "")
    # language → what a person sends the bot to link a chat, with `{code}` (`/start {code}`)
    bind_hint: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    directory: bool = False  # the plugin offers a contact directory (`deputy persons sync --channel <name>`)
    # the platform tells the bot when its message was read (Feishu); False: reads are unknown (Telegram)
    read_receipts: bool = False

    def __post_init__(self) -> None:
        if not any(self.binding_columns):
            object.__setattr__(self, "binding_columns", (f"{self.name}_user_id", f"{self.name}_chat_id"))

    def display_name(self, locale: str) -> str:
        """`飞书` in zh, `Feishu` in en; English, then the name, when the language is missing."""
        return self.display.get(locale) or self.display.get("en") or self.name

    def hint(self, locale: str, code: str) -> str:
        """What to send the bot with this code, in `locale` (`/start ABCD2345`)."""
        template = self.bind_hint.get(locale) or self.bind_hint.get("en") or DEFAULT_BIND_HINT
        return template.format(code=code)


_installed: dict[str, Platform] = {}


def install(platforms: Iterable[Platform | str]) -> None:
    """Declare the installed channel plugins, replacing any earlier declaration (the composition root does)."""
    found = [p if isinstance(p, Platform) else Platform(p) for p in platforms]
    names = [p.name for p in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two channel plugins share a name: {', '.join(names)}")
    _installed.clear()
    _installed.update((p.name, p) for p in found)


def installed() -> tuple[str, ...]:
    """Every installed channel, configured or not."""
    return tuple(_installed)


def live(dry_run: Iterable[str]) -> list[str]:
    """The installed channels not named in `dry_run` (DEPUTY_DRY_RUN_CHANNELS): while any is, the sandbox is off."""
    stubs = set(dry_run)
    return [name for name in _installed if name not in stubs]


def platforms() -> tuple[Platform, ...]:
    """Every installed channel's particulars, in the plugins' order."""
    return tuple(_installed.values())


def platform(name: str) -> Platform | None:
    """The installed platform called `name`, or None."""
    return _installed.get(name)


def display(name: str, locale: str) -> str | None:
    """An installed platform's name as people read it in `locale`, or None for a name no plugin provides."""
    found = _installed.get(name)
    return found.display_name(locale) if found else None


def check(name: str) -> str:
    """`name` itself, or ValueError naming the installed channels (a pydantic validator)."""
    if name not in _installed:
        raise ValueError(f"unknown channel {name!r}; installed: {', '.join(_installed) or 'none'}")
    return name


def _document(schema: dict) -> None:
    """The OpenAPI document lists the installed channels (it is built after the composition root installed them)."""
    if _installed:
        schema["enum"] = list(_installed)


ChannelName = Annotated[str, AfterValidator(check), Field(json_schema_extra=_document)]
