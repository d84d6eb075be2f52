"""Feishu's settings (`DEPUTY_FEISHU_…`), mixed into the service's Settings by the composition root."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, SecretStr, field_validator
from pydantic_settings import NoDecode

from kernel.settings import Duration, PluginSettings

# What DEPUTY_FEISHU_URGENT may say: each level adds the next, dearer, means (SMS and calls spend the tenant's quota).
URGENT_LEVELS: dict[str, tuple[str, ...]] = {
    "off": (),
    "app": ("app",),
    "app,sms": ("app", "sms"),
    "app,sms,phone": ("app", "sms", "phone"),
}


def _urgent(value: Any) -> tuple[str, ...]:
    """`off` | `app` | `app,sms` | `app,sms,phone` (spaces ignored) → the modes, in the order they are called."""
    if isinstance(value, (tuple, list)):
        value = ",".join(value) or "off"
    key = ",".join(part.strip() for part in str(value).lower().split(",") if part.strip())
    if key not in URGENT_LEVELS:
        raise ValueError(f"must be one of {', '.join(URGENT_LEVELS)}")
    return URGENT_LEVELS[key]


UrgentModes = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_urgent)]


class FeishuSettings(PluginSettings):
    """The app's credentials, webhook authentication, the domain, how events arrive, the calendar (configuration.md)."""

    feishu_app_id: str | None = None
    feishu_app_secret: SecretStr | None = None
    feishu_verification_token: SecretStr | None = None
    feishu_encrypt_key: SecretStr | None = None
    feishu_domain: str = "https://open.feishu.cn"
    feishu_mode: Literal["webhook", "websocket", "off"] = "webhook"
    # The bot's own open_id: a group message counts as addressed to the bot when a mention carries it
    # (unset: a mention whose mentioned_type is "bot" counts).
    feishu_bot_open_id: str | None = None
    # Read people's busy time (calendar.v4.freebusy.list) before a P2/P3 contact, which waits for a meeting to end.
    feishu_calendar: bool = False
    # How a P0/P1 follow-up whose last message went unread is made urgent after it is sent (off: never).
    feishu_urgent: UrgentModes = ()
    # How often an open loop's unread Feishu message is looked up (read_users), for groups and missed events.
    feishu_read_poll_interval: Duration = timedelta(seconds=300)

    @field_validator("feishu_read_poll_interval")
    @classmethod
    def _at_least_a_minute(cls, value: timedelta) -> timedelta:
        # read_users allows 1000 calls a minute per app: polling one message more often than this buys nothing.
        if value < timedelta(seconds=60):
            raise ValueError("must be at least 60s")
        return value
