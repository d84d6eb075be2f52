"""One plugin per platform: from settings, the sender, the webhook, the inbound starter, the contact directory and
the calendar's busy time.

A plugin also owns its platform's particulars: its settings (`DEPUTY_<NAME>_…`, mixed into the service's
Settings), its name as people read it, its CSV binding columns and its bind hint (the kernel's registry,
`kernel.channel_names`, holds them for the layers above). The composition root lists the plugins
(`app.plugins`); the rest of the service only sees the `Channel` interface for sending, an `Inbound` port
for what arrives and that registry. Adding a platform is a new folder with a plugin and one line in that list.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal, Protocol

from channels.base import Channel
from channels.inbound import Inbound, InboundMessage, InboundPress, InboundRead
from kernel.channel_names import Platform
from kernel.settings import PluginSettings


@dataclass(frozen=True)
class WebhookRequest:
    """What a platform POSTed to `/webhooks/<name>`: headers, raw body, and when it arrived."""

    headers: Mapping[str, str]
    body: bytes
    now: datetime


@dataclass(frozen=True)
class Accepted:
    """What the ack does with one authenticated request: append `body` under `event_id`, then answer.

    `event_id` None: nothing to append (a challenge, an update Deputy never acts on), answered at once. `answer(new)`
    is the body once appended (`new`: not a repeat). A press carries `press`, checked read-only while the platform
    waits, and is answered with `answer_press(toast, new)` instead (Telegram: the answerCallbackQuery riding in the
    response; Feishu: the toast). `body` holds no secret: the processor parses it later (`Webhook.parse`).
    """

    answer: Callable[[bool], dict[str, Any]]
    event_id: str | None = None
    body: bytes = b""
    kind: Literal["event", "press"] = "event"
    press: InboundPress | None = None
    answer_press: Callable[[str, bool], dict[str, Any]] | None = None


@dataclass(frozen=True)
class Parsed:
    """What an appended event holds for perception: messages, a press, read receipts; or why it is set aside."""

    messages: list[InboundMessage] = field(default_factory=list)
    press: InboundPress | None = None
    reads: list[InboundRead] = field(default_factory=list)
    set_aside: str | None = None  # the event cannot be read (unstorable text, a malformed part): why


class Webhook(Protocol):
    """A platform's webhook: `accept` authenticates and keys a request (refusals raise the kernel's errors) in the
    ack; `parse` reads an appended event in the processor."""

    def accept(self, request: WebhookRequest) -> Accepted: ...

    def parse(self, *, kind: str, body: bytes, received_at: datetime) -> Parsed: ...


class Started(Protocol):
    """A running inbound transport (long polling, a long connection)."""

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Contact:
    """One user of a platform's contact directory, as the directory sync takes it."""

    external_id: str  # the id a binding carries (Feishu: open_id)
    name: str
    en_name: str = ""
    nickname: str = ""
    user_id: str = ""
    leader_external_id: str | None = None
    resigned: bool = False


class Directory(Protocol):
    """A platform's contact directory."""

    def users(self) -> list[Contact]: ...


class BusyCalendar(Protocol):
    """A platform's free/busy, one user per request; failures in the error taxonomy (channels.errors)."""

    channel: str

    def busy(self, *, external_id: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
        """The user's busy blocks (start, end) that overlap [start, end)."""
        ...


class ChannelPlugin(ABC):
    """A platform: its name and particulars, and what it provides once its settings are there."""

    name: str
    # language (zh, en) → the platform's name as people read it; unset: the name
    display_names: ClassVar[Mapping[str, str]] = {}
    # language → what a person sends the bot to link a chat, with {code}; unset: `bind {code}`
    bind_hint: ClassVar[Mapping[str, str]] = {}
    # the CSV import's columns for the external user id and the chat id; unset: `<name>_user_id`, `<name>_chat_id`
    binding_columns: ClassVar[tuple[str, str] | None] = None
    # the platform's settings, mixed into the service's Settings (fields `<name>_…`, env `DEPUTY_<NAME>_…`)
    settings: ClassVar[type[PluginSettings] | None] = None
    # what to configure before it sends (and so before its directory can be read)
    configure_hint: ClassVar[str] = ""
    # the platform tells the bot when a message it sent was read (its sender answers `Channel.readers`)
    read_receipts: ClassVar[bool] = False

    def platform(self) -> Platform:
        """The particulars the layers above the channels read, through the kernel's registry."""
        return Platform(
            name=self.name,
            display=dict(self.display_names),
            binding_columns=self.binding_columns or ("", ""),
            bind_hint=dict(self.bind_hint),
            directory=type(self).directory is not ChannelPlugin.directory,
            read_receipts=self.read_receipts,
        )

    @abstractmethod
    def sender(self, settings: Any, *, redis: Any = None) -> Channel | None:
        """The sending channel, or None while the platform is not configured."""

    def webhook(self, settings: Any, *, sender: Channel | None) -> Webhook | None:
        """The handler of `POST /webhooks/<name>`, or None when the platform has no webhook."""
        return None

    def start_inbound(self, ctx: Any, *, inbound: Inbound, sender: Channel | None) -> Started | None:
        """Start the transport that fetches messages (polling, long connection) when the settings ask for one."""
        return None

    def directory(self, settings: Any, *, sender: Channel | None) -> Directory | None:
        """The platform's contact directory (`users()` as `Contact` records), or None while not configured."""
        return None

    def calendar(self, settings: Any) -> BusyCalendar | None:
        """People's busy time from the platform's calendar, or None (none, not switched on, not configured)."""
        return None
