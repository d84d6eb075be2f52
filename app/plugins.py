"""The installed channel plugins. Adding a platform: a new folder under channels/ and one line in PLUGINS.

From that list come the valid channel names and each platform's particulars (the kernel's registry, which the
person layer, the catalogue and the console read), the service's Settings (each plugin's settings mixed in,
`app.settings`), the senders, the webhooks, the inbound transports, the directory syncs and the calendars.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from channels.base import ChannelRegistry
from channels.dryrun import DryRunChannel
from channels.errors import ChannelError, RateLimited, Transient
from channels.feishu.plugin import FeishuPlugin
from channels.plugin import BusyCalendar, ChannelPlugin, Started, Webhook
from channels.telegram.plugin import TelegramPlugin
from kernel import channel_names
from person.calendar import Calendar, CalendarFailed

PLUGINS: tuple[ChannelPlugin, ...] = (
    TelegramPlugin(),
    FeishuPlugin(),
)


def install(installed: Iterable[ChannelPlugin]) -> None:
    """Make `installed` the plugins: PLUGINS and the kernel's registry of their particulars (done for PLUGINS)."""
    global PLUGINS
    PLUGINS = tuple(installed)
    channel_names.install([p.platform() for p in PLUGINS])


install(PLUGINS)


def plugin(name: str) -> ChannelPlugin | None:
    """The installed plugin called `name`, or None."""
    return next((p for p in PLUGINS if p.name == name), None)


def settings_classes(installed: Iterable[ChannelPlugin] | None = None) -> tuple[type, ...]:
    """Each plugin's settings class, once, in the plugins' order (PLUGINS unless `installed` is given)."""
    chosen = PLUGINS if installed is None else tuple(installed)
    return tuple(dict.fromkeys(p.settings for p in chosen if p.settings is not None))


def senders(settings: Any, *, redis: Any = None) -> ChannelRegistry:
    """Every configured plugin's sender, or a dry-run stand-in for those in DEPUTY_DRY_RUN_CHANNELS."""
    registry = ChannelRegistry()
    for p in PLUGINS:
        if p.name in settings.dry_run_channels:
            registry.register(DryRunChannel(p.name))
        elif (sender := p.sender(settings, redis=redis)) is not None:
            registry.register(sender)
    return registry


def start_inbound(ctx: Any, *, inbound: Any) -> list[Started]:
    """Start every plugin's inbound transport the settings ask for (long polling, the long connection)."""
    started = []
    for p in PLUGINS:
        if (running := p.start_inbound(ctx, inbound=inbound, sender=ctx.channels.get(p.name))) is not None:
            started.append(running)
    return started


class PlatformBusy:
    """A plugin's calendar as the person layer's BusySource: its channel errors become CalendarFailed."""

    def __init__(self, source: BusyCalendar) -> None:
        self.source, self.channel = source, source.channel

    def busy(self, *, external_id: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
        """The source's busy blocks; a failure as CalendarFailed (`everyone` for a timeout, 5xx or rate limit)."""
        try:
            return self.source.busy(external_id=external_id, start=start, end=end)
        except ChannelError as exc:
            # A timeout, a 5xx or a rate limit says nothing of this person: nobody's calendar would answer now.
            everyone = isinstance(exc, Transient | RateLimited)
            why = f"{exc.kind} ({exc.code}): {exc.message}" if exc.code is not None else f"{exc.kind}: {exc.message}"
            raise CalendarFailed(why, everyone=everyone, retry_after=exc.retry_after) from exc


def calendar(settings: Any) -> Calendar | None:
    """People's busy time from every plugin whose calendar the settings switch on; None when there is none."""
    sources = [source for p in PLUGINS if (source := p.calendar(settings)) is not None]
    return Calendar([PlatformBusy(source) for source in sources]) if sources else None


def webhooks(ctx: Any) -> dict[str, Webhook]:
    """Each installed plugin's webhook over `ctx`, built once per context (Telegram's holds the sender, for getMe)."""
    found = ctx.shared.get("app.webhooks")
    if found is None:
        built = {p.name: p.webhook(ctx.settings, sender=ctx.channels.get(p.name)) for p in PLUGINS}
        found = ctx.shared.setdefault("app.webhooks", {name: w for name, w in built.items() if w is not None})
    return found
