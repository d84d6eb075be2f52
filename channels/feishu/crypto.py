"""Feishu event authentication: verification token, X-Lark-Signature, AES-256-CBC bodies, replay window."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kernel.screening import screen_depth

REPLAY_WINDOW_SECONDS = 300


class Rejected(Exception):
    """An event that must not be processed; `code` is the API error code, answered with 401."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class Opened:
    """A verified event body: the JSON object and whether it is a url_verification challenge."""

    payload: dict[str, Any]

    @property
    def challenge(self) -> str | None:
        """The challenge to echo, for a url_verification request."""
        return str(self.payload.get("challenge", "")) if self.payload.get("type") == "url_verification" else None


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    """Feishu's X-Lark-Signature: hex sha256 of timestamp + nonce + encrypt key + raw body."""
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + body).hexdigest()


def decrypt(encrypt_key: str, encrypted: str) -> str:
    """AES-256-CBC with key sha256(encrypt key); the IV is the first 16 bytes of the base64-decoded payload."""
    from Crypto.Cipher import AES  # pycryptodome loads with the first encrypted event, not with a Feishu that is off

    try:
        raw = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("payload is not base64") from exc
    if len(raw) < 32 or len(raw) % AES.block_size:
        raise ValueError("payload has an invalid length")
    plain = AES.new(hashlib.sha256(encrypt_key.encode()).digest(), AES.MODE_CBC, raw[:16]).decrypt(raw[16:])
    pad = plain[-1]
    if not 1 <= pad <= AES.block_size or plain[-pad:] != bytes([pad]) * pad:
        raise ValueError("payload has invalid padding")
    return plain[:-pad].decode("utf-8")


def _header(headers: Mapping[str, str], name: str) -> str:
    """Header lookup that ignores case whatever mapping is given."""
    wanted = name.lower()
    return next((v for k, v in headers.items() if k.lower() == wanted), "")


def _token_of(payload: dict[str, Any]) -> str | None:
    header = payload.get("header")
    if isinstance(header, dict) and "token" in header:
        return str(header["token"])
    return str(payload["token"]) if "token" in payload else None


def open_event(
    body: bytes, headers: Mapping[str, str], *, verification_token: str | None, encrypt_key: str | None, now: datetime
) -> Opened:
    """Authenticate and decode one webhook body, or raise Rejected (url_verification needs the token, no signature)."""
    if not verification_token and not encrypt_key:
        raise Rejected(
            "not_configured", "feishu webhook needs DEPUTY_FEISHU_VERIFICATION_TOKEN or DEPUTY_FEISHU_ENCRYPT_KEY"
        )
    try:
        outer = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Rejected("malformed_json", "request body is not valid JSON") from exc
    if not isinstance(outer, dict):
        raise Rejected("malformed_json", "request body is not a JSON object")
    payload = outer
    if encrypt_key:
        if not isinstance(outer.get("encrypt"), str):
            raise Rejected("invalid_encryption", "an encrypt key is configured: the body must be encrypted")
        try:
            plain = decrypt(encrypt_key, outer["encrypt"])
        except (ValueError, UnicodeDecodeError) as exc:
            raise Rejected("invalid_encryption", "the body does not decrypt with the configured encrypt key") from exc
        # The HTTP guard only saw ciphertext: the plaintext nested too deep is a 400 too, before anything parses it.
        screen_depth(plain.encode("utf-8", "surrogatepass"))
        try:
            payload = json.loads(plain)
        except ValueError as exc:
            raise Rejected("invalid_encryption", "the body does not decrypt with the configured encrypt key") from exc
        if not isinstance(payload, dict):
            raise Rejected("invalid_encryption", "the decrypted body is not a JSON object")
    if verification_token:
        token = _token_of(payload)
        if token is None or not hmac.compare_digest(token.encode(), verification_token.encode()):
            raise Rejected("invalid_token", "verification token does not match")
    opened = Opened(payload)
    if encrypt_key and opened.challenge is None:
        _check_signature(body, headers, encrypt_key=encrypt_key, now=now)
    return opened


def _check_signature(body: bytes, headers: Mapping[str, str], *, encrypt_key: str, now: datetime) -> None:
    timestamp, nonce = _header(headers, "X-Lark-Request-Timestamp"), _header(headers, "X-Lark-Request-Nonce")
    presented = _header(headers, "X-Lark-Signature")
    if not presented or not hmac.compare_digest(
        presented.encode(), signature(timestamp, nonce, encrypt_key, body).encode()
    ):
        raise Rejected("invalid_signature", "X-Lark-Signature does not match")
    try:
        sent_at = int(timestamp)
    except ValueError as exc:
        raise Rejected("invalid_signature", "X-Lark-Request-Timestamp is not a number") from exc
    if abs(now.timestamp() - sent_at) > REPLAY_WINDOW_SECONDS:
        raise Rejected("stale_request", "X-Lark-Request-Timestamp is more than 5 minutes away from now")
