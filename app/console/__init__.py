"""The admin console: server-rendered pages under /console on the same FastAPI app (docs/operations.md)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api import errors
from app.console import problems
from app.console.auth import COOKIE
from app.console.headers import ConsoleHeaders
from app.console.pages import actions, concerns, facts, overview, person, persons, phrasings, sandbox, session
from app.console.web import HERE, Console, LoginRequired, Refused, to_login, translator
from kernel.context import AppContext
from kernel.errors import DeputyError

PREFIX = "/console"


def _console_path(request: Request) -> bool:
    return request.url.path == PREFIX or request.url.path.startswith(PREFIX + "/")


def _error_page(request: Request, *, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    shared: Console = request.app.state.console
    session = shared.sessions.read(request.cookies.get(COOKIE))
    if session is None:
        return to_login(request)
    request.state.console_session = session
    t = translator(request)
    title = t("forbidden") if status == 403 else t("not_found") if status == 404 else str(status)
    page = shared.page(request, "error.html", status=status, title=title, message=message)
    page.headers.update(headers or {})
    return page


def install(app: FastAPI, ctx: AppContext) -> None:
    """Mount the console's routes, static assets, security headers and HTML error pages on `app`."""
    app.state.console = Console(ctx)
    for module in (session, overview, persons, person, phrasings, concerns, facts, actions, sandbox):
        app.include_router(module.router)
    app.mount(f"{PREFIX}/static", StaticFiles(directory=HERE / "static"), name="console-static")
    app.add_middleware(ConsoleHeaders, prefix=PREFIX)

    @app.exception_handler(LoginRequired)
    async def _login(request: Request, _: LoginRequired) -> Response:
        return to_login(request)

    @app.exception_handler(Refused)
    async def _refused(request: Request, exc: Refused) -> Response:
        return _error_page(request, status=403, message=translator(request)(exc.why))

    # The API's handlers answer JSON; under /console the same errors are pages.
    api_domain: Any = app.exception_handlers[DeputyError]
    api_http: Any = app.exception_handlers[StarletteHTTPException]
    api_invalid: Any = app.exception_handlers[RequestValidationError]

    @app.exception_handler(DeputyError)
    async def _domain(request: Request, exc: DeputyError) -> Response:
        if _console_path(request):
            message = problems.domain(exc, translator(request).lang)
            return _error_page(request, status=exc.status, message=message)
        return await api_domain(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        if _console_path(request):
            details = errors.validation_details(list(exc.errors()))
            english = "; ".join(f"{d['field']}: {d['message']}" for d in details)
            message = problems.request([str(d["field"]) for d in details], translator(request).lang, english)
            return _error_page(request, status=422, message=message)
        return await api_invalid(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if _console_path(request) and exc.status_code in (404, 405):
            headers = errors.http_headers(request, exc)
            message = str(exc.detail) if translator(request).lang != "zh" else translator(request)("not_found")
            return _error_page(request, status=exc.status_code, message=message, headers=headers)
        return await api_http(request, exc)
