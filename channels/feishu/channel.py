"""The Feishu channel: `im.v1.message.create` through lark-oapi with the action id as the platform uuid."""

from __future__ import annotations

import logging
import threading
from typing import Any

from channels.base import Channel, ChannelHealth, OutboundMessage, SendReceipt
from channels.errors import ChannelError
from channels.feishu import content
from channels.feishu.pacing import LocalPacer, Pacer, RedisPacer

log = logging.getLogger("deputy.channels.feishu")


class FeishuChannel(Channel):
    """Sends to a binding's chat_id when it has one (a chat the admin chose), else to its open_id (the p2p chat).

    Texts over `content.MAX_PART_CHARS` go in parts whose uuids are `<action id>-<n>`; markdown-like texts
    (lists, tables, headings, links) go as a card with a markdown element. At most 5 messages/s per receiver:
    a send that would exceed it waits up to half a second, then raises Paced (nothing sent; send again later).
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
        """Send every part in order; the first part's message id is the receipt's."""
        receive_id_type, receive_id = (
            ("chat_id", message.chat_id) if message.chat_id else ("open_id", message.external_user_id)
        )
        markdown = content.looks_like_markdown(message.text)
        parts = content.split(message.text)
        uuids = content.part_uuids(message.idempotency_key, len(parts))
        receiver = f"{receive_id_type}:{receive_id}"
        # The parts' slots are taken together (Paced, nothing sent, if they are not free soon), so our own
        # pacing never cuts a message half-way; only a platform error after the first part can.
        reserved = self.pacer.acquire(receiver, parts=len(parts))
        message_ids: list[str] = []
        for number, (part, uuid) in enumerate(zip(parts, uuids, strict=True), start=1):
            try:
                if number > reserved:
                    self.pacer.follow(receiver)
                message_ids.append(self._create(receive_id_type, receive_id, part, uuid=uuid, markdown=markdown))
            except ChannelError as exc:
                if message_ids:  # earlier parts arrived: say so, and never claim nothing was delivered
                    exc.message = (
                        f"part {number} of {len(parts)} failed after {len(message_ids)} delivered: {exc.message}"
                    )
                    exc.args = (exc.message,)
                    exc.possibly_delivered = True
                    exc.detail = {**exc.detail, "message_ids": message_ids}
                raise
        detail: dict[str, Any] = {"msg_type": "interactive" if markdown else "text", "receive_id_type": receive_id_type}
        if len(parts) > 1:
            detail.update(parts=len(parts), message_ids=message_ids)
        return SendReceipt(message_id=message_ids[0], detail=detail)

    def _create(self, receive_id_type: str, receive_id: str, part: str, *, uuid: str, markdown: bool) -> str:
        from lark_oapi.api.im.v1 import CreateMessageRequest, CreateMessageRequestBody

        msg_type, body_content = content.message_content(part, markdown=markdown)
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

    def health(self) -> ChannelHealth:
        """Configured (credentials present); nothing is sent to find out."""
        ok = bool(self.app_id and self._secret)
        return ChannelHealth(
            name=self.name, ok=ok, detail=f"app {self.app_id} at {self.domain}" if ok else "missing app id or secret"
        )
