"""Feishu (Lark) as a plugin: sending through lark-oapi, the verified webhook, the long connection, the contacts and
the calendar's busy time."""

from __future__ import annotations

from typing import Any

from channels.base import Channel
from channels.feishu.settings import FeishuSettings
from channels.feishu.webhook import FeishuWebhook
from channels.inbound import Inbound
from channels.plugin import ChannelPlugin, Contact


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


class FeishuDirectory:
    """The contact directory the app can see (`deputy persons sync-feishu`)."""

    def __init__(self, sender: Any) -> None:
        self.sender = sender

    def users(self) -> list[Contact]:
        """Every user of every department, by open_id (the id Feishu bindings carry)."""
        from channels.feishu.contacts import fetch_users

        return [
            Contact(
                external_id=u.open_id,
                name=u.name,
                en_name=u.en_name,
                nickname=u.nickname,
                user_id=u.user_id,
                leader_external_id=u.leader_open_id,
                resigned=u.resigned,
            )
            for u in fetch_users(self.sender.api)
        ]


class FeishuPlugin(ChannelPlugin):
    """Sends once DEPUTY_FEISHU_APP_ID/_APP_SECRET are set; receives by webhook or long connection (_MODE)."""

    name = "feishu"
    display_names = {"zh": "飞书", "en": "Feishu"}
    bind_hint = {"zh": "bind {code}", "en": "bind {code}"}
    binding_columns = ("feishu_open_id", "feishu_chat_id")
    settings = FeishuSettings
    configure_hint = "DEPUTY_FEISHU_APP_ID and DEPUTY_FEISHU_APP_SECRET"
    read_receipts = True  # im.message.message_read_v1 for private chats, read_users for any chat

    def sender(self, settings: Any, *, redis: Any = None) -> Channel | None:
        """The lark-oapi channel; its pacing is shared through Redis when there is one."""
        if not (settings.feishu_app_id and settings.feishu_app_secret):
            return None
        from channels.feishu.channel import FeishuChannel

        return FeishuChannel.from_settings(settings, redis=redis)

    def webhook(self, settings: Any, *, sender: Channel | None) -> FeishuWebhook:
        """The webhook handler (it refuses every request until a token or an encrypt key is configured)."""
        return FeishuWebhook(settings)

    def start_inbound(self, ctx: Any, *, inbound: Inbound, sender: Channel | None) -> Any:
        """The long connection when DEPUTY_FEISHU_MODE=websocket and the app credentials are set."""
        from channels.feishu.longconn import start_long_connection

        return start_long_connection(ctx, inbound=inbound)

    def directory(self, settings: Any, *, sender: Channel | None) -> FeishuDirectory | None:
        """The contact directory, once the app can send (it needs the same credentials)."""
        return FeishuDirectory(sender) if sender is not None else None

    def calendar(self, settings: Any) -> Any:
        """Free/busy with DEPUTY_FEISHU_CALENDAR on and the app's credentials set (never for a dry-run Feishu)."""
        configured = settings.feishu_app_id and settings.feishu_app_secret
        if not (settings.feishu_calendar and configured) or self.name in settings.dry_run_channels:
            return None
        from channels.feishu.calendar import FeishuCalendar

        return FeishuCalendar.from_settings(settings)
