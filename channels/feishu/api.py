"""A lark-oapi client for one Feishu app: its own tenant tokens, one refresh on 99991663, the common error taxonomy."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import lark_oapi as lark
import requests
from lark_oapi.api.auth.v3 import InternalTenantAccessTokenRequest, InternalTenantAccessTokenRequestBody
from urllib3.exceptions import NewConnectionError

from channels.errors import ChannelError, InvalidRequest, RateLimited, Transient, Unreachable

TOKEN_EXPIRED = 99991663
UNREACHABLE_CODES = frozenset({230002, 230013})  # bot not in the chat; no availability to this user
RATE_LIMIT_CODES = frozenset({99991400, 230020})  # app-wide request rate; per-chat message rate
DEFAULT_TIMEOUT = 10.0

R = TypeVar("R")

# Tenant tokens per (domain, app_id), shared by every client of this process. lark-oapi's own cache is
# keyed by app_id alone and cannot be invalidated on 99991663, so the SDK is told to take our token.
_tokens: dict[tuple[str, str], tuple[str, float]] = {}
_token_locks: dict[tuple[str, str], threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock_for(key: tuple[str, str]) -> threading.Lock:
    with _locks_guard:
        return _token_locks.setdefault(key, threading.Lock())


def _retry_after(headers: dict[str, str]) -> float | None:
    """Seconds until Feishu's rate-limit window resets, when the gateway said so."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    for name in ("x-ogw-ratelimit-reset", "retry-after"):
        try:
            return max(0.0, float(lowered[name]))
        except (KeyError, ValueError):
            continue
    return None


def raise_for(response: Any, *, what: str) -> None:
    """Raise the taxonomy error for a Feishu answer that is not a success; return for code 0."""
    raw = getattr(response, "raw", None)
    status = getattr(raw, "status_code", 200) or 200
    code, msg = getattr(response, "code", None), getattr(response, "msg", None) or ""
    if status >= 500:
        raise Transient(f"{what}: HTTP {status} {msg}".strip(), code=code or status)
    if code == 0 and 200 <= status < 300:
        return
    if code in UNREACHABLE_CODES:
        raise Unreachable(f"{what}: {msg or 'person unreachable'}", code=code, permanent=True)
    if code in RATE_LIMIT_CODES or status == 429:
        raise RateLimited(
            f"{what}: {msg or 'rate limited'}",
            code=code or status,
            retry_after=_retry_after(getattr(raw, "headers", {}) or {}),
        )
    if code == TOKEN_EXPIRED:
        raise Transient(f"{what}: tenant token rejected right after a refresh", code=code)
    if code is None:
        raise Transient(f"{what}: answer without a code (HTTP {status})", code=status)
    raise InvalidRequest(f"{what}: {msg or 'rejected'}", code=code)


def _never_connected(exc: Exception) -> bool:
    """True when the connection was never established, so the request cannot have reached Feishu."""
    reason = exc.args[0] if exc.args else None
    reason = getattr(reason, "reason", reason)  # urllib3's MaxRetryError wraps the cause
    return isinstance(reason, NewConnectionError)


def call_safely(fn: Callable[..., R], *args: Any, what: str) -> R:
    """Run one SDK call `fn(*args)`, turning network failures and unreadable answers into Transient errors."""
    try:
        return fn(*args)
    except ChannelError:
        raise
    except requests.exceptions.ConnectTimeout as exc:
        raise Transient(f"{what}: connect timeout", code="timeout") from exc
    except requests.exceptions.Timeout as exc:  # the request left: Feishu may have delivered it
        raise Transient(f"{what}: timeout waiting for the answer", code="timeout", possibly_delivered=True) from exc
    except (
        requests.exceptions.ConnectionError
    ) as exc:  # refused or unresolvable: nothing left; reset mid-answer: it may have
        raise Transient(
            f"{what}: network error {type(exc).__name__}", code="network", possibly_delivered=not _never_connected(exc)
        ) from exc
    except requests.exceptions.RequestException as exc:
        raise Transient(f"{what}: network error {type(exc).__name__}", code="network") from exc
    except ValueError as exc:  # lark-oapi parses every body as JSON
        raise Transient(f"{what}: answer is not JSON", code="bad_answer") from exc


class FeishuApi:
    """The SDK client of one app plus token handling; `call` runs a request with a valid tenant token."""

    def __init__(self, *, app_id: str, app_secret: str, domain: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.app_id, self.domain = app_id, domain.rstrip("/")
        self._secret = app_secret
        self._key = (self.domain, app_id)
        self.client = (
            lark.Client.builder()
            .app_id(app_id)
            .app_secret(app_secret)
            .domain(self.domain)
            .timeout(timeout)
            .enable_set_token(True)
            .log_level(lark.LogLevel.WARNING)
            .build()
        )

    def tenant_token(self, *, stale: str | None = None) -> str:
        """A valid tenant token; with `stale`, replace that one (unless another thread already did)."""
        with _lock_for(self._key):
            cached = _tokens.get(self._key)
            if cached and cached[0] != stale and cached[1] > time.monotonic():
                return cached[0]
            token, ttl = self._fetch_token()
            _tokens[self._key] = (token, time.monotonic() + ttl)
            return token

    def _fetch_token(self) -> tuple[str, float]:
        body = InternalTenantAccessTokenRequestBody.builder().app_id(self.app_id).app_secret(self._secret).build()
        request = InternalTenantAccessTokenRequest.builder().request_body(body).build()
        response = call_safely(self.client.auth.v3.tenant_access_token.internal, request, what="tenant token")
        raise_for(response, what="tenant token")
        try:
            data = json.loads(response.raw.content)
            token, expire = str(data["tenant_access_token"]), float(data.get("expire") or 7200)
        except (ValueError, KeyError, TypeError) as exc:
            raise Transient("tenant token: unreadable answer", code="bad_answer") from exc
        # Renew ahead of expiry like lark-oapi does (10 minutes), but never cache a token for less than half its life.
        return token, expire - 600 if expire > 1200 else expire / 2

    def call(self, invoke: Callable[[lark.RequestOption], Any], *, what: str) -> Any:
        """Run `invoke(option)`; on 99991663 refresh the token once and run it once more; raise on failure."""
        token = self.tenant_token()
        for attempt in (1, 2):
            option = lark.RequestOption.builder().tenant_access_token(token).build()
            response = call_safely(invoke, option, what=what)
            if getattr(response, "code", None) == TOKEN_EXPIRED and attempt == 1:
                token = self.tenant_token(stale=token)
                continue
            raise_for(response, what=what)
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def forget_token(self) -> None:
        """Drop this app's cached token (tests, credential rotation)."""
        with _lock_for(self._key):
            _tokens.pop(self._key, None)
