"""The small set of domain errors every layer raises and the API turns into 4xx JSON."""

from __future__ import annotations

from typing import Any


class DeputyError(Exception):
    """Base error with a stable machine code and an HTTP status."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, field: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.details = details

    def to_body(self) -> dict[str, Any]:
        """The `{"error": {...}}` envelope of SPEC §8."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


class NotFound(DeputyError):
    status, code = 404, "not_found"


class Conflict(DeputyError):
    status, code = 409, "conflict"


class Invalid(DeputyError):
    status, code = 422, "validation_error"


class Unauthorized(DeputyError):
    status, code = 401, "unauthorized"


class Forbidden(DeputyError):
    status, code = 403, "forbidden"
