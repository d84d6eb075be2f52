"""The one redaction helper: configured secret values and anything shaped like a credential become `<redacted>`.

Logs (app/logging.py) and every stored record use it: a platform's or proxy's error text is redacted before it
becomes a channel error (channels/errors.py), and so before it reaches an action, a fact, a concern, the console
or the CLI. `remember_secrets` (called once at start-up with the configured secrets) makes `redact` know them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from kernel.limits import storable

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 4  # shorter configured values would blank out ordinary words all over the log
_CREDENTIAL = (
    r"[a-z_]*(?:access_token|refresh_token|secret|password|access_key|api_key|encrypt_key"
    r"|verification_token|login_code)|ticket"
)
_SIGNED = (
    r"sig|signature|x-amz-[a-z-]+|x-goog-[a-z-]+|x-oss-[a-z-]+|token|key|auth|authorization|code|credential"
    r"|policy|expires|se|sp|sv|st|skoid|sktid|sks"
)
# Secrets whose values are not configured here: any bot token in a Bot API URL (or alone), bearer
# credentials (Feishu's tenant_access_token travels as one), credential-named parameters and fields.
# (kind, pattern, replacement); the kind names what leaked for `deputy leaks`.
_PATTERNS: list[tuple[str, re.Pattern[str], str]] = [
    ("telegram_bot_token", re.compile(r"\bbot\d+:[A-Za-z0-9_-]+"), "bot" + REDACTED),
    ("telegram_bot_token", re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{30,}"), REDACTED),
    ("bearer_credential", re.compile(r"(?i)\b(bearer|basic)(\s+)(?!<redacted>)[^\s\"',;]+"), r"\1\2" + REDACTED),
    (
        "credential_field",
        re.compile(rf"(?i)\b({_CREDENTIAL})([\"']?\s*[:=]\s*[\"']?)(?!<redacted>)[^\s\"'&,;}}\]]+"),
        r"\1\2" + REDACTED,
    ),
    # Signed URLs (object stores, CDNs, Feishu file links): the signature and credential parameters of a query.
    ("signed_url", re.compile(rf"(?i)([?&](?:{_SIGNED})=)(?!<redacted>)[^&#\s\"'<>]+"), r"\1" + REDACTED),
]
_CREDENTIAL_KEY = re.compile(rf"(?i)(?:{_CREDENTIAL}|token|authorization)$")


class Redactor:
    """Replaces configured secret values and anything shaped like a credential with `<redacted>`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(dict.fromkeys(s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH))
        values = {v for s in self.secrets for v in (s, quote(s, safe=""))}
        # Longest first, so a secret containing another is replaced whole.
        ordered = sorted(values, key=len, reverse=True)
        self._values = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def text(self, value: str) -> str:
        """`value` with every secret replaced."""
        if self._values is not None:
            value = self._values.sub(REDACTED, value)
        for _, pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def kinds(self, value: str) -> list[str]:
        """Which kinds of credential `value` holds (`configured_secret` for a configured value), in order."""
        found = ["configured_secret"] if self._values is not None and self._values.search(value) else []
        found += [kind for kind, pattern, _ in _PATTERNS if pattern.search(value)]
        return list(dict.fromkeys(found))

    def data(self, value: Any) -> Any:
        """A JSON-ready copy of `value` with strings redacted and credential-named fields blanked."""
        if isinstance(value, str):
            return self.text(value)
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, dict):
            return {k: REDACTED if _CREDENTIAL_KEY.search(str(k)) else self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple, set, frozenset)):
            return [self.data(v) for v in value]
        return self.text(str(value))


_current = Redactor()


def remember_secrets(secrets: Iterable[str]) -> Redactor:
    """Make `redact` (and the returned redactor) replace these configured values from now on."""
    global _current
    _current = Redactor([*_current.secrets, *secrets])
    return _current


def redact(text: str) -> str:
    """`text` with every configured secret and credential-shaped value replaced by `<redacted>`."""
    return _current.text(text)


def error_text(exc: BaseException | str, *, limit: int = 500) -> str:
    """An exception's (or an error's) text as it may be stored: redacted, storable, at most `limit` characters."""
    return storable(redact(str(exc)))[:limit]


def redact_data(value: Any) -> Any:
    """A JSON-ready copy of `value` redacted like `redact`, credential-named fields blanked."""
    return _current.data(value)
