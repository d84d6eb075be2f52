"""Console sessions: a signed cookie naming the token's holder, a CSRF token bound to it, and device cookies.

The cookie holds the token's name, its role, a keyed fingerprint of the token (removing or changing a token
ends its sessions) and the session's CSRF token; itsdangerous signs and dates it with DEPUTY_CONSOLE_SECRET, or,
unset, with the key kept in the database (app.console.store), the same for every replica. A first start's one-time
login (no token configured) makes an admin session that lasts only while no token is configured. A device cookie,
signed the same way, says a browser logged in before (as whom): the login limit counts it apart (app.console.limits).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from itsdangerous import BadSignature, TimestampSigner, URLSafeTimedSerializer

from app.api.deps import Caller
from app.console import store
from kernel.db import Database

COOKIE = "deputy_console"
SALT = "deputy-console-session"
DEVICE_COOKIE, DEVICE_SALT = "deputy_device", "deputy-console-device"
KEY_REFRESH = timedelta(seconds=30)  # a rotated database key reaches every replica within this
FIRST_START = "first-start"  # the actor of a session opened with the first start's one-time login


@dataclass(frozen=True)
class Session:
    """A logged-in console user: who (the actor in facts), their role, and the CSRF token of the session."""

    caller: Caller
    csrf: str

    @property
    def admin(self) -> bool:
        """Admins may change things; viewers only look."""
        return self.caller.role == "admin"


def _signer_on(clock: Any) -> type[TimestampSigner]:
    """A signer that dates and ages cookies by the service's clock (injected, frozen in tests)."""

    class ClockSigner(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(clock.now().timestamp())

    return ClockSigner


class Sessions:
    """Issue and read signed session cookies against the tokens configured in settings."""

    def __init__(self, settings: Any, *, clock: Any, db: Database) -> None:
        self.settings, self.clock, self.db = settings, clock, db
        self._configured = settings.console_secret.get_secret_value() if settings.console_secret else ""
        self._key, self._read_at = b"", None
        self._lock = threading.Lock()

    def _current_key(self) -> bytes:
        """DEPUTY_CONSOLE_SECRET, else the database's key (read lazily: the schema is migrated at start-up)."""
        if self._configured:
            return self._configured.encode()
        now = self.clock.now()
        with self._lock:
            if self._read_at is None or not (self._read_at <= now < self._read_at + KEY_REFRESH):
                self._key, self._read_at = store.signing_key(self.db, now=now).encode(), now
            return self._key

    def _signer(self, salt: str = SALT) -> URLSafeTimedSerializer:
        return URLSafeTimedSerializer(self._current_key(), salt=salt, signer=_signer_on(self.clock))

    @property
    def max_age(self) -> int:
        """The session's lifetime in seconds (cookie Max-Age and signature age)."""
        return int(self.settings.console_session_ttl.total_seconds())

    def _fingerprint(self, token: str) -> str:
        return hmac.new(self._current_key(), token.encode(), hashlib.sha256).hexdigest()[:32]

    def login(self, presented: str) -> tuple[Session, str] | None:
        """The session and its cookie value for a configured token, or None (compared in constant time)."""
        found: tuple[str, str, str] | None = None
        for role, name, secret in self.settings.token_roles():
            if hmac.compare_digest(presented.encode(), secret.encode()) and found is None:
                found = (role, name, secret)
        if found is None:
            return None
        role, name, secret = found
        session = Session(Caller(name=name, role=role), csrf=secrets.token_urlsafe(24))
        value = self._signer().dumps({"n": name, "r": role, "k": self._fingerprint(secret), "c": session.csrf})
        return session, value

    def first_login(self, code: str) -> tuple[Session, str] | None:
        """An admin session for the first start's one-time code (used up here), while no token is configured."""
        if self.settings.token_roles() or not code:
            return None
        used = store.redeem_login_code(self.db, code, now=self.clock.now())
        if used is None:
            return None
        session = Session(Caller(name=FIRST_START, role="admin"), csrf=secrets.token_urlsafe(24))
        return session, self._signer().dumps({"n": FIRST_START, "r": "admin", "o": used, "c": session.csrf})

    def read(self, value: str | None) -> Session | None:
        """The session a cookie carries while it is signed, younger than the TTL and its token still configured."""
        if not value:
            return None
        try:
            data = self._signer().loads(value, max_age=self.max_age)
        except BadSignature:  # also SignatureExpired
            return None
        if not isinstance(data, dict):
            return None
        if "o" in data:  # the one-time login's session ends once a token is configured
            if self.settings.token_roles() or not store.login_code_used(self.db, str(data["o"])):
                return None
            return Session(Caller(name=FIRST_START, role="admin"), csrf=str(data.get("c", "")))
        for role, name, secret in self.settings.token_roles():
            if (role, name) == (data.get("r"), data.get("n")) and hmac.compare_digest(
                str(data.get("k", "")), self._fingerprint(secret)
            ):
                return Session(Caller(name=name, role=role), csrf=str(data.get("c", "")))
        return None

    @staticmethod
    def csrf_ok(session: Session, presented: str | None) -> bool:
        """True when `presented` is this session's CSRF token."""
        return bool(presented) and bool(session.csrf) and hmac.compare_digest(presented.encode(), session.csrf.encode())

    def device(self, holder: str) -> str:
        """A device cookie's value: this browser logged in as `holder` (signed and dated like a session)."""
        return self._signer(DEVICE_SALT).dumps({"n": holder})

    def device_of(self, value: str | None) -> str | None:
        """The holder a device cookie names while it is signed and younger than DEPUTY_CONSOLE_DEVICE_TTL, else None."""
        if not value:
            return None
        try:
            data = self._signer(DEVICE_SALT).loads(value, max_age=int(self.settings.console_device_ttl.total_seconds()))
        except BadSignature:  # also SignatureExpired
            return None
        holder = data.get("n") if isinstance(data, dict) else None
        return holder if isinstance(holder, str) and holder else None

    def digest(self, text: str) -> str:
        """`text` keyed under the signing key: what the login limit stores instead of addresses and guesses."""
        return hmac.new(self._current_key(), b"login-limit\0" + text.encode(), hashlib.sha256).hexdigest()[:32]
