"""Structured JSON logs on stderr (stdlib logging), with secrets redacted from every line."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from pydantic import SecretStr

from kernel.redaction import MIN_SECRET_LENGTH, REDACTED, Redactor, remember_secrets

__all__ = ["MIN_SECRET_LENGTH", "REDACTED", "JsonFormatter", "Redactor", "configure", "install_redaction"]


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
    redactor = remember_secrets(secrets)  # the same redactor cleans what is stored (kernel.redaction.redact)
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
