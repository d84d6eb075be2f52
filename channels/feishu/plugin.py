"""Feishu (Lark) as a plugin: sending through lark-oapi, the verified webhook, the long connection, the contacts and
the calendar's busy time."""

from __future__ import annotations

import json
from typing import Any

from channels.base import Channel
from channels.feishu.crypto import Rejected, decrypt, open_event
from channels.feishu.events import to_inbound, to_read
from channels.feishu.presses import is_press, to_press, toast
from channels.feishu.settings import FeishuSettings
from channels.inbound import Inbound, PressAnswer
from channels.plugin import ChannelPlugin, Contact, WebhookReply, WebhookRequest
from kernel.errors import DeputyError
from kernel.screening import screen_json


def _toast(answer: PressAnswer) -> dict[str, Any]:
    """Feishu answers in band: every delivery of a press, a retry too, gets the toast in its response."""
    return toast(answer.toast)


class WebhookRefused(DeputyError):
    """A request Feishu's verification refuses (bad token, signature, replay, malformed body)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


class FeishuWebhook:
    """`POST /webhooks/feishu`: authenticate, answer url_verification, hand the message or card press on.

    Card callbacks (card.action.trigger) come to the same URL with the same token, signature and encryption.
    """

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def _screen_decrypted(self, body: bytes, encrypt_key: str | None) -> None:
        """Screen an encrypted event's plaintext like a body (depth, NUL): the HTTP guard only saw ciphertext."""
        if not encrypt_key:
            return
        try:
            plain = decrypt(encrypt_key, json.loads(body)["encrypt"])  # the outer body already passed the guard
        except (ValueError, TypeError, KeyError):
            return  # open_event refuses it with the precise reason
        screen_json(plain.encode())

    def handle(self, request: WebhookRequest) -> WebhookReply:
        """401 unless authentic; the challenge for url_verification; else the message to record and `success`."""
        encrypt_key = _secret(self.settings.feishu_encrypt_key)
        self._screen_decrypted(request.body, encrypt_key)
        try:
            opened = open_event(
                request.body,
                request.headers,
                verification_token=_secret(self.settings.feishu_verification_token),
                encrypt_key=encrypt_key,
                now=request.now,
            )
        except Rejected as exc:
            raise WebhookRefused(400 if exc.code == "malformed_json" else 401, exc.code, exc.message) from exc
        if opened.challenge is not None:
            challenge = opened.challenge
            return WebhookReply(answer=lambda _: {"challenge": challenge})
        if is_press(opened.payload):  # a card button: the toast goes back in this answer (Feishu waits 3 s)
            press = to_press(opened.payload, now=request.now)
            return WebhookReply(answer=lambda _: {}, press=press, answer_press=_toast if press else None)
        if (receipt := to_read(opened.payload)) is not None:
            return WebhookReply(answer=lambda _: {"msg": "success"}, reads=[receipt])
        message = to_inbound(opened.payload, bot_open_id=self.settings.feishu_bot_open_id)
        return WebhookReply(answer=lambda _: {"msg": "success"}, messages=[message] if message else [])


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
