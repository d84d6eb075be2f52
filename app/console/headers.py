"""Security headers on every console response: a CSP with no inline script or style, no framing, no referrer leak.

Pure ASGI, so it covers pages, partials, redirects, static files and error pages alike. The API and /docs
are left alone (Swagger UI needs its inline script).
"""

from __future__ import annotations

from typing import Any

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
]
NO_STORE = (b"cache-control", b"no-store")  # pages hold personal data: never kept in a shared cache or on disk


class ConsoleHeaders:
    """Adds the console's security headers to responses under `/console`."""

    def __init__(self, app: Any, prefix: str = "/console") -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == self.prefix or path.startswith(self.prefix + "/")):
            await self.app(scope, receive, send)
            return
        static = path.startswith(self.prefix + "/static/")

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [h for h in HEADERS if h[0] not in present]
                if not static and NO_STORE[0] not in present:
                    extra.append(NO_STORE)
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)
