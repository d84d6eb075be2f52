"""Opaque keyset cursors shared by every list endpoint."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from pydantic import BaseModel


class InvalidCursor(ValueError):
    """The cursor was not produced by this service."""


class Page(BaseModel):
    """`{"items": [...], "next_cursor": ...}`, newest first."""

    items: list[Any]
    next_cursor: str | None = None


def encode_cursor(key: Any) -> str:
    """Wrap a keyset position into an opaque token."""
    return base64.urlsafe_b64encode(json.dumps({"k": key}).encode()).decode().rstrip("=")


def decode_cursor(token: str) -> Any:
    """Unwrap a token from `encode_cursor`; raises InvalidCursor on anything else."""
    try:
        padded = token + "=" * (-len(token) % 4)
        return json.loads(base64.urlsafe_b64decode(padded.encode()).decode())["k"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidCursor("cursor is not valid") from exc
