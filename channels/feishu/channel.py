"""The Feishu channel: `im.v1.message.create` through lark-oapi with the action id as the platform uuid."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from channels.base import Channel, ChannelHealth, MediaRef, MessageEdit, OutboundMessage, SendReceipt
from channels.errors import ChannelError, InvalidRequest
from channels.feishu import content
from channels.feishu.pacing import LocalPacer, Pacer, RedisPacer

log = logging.getLogger("deputy.channels.feishu")
# Feishu's refusals of a patch that no retry cures: not a card (or not ours), recalled, older than 14 days, deleted.
EDIT_REFUSALS = {230001: "edit_unsupported", 230011: "message_gone", 230031: "edit_too_old", 230110: "message_gone"}


class FeishuChannel(Channel):
    """Sends to a binding's chat_id when it has one (a chat the admin chose), else to its open_id (the p2p chat).

    Texts over `content.MAX_PART_CHARS` (or over what one card holds) go in parts whose uuids are
    `<action id>-<n>`; a text with Deputy's bold headers, or with syntax a `text` message would parse, goes as
    cards that show every person-written character as written (channels.feishu.cards). At most 5 messages/s per
    receiver: a send that would exceed it waits up to half a second, then raises Paced (nothing sent; send again).
    """

    name = "feishu"

    def __init__(
        self, *, app_id: str, app_secret: str, domain: str, pacer: Pacer | None = None, timeout: float | None = None
    ) -> None:
        self.app_id, self.domain = app_id, domain
        self._secret, self._timeout = app_secret, timeout
        self.pacer: Pacer = pacer or LocalPacer()
        self._api: Any = None
        self._api_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Any, *, redis: Any = None) -> FeishuChannel:
        """The channel for DEPUTY_FEISHU_*; pacing goes through the service's Redis client when there is one."""
        secret = settings.feishu_app_secret.get_secret_value() if settings.feishu_app_secret else ""
        return cls(
            app_id=settings.feishu_app_id,
            app_secret=secret,
            domain=settings.feishu_domain,
            pacer=RedisPacer(redis) if redis is not None else None,
        )

    @property
    def api(self) -> Any:
        """The lark-oapi client wrapper, built on first use (importing lark-oapi takes seconds)."""
        with self._api_lock:
            if self._api is None:
                from channels.feishu.api import DEFAULT_TIMEOUT, FeishuApi

                self._api = FeishuApi(
                    app_id=self.app_id,
                    app_secret=self._secret,
                    domain=self.domain,
                    timeout=self._timeout or DEFAULT_TIMEOUT,
                )
            return self._api

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Send every part in order (buttons on the last, as a card), then forward the media; the first message's
        id is the receipt's (`detail.buttons_message_id` names the card to patch, `forwarded_message_id` the media).
        """
        receive_id_type, receive_id = (
            ("chat_id", message.chat_id) if message.chat_id else ("open_id", message.external_user_id)
        )
        media = message.media
        if media is not None and media.channel != self.name:
            raise InvalidRequest(f"feishu cannot pass on {media.channel} media", code="foreign_media", permanent=True)
        planned = content.messages(message.text, message.buttons) if message.text.strip() or media is None else []
        uuids = content.part_uuids(message.idempotency_key, len(planned)) if planned else []
        receiver = f"{receive_id_type}:{receive_id}"
        steps = len(planned) + (media is not None)
        # The parts' slots are taken together (Paced, nothing sent, if they are not free soon), so our own
        # pacing never cuts a message half-way; only a platform error after the first part can.
        reserved = self.pacer.acquire(receiver, parts=steps)
        message_ids: list[str] = []
        for number in range(1, steps + 1):
            try:
                if number > reserved:
                    self.pacer.follow(receiver)
                if number <= len(planned):
                    msg_type, body = planned[number - 1]
                    message_ids.append(
                        self._create(receive_id_type, receive_id, msg_type, body, uuid=uuids[number - 1])
                    )
                else:
                    uuid = content.fit_uuid(f"{message.idempotency_key}-media")
                    forwarded = self._forward(receive_id_type, receive_id, media, uuid=uuid)  # type: ignore[arg-type]
                    message_ids.append(forwarded)
            except ChannelError as exc:
                if message_ids:  # earlier parts arrived: say so, and never claim nothing was delivered
                    exc.message = f"part {number} of {steps} failed after {len(message_ids)} delivered: {exc.message}"
                    exc.args = (exc.message,)
                    exc.possibly_delivered = True
                    exc.detail = {**exc.detail, "message_ids": message_ids}
                raise
        card = any(msg_type == "interactive" for msg_type, _ in planned)
        detail: dict[str, Any] = {"msg_type": "interactive" if card else "text", "receive_id_type": receive_id_type}
        if len(message_ids) > 1:
            detail.update(parts=len(message_ids), message_ids=message_ids)
        if message.buttons and planned:
            detail["buttons_message_id"] = message_ids[len(planned) - 1]
        if media is not None:
            detail["forwarded_message_id"] = message_ids[-1]
        return SendReceipt(message_id=message_ids[0], detail=detail)

    def _create(self, receive_id_type: str, receive_id: str, msg_type: str, body_content: str, *, uuid: str) -> str:
        from lark_oapi.api.im.v1 import CreateMessageRequest, CreateMessageRequestBody

        body = (
            CreateMessageRequestBody.builder()
            .receive_id(receive_id)
            .msg_type(msg_type)
            .content(body_content)
            .uuid(uuid)
            .build()
        )
        request = CreateMessageRequest.builder().receive_id_type(receive_id_type).request_body(body).build()
        api = self.api
        response = api.call(
            lambda option: api.client.im.v1.message.create(request, option), what="im.v1.message.create"
        )
        data = getattr(response, "data", None)
        return getattr(data, "message_id", None) or f"feishu_{uuid}"

    def _forward(self, receive_id_type: str, receive_id: str, media: MediaRef, *, uuid: str) -> str:
        """im.v1.message.forward: the original message itself (an image or file key belongs to the message's
        sender, so re-sending it by key would fail; forwarding needs nothing but the bot seeing the message)."""
        from lark_oapi.api.im.v1 import ForwardMessageRequest, ForwardMessageRequestBody

        request = (
            ForwardMessageRequest.builder()
            .message_id(media.message_id)
            .receive_id_type(receive_id_type)
            .uuid(uuid)
            .request_body(ForwardMessageRequestBody.builder().receive_id(receive_id).build())
            .build()
        )
        api = self.api
        response = api.call(
            lambda option: api.client.im.v1.message.forward(request, option), what="im.v1.message.forward"
        )
        data = getattr(response, "data", None)
        return getattr(data, "message_id", None) or f"feishu_{uuid}"

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """Replace a card in place (im.v1.message.patch) with the new text and buttons (none: no button row).

        An edit cannot add a message: a text one card cannot hold is cut at a word and ends with "…" and the edit's
        `cut_note` (where the whole text is). An empty text is refused (`edit_length`). Only cards can be patched:
        a text message answers 230001, raised as InvalidRequest("edit_unsupported").
        """
        from lark_oapi.api.im.v1 import PatchMessageRequest, PatchMessageRequestBody

        if not edit.text.strip():
            raise InvalidRequest("an edited card's text must not be empty", code="edit_length", permanent=True)
        shown, cut = content.edit_card(edit.text, edit.buttons, note=edit.cut_note)
        new = json.dumps(shown, ensure_ascii=False)
        request = (
            PatchMessageRequest.builder()
            .message_id(edit.message_id)
            .request_body(PatchMessageRequestBody.builder().content(new).build())
            .build()
        )
        api = self.api
        try:
            api.call(lambda option: api.client.im.v1.message.patch(request, option), what="im.v1.message.patch")
        except InvalidRequest as exc:
            if exc.code in EDIT_REFUSALS:
                raise InvalidRequest(
                    exc.message, code=EDIT_REFUSALS[exc.code], permanent=True, detail={"feishu_code": exc.code}
                ) from exc
            raise
        return SendReceipt(message_id=edit.message_id, detail={"edited": True} | ({"cut": True} if cut else {}))

    def readers(self, message_id: str) -> dict[str, Any]:
        """Who read a message the bot sent: open_id → when (read_users, every page)."""
        from channels.feishu.receipts import read_users

        return read_users(self.api, message_id)

    def urge(self, *, message_id: str, user_id: str, mode: str) -> None:
        """Make a sent message urgent for one open_id: urgent_app, urgent_sms or urgent_phone."""
        from channels.feishu.receipts import urgent

        urgent(self.api, message_id=message_id, open_id=user_id, mode=mode)

    def answer_press(self, *, press_id: str, text: str) -> None:
        """Nothing to do: Feishu takes the toast in the callback's own answer (webhook body, long-connection reply)."""

    def health(self) -> ChannelHealth:
        """Configured (credentials present); nothing is sent to find out."""
        ok = bool(self.app_id and self._secret)
        return ChannelHealth(
            name=self.name, ok=ok, detail=f"app {self.app_id} at {self.domain}" if ok else "missing app id or secret"
        )
