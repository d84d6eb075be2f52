"""The installed channel plugins. Adding a platform: a new folder under channels/ and one line in PLUGINS."""

from __future__ import annotations

from typing import Any

from channels.base import ChannelRegistry
from channels.dryrun import DryRunChannel
from channels.feishu.plugin import FeishuPlugin
from channels.plugin import ChannelPlugin, Started
from channels.telegram.plugin import TelegramPlugin
from kernel import channel_names

PLUGINS: tuple[ChannelPlugin, ...] = (
    TelegramPlugin(),
    FeishuPlugin(),
)
channel_names.install([plugin.name for plugin in PLUGINS])


def plugin(name: str) -> ChannelPlugin | None:
    """The installed plugin called `name`, or None."""
    return next((p for p in PLUGINS if p.name == name), None)


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
