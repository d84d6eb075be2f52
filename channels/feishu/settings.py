"""Feishu's settings (`DEPUTY_FEISHU_…`), mixed into the service's Settings by the composition root."""

from __future__ import annotations

from typing import Literal

from pydantic import SecretStr

from kernel.settings import PluginSettings


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
