"""Every error leaves as `{"error": {"code", "message"}}` with a 4xx status; bodies over the limit get 413."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api import openapi
from kernel.errors import DeputyError
from kernel.pagination import InvalidCursor

log = logging.getLogger("deputy.api")
DATABASE_RETRY_AFTER = 5  # seconds: a failover or a freed disk takes about that; platforms retry sooner anyway

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    """The SPEC §8 error envelope."""
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status_code=status)


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def validation_details(errors: list[dict[str, Any]]) -> list[dict[str, str]]:
    """[{"field": "interaction_policy.quiet_hours.0.start", "message": "..."}]."""
    return [{"field": _field(tuple(e.get("loc", ()))), "message": str(e.get("msg", "invalid"))} for e in errors]


def http_headers(request: Request, exc: StarletteHTTPException) -> dict[str, str] | None:
    """The exception's headers; on a 405, `Allow` names every method of the path (Starlette names one route's)."""
    headers = dict(getattr(exc, "headers", None) or {})
    allowed = openapi.allowed_methods(request.app, request.scope) if exc.status_code == 405 else []
    if allowed:
        headers["Allow"] = ", ".join(allowed)
    return headers or None


def install(app: FastAPI) -> None:
    """Register the handlers that shape every error response."""

    @app.exception_handler(DeputyError)
    async def _domain(_: Request, exc: DeputyError) -> JSONResponse:
        return JSONResponse(exc.to_body(), status_code=exc.status)

    @app.exception_handler(InvalidCursor)
    async def _cursor(_: Request, exc: InvalidCursor) -> JSONResponse:
        return error_response(400, "invalid_cursor", str(exc), field="cursor")

    @app.exception_handler(RequestValidationError)
    async def _request(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(400, "malformed_json", "request body is not valid JSON")
        details = validation_details(errors)
        first = details[0] if details else {"field": "body", "message": "invalid"}
        return error_response(
            422, "validation_error", f"{first['field']}: {first['message']}", field=first["field"], details=details
        )

    @app.exception_handler(ValidationError)
    async def _model(_: Request, exc: ValidationError) -> JSONResponse:
        details = validation_details(json.loads(exc.json()))
        first = details[0] if details else {"field": "body", "message": "invalid"}
        return error_response(
            422, "validation_error", f"{first['field']}: {first['message']}", field=first["field"], details=details
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "error")
        body = {"error": {"code": code, "message": str(exc.detail)}}
        return JSONResponse(body, status_code=exc.status_code, headers=http_headers(request, exc))

    @app.exception_handler(OperationalError)
    async def _database(_: Request, exc: OperationalError) -> JSONResponse:
        # Unreachable, disk full, read-only: nothing was written (the transaction rolled back), so a platform's
        # retry or the client's is safe; Retry-After says when to come back.
        log.warning("database unavailable: %s", str(exc.orig).splitlines()[0] if exc.orig else type(exc).__name__)
        response = error_response(503, "database_unavailable", "the database is unavailable; retry later")
        response.headers["Retry-After"] = str(DATABASE_RETRY_AFTER)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return error_response(500, "internal_error", "internal error")


class _BodyTooLarge(StarletteHTTPException):
    """Raised from `receive` once a streamed body passes the limit.

    An HTTPException so FastAPI's body parsing re-raises it (any other exception there
    becomes a generic 400) and the HTTP handler renders the 413 envelope.
    """

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body exceeds {max_bytes} bytes")


class BodyLimitMiddleware:
    """Refuse request bodies over `max_bytes` with 413, by header or while streaming."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            try:
                too_big = int(length) > self.max_bytes
            except ValueError:
                too_big = False
            if too_big:
                await self._reject(send)
                return
        seen = 0
        started = False

        async def limited_receive() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _BodyTooLarge(self.max_bytes)
            return message

        async def tracking_send(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _BodyTooLarge:
            if not started:
                await self._reject(send)

    async def _reject(self, send: Any) -> None:
        body = json.dumps(
            {"error": {"code": "payload_too_large", "message": f"request body exceeds {self.max_bytes} bytes"}}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
