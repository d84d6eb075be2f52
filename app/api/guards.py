"""Hostile-input guard (SPEC §8): every request's path, query and body is screened before routing and authentication.

JSON nested deeper than MAX_JSON_DEPTH is a 400 `too_deep`, counted on the raw bytes so no parser recurses
into it. Text holding U+0000 (raw, `\\u0000`, or `%00` in the query) or a lone UTF-16 surrogate is a 422
`validation_error` naming the field: PostgreSQL cannot store it, and SQLite must refuse the same input.
A path holding U+0000 names nothing: 404 on every route, before any lookup reaches the database.
Bodies are screened as JSON whatever their content type: the API and the webhooks speak nothing else.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from fastapi.responses import JSONResponse

from kernel.errors import DeputyError, Invalid, NotFound
from kernel.limits import text_problem
from kernel.screening import screen_depth, screen_json

WEBHOOKS = "/webhooks/"


def screen_url(scope: dict[str, Any]) -> None:
    """NotFound for a NUL in the path (no id holds one); Invalid naming the parameter for one in the query (`%00`)."""
    if "\x00" in scope.get("path", ""):
        raise NotFound("no resource has a NUL character (U+0000) in its path", field="path")
    query = scope.get("query_string", b"").decode("latin-1")
    for name, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
        if problem := text_problem(name) or text_problem(value):
            field = name if text_problem(name) is None else "query"
            raise Invalid(f"{field}: {problem}", field=field)


class InputGuardMiddleware:
    """Pure ASGI: buffer the body, screen URL and body, then hand the request on (or answer 400/422 at once)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            screen_url(scope)
            body, replay = await _read_body(receive)
            if scope.get("path", "").startswith(WEBHOOKS):
                screen_depth(body)  # a platform's event is kept as it came: unstorable text is set aside later
            else:
                screen_json(body)
        except DeputyError as exc:
            await JSONResponse(exc.to_body(), status_code=exc.status)(scope, receive, send)
            return
        await self.app(scope, replay, send)


async def _read_body(receive: Any) -> tuple[bytes, Any]:
    """The whole body (the size limit outside this middleware still applies) and a `receive` that replays it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client left: pass that on instead of a body
            pending = [message]
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            pending = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
            break

    async def replay() -> dict:
        return pending.pop() if pending else await receive()

    return b"".join(chunks), replay
