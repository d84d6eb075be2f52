"""Telegram through python-telegram-bot: the sending channel, the inbound webhook and long polling."""

from __future__ import annotations

from typing import Any

__all__ = ["TelegramChannel"]


def __getattr__(name: str) -> Any:
    # The channel (and python-telegram-bot with httpx, about 12 MB) loads on first use, not with the package:
    # the webhook's parsing needs neither, so a web process that never sends does not carry them.
    if name == "TelegramChannel":
        from channels.telegram.channel import TelegramChannel

        return TelegramChannel
    raise AttributeError(name)
