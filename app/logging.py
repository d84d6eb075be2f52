"""Structured JSON logs on stderr (stdlib logging), with secrets redacted from every line."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import SecretStr

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 4  # shorter configured values would blank out ordinary words all over the log
_CREDENTIAL = (
    r"[a-z_]*(?:access_token|refresh_token|secret|password|access_key|api_key|encrypt_key"
    r"|verification_token|login_code)|ticket"
)
# Secrets whose values are not configured here: any bot token in a Bot API URL (or alone), bearer
# credentials (Feishu's tenant_access_token travels as one), credential-named parameters and fields.
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bbot\d+:[A-Za-z0-9_-]+"), "bot" + REDACTED),
    (re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{30,}"), REDACTED),
    (re.compile(r"(?i)\b(bearer|basic)(\s+)[^\s\"',;]+"), r"\1\2" + REDACTED),
    (re.compile(rf"(?i)\b({_CREDENTIAL})([\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;}}\]]+"), r"\1\2" + REDACTED),
]
_CREDENTIAL_KEY = re.compile(rf"(?i)(?:{_CREDENTIAL}|token|authorization)$")


class Redactor:
    """Replaces configured secret values and anything shaped like a credential with `<redacted>`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = {v for s in secrets if s and len(s) >= MIN_SECRET_LENGTH for v in (s, quote(s, safe=""))}
        # Longest first, so a secret containing another is replaced whole.
        ordered = sorted(values, key=len, reverse=True)
        self._values = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def text(self, value: str) -> str:
        """`value` with every secret replaced."""
        if self._values is not None:
            value = self._values.sub(REDACTED, value)
        for pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

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


def secret_values(settings: Any) -> list[str]:
    """Every secret in Settings: each SecretStr field, each admin/viewer token, passwords inside URLs."""
    found: list[str] = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        items = value.values() if isinstance(value, dict) else [value]
        found += [item.get_secret_value() for item in items if isinstance(item, SecretStr)]
        if isinstance(value, str) and "://" in value:
            try:
                password = urlsplit(value).password
            except ValueError:
                password = None
            found += [password] if password else []
    return found


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and any `extra` fields, all redacted."""

    _std = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = redactor or Redactor()

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        payload.update({k: v for k, v in record.__dict__.items() if k not in self._std})
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            payload["stack"] = record.stack_info
        return json.dumps(self.redactor.data(payload), ensure_ascii=False)


_TRACEBACKS = logging.Formatter()


def _scrub(record: logging.LogRecord, redactor: Redactor) -> None:
    """Redact the message and traceback on the record itself, for handlers that are not ours."""
    try:
        message = record.getMessage()
    except Exception:  # a malformed logging call: the handler reports it, as logging always does
        return
    clean = redactor.text(message)
    if clean != message:
        record.msg, record.args = clean, None
    if record.exc_info and not record.exc_text:
        text = _TRACEBACKS.formatException(record.exc_info)
        clean = redactor.text(text)
        if clean != text:
            record.exc_text = clean  # stdlib formatters print exc_text instead of formatting exc_info again
    if record.stack_info:
        record.stack_info = redactor.text(record.stack_info)


def install_redaction(secrets: Iterable[str] = ()) -> Redactor:
    """Redact `secrets` (and credential-shaped text) from every log record created from now on."""
    redactor = Redactor(secrets)
    current = logging.getLogRecordFactory()
    base: Callable[..., logging.LogRecord] = getattr(current, "deputy_base", current)

    # Libraries may log through handlers of their own (lark-oapi prints to stdout): only a record
    # factory reaches every handler.
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        _scrub(record, redactor)
        return record

    factory.deputy_base = base  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
    return redactor


def configure(level: str = "INFO", *, secrets: Iterable[str] = ()) -> None:
    """Route the root logger to stderr as JSON lines, with `secrets` redacted from every log record."""
    redactor = install_redaction(secrets)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(redactor))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
