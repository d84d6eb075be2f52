"""The one error taxonomy every channel adapter translates platform failures into."""

from __future__ import annotations

from typing import Any

from kernel.limits import storable, storable_data
from kernel.redaction import redact, redact_data


class ChannelError(Exception):
    """A send that did not succeed; `kind` is one of unreachable, rate_limited, invalid_request, transient."""

    kind = "transient"

    def __init__(
        self,
        message: str,
        *,
        code: str | int | None = None,
        retry_after: float | None = None,
        permanent: bool = False,
        possibly_delivered: bool = False,
        detail: dict[str, Any] | None = None,
    ) -> None:
        # Platforms and proxies echo request URLs (a Bot API URL holds the bot token) and signed links in their
        # errors; this text ends up in result_detail, facts, the console and the CLI, so it is cleaned here, once.
        message = storable(redact(message))
        super().__init__(message)
        self.message = message
        self.code = code
        self.retry_after = retry_after
        self.permanent = permanent
        self.possibly_delivered = possibly_delivered
        self.detail = storable_data(redact_data(detail)) if detail else {}

    def to_attempt(self) -> dict[str, Any]:
        """How this failure is recorded in `result_detail.attempts`."""
        record: dict[str, Any] = {"error": self.kind, "message": self.message}
        if self.code is not None:
            record["code"] = self.code
        if self.retry_after is not None:
            record["retry_after"] = self.retry_after
        if self.permanent:
            record["permanent"] = True
        if self.possibly_delivered:
            record["possibly_delivered"] = True
        return record


class Unreachable(ChannelError):
    """The person cannot be reached there; `permanent` when the platform says so (blocked bot, no availability)."""

    kind = "unreachable"


class RateLimited(ChannelError):
    """The platform asked us to slow down; `retry_after` seconds when it said how long."""

    kind = "rate_limited"


class Paced(RateLimited):
    """The service's own pacing refused the send before anything reached the platform; safe to send again
    `retry_after` seconds from now (the earliest slot the pacer could see)."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: float,
        code: str | int | None = "pacing",
        detail: dict[str, Any] | None = None,
    ) -> None:
        if not retry_after > 0:
            raise ValueError("a paced send needs a positive retry_after")
        super().__init__(message, code=code, retry_after=retry_after, detail=detail)

    def to_attempt(self) -> dict[str, Any]:
        """The rate_limited record, marked `paced` so the caller defers instead of counting a failure."""
        return super().to_attempt() | {"paced": True}


class InvalidRequest(ChannelError):
    """The platform rejected the message itself (bad content, bad ids)."""

    kind = "invalid_request"


class Transient(ChannelError):
    """Network error, timeout, 5xx or an unreadable answer; the message may or may not have arrived."""

    kind = "transient"
