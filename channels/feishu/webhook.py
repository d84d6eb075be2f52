"""`POST /webhooks/feishu`: the ack authenticates, answers url_verification, keys the event and keeps it without its
token; the processor parses it (messages, card presses and read receipts arrive at the same URL).

What is kept is the decrypted event with `header.token` (and a v1 event's `token`) removed: no secret is stored.
Feishu waits 3 s and retries anything else than a 2xx; an event Deputy does not act on is acknowledged and not
kept, and one whose parts cannot be read is set aside by the processor with the reason.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from channels.feishu.crypto import Rejected, open_event
from channels.feishu.events import MESSAGE_READ, MESSAGE_RECEIVED, to_inbound, to_read
from channels.feishu.presses import is_press, to_press, toast
from channels.plugin import Accepted, Parsed, WebhookRequest
from kernel.errors import DeputyError
from kernel.limits import text_problem

_KEPT = (MESSAGE_RECEIVED, MESSAGE_READ)


class WebhookRefused(DeputyError):
    """A request Feishu's verification refuses (bad token, signature, replay, malformed body)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def event_id(payload: dict[str, Any]) -> str | None:
    """The event's id: `header.event_id` (schema 2.0) or `uuid` (schema 1.0); None without one."""
    found = _dict(payload.get("header")).get("event_id") or payload.get("uuid")
    return str(found) if isinstance(found, str | int) and str(found) else None


def without_token(payload: dict[str, Any]) -> bytes:
    """The event as kept: its verification token removed, ASCII JSON (any text, even unstorable, is escaped)."""
    kept = {k: v for k, v in payload.items() if k != "token"}
    if isinstance(kept.get("header"), dict):
        kept["header"] = {k: v for k, v in kept["header"].items() if k != "token"}
    return json.dumps(kept, separators=(",", ":")).encode("ascii")


def _success(_: bool) -> dict[str, Any]:
    return {"msg": "success"}


class FeishuWebhook:
    """Authenticates (token, signature, timestamp, decryption) and keys events; parses them for the processor."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def accept(self, request: WebhookRequest) -> Accepted:
        """401 unless authentic; the challenge for url_verification; else the event to keep and `success`."""
        encrypt_key = _secret(self.settings.feishu_encrypt_key)
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
            return Accepted(answer=lambda _: {"challenge": challenge})
        payload, key = opened.payload, event_id(opened.payload)
        if key is not None and (problem := text_problem(key) or ("too long" if len(key) > 200 else None)):
            raise WebhookRefused(400, "invalid_event", f"header.event_id: {problem}")
        if is_press(payload):  # a card button: the toast goes back in this answer (Feishu waits 3 s)
            press = to_press(payload, now=request.now)
            if press is None or key is None:
                return Accepted(answer=lambda _: {})
            return Accepted(
                answer=lambda _: {},
                event_id=key,
                body=without_token(payload),
                kind="press",
                press=press,
                answer_press=lambda text, _new: toast(text),
            )
        if key is None or _dict(payload.get("header")).get("event_type") not in _KEPT:
            return Accepted(answer=_success)  # nothing Deputy acts on, or nothing to key it by
        return Accepted(answer=_success, event_id=key, body=without_token(payload))

    def parse(self, *, kind: str, body: bytes, received_at: datetime) -> Parsed:
        """The message, press or read receipt a kept event holds, or why it is set aside."""
        try:
            payload = json.loads(body)
            if kind == "press":
                press = to_press(payload, now=received_at)
                return Parsed(press=press) if press is not None else Parsed()
            if (receipt := to_read(payload)) is not None:
                return Parsed(reads=[receipt])
            message = to_inbound(payload, bot_open_id=self.settings.feishu_bot_open_id)
        except (DeputyError, ValidationError, ValueError, TypeError) as exc:
            return Parsed(set_aside=getattr(exc, "message", None) or str(exc))
        return Parsed(messages=[message] if message is not None else [])
