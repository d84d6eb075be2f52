"""Telegram through python-telegram-bot: the sending channel, the inbound webhook and long polling."""

from channels.telegram.channel import TelegramChannel

__all__ = ["TelegramChannel"]
