"""Telegram's settings (`DEPUTY_TELEGRAM_…`), mixed into the service's Settings by the composition root."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import SecretStr, field_validator

from kernel.settings import Duration, PluginSettings, at_least_a_second


class TelegramSettings(PluginSettings):
    """The bot, its webhook secret, the Bot API address and how updates arrive (docs/configuration.md)."""

    telegram_bot_token: SecretStr | None = None
    telegram_webhook_secret: SecretStr | None = None
    telegram_api_base: str = "https://api.telegram.org"
    telegram_mode: Literal["webhook", "polling", "off"] = "webhook"
    # One replica polls getUpdates at a time: it holds a database lease (a PostgreSQL advisory lock on its own
    # connection; a file lock beside a SQLite database); another replica takes over within about this long.
    telegram_poll_lease: Duration = timedelta(seconds=15)
    # The bot's @username (without @), to tell group messages addressed to it; unset: asked once with getMe.
    telegram_bot_username: str | None = None

    @field_validator("telegram_poll_lease")
    @classmethod
    def _telegram_poll_lease_positive(cls, value: timedelta) -> timedelta:
        return at_least_a_second(value)
