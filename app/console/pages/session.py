"""Logging in and out of the console, and the language toggle."""

from __future__ import annotations

import logging
import math

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.console import i18n
from app.console.auth import COOKIE
from app.console.clients import client_address, limit_key
from app.console.web import Form, Posting, Shared, safe_next, translator

router = APIRouter(prefix="/console", include_in_schema=False)
log = logging.getLogger("deputy.console")
LANG_MAX_AGE = 365 * 86400


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, shared: Shared, next: str | None = None) -> Response:
    """The token form (an already logged-in browser goes straight on)."""
    if shared.sessions.read(request.cookies.get(COOKIE)) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return _login_page(request, shared, next=safe_next(next), error=None)


def _login_page(request: Request, shared: Shared, *, status: int = 200, next: str, error: str | None) -> Response:
    """The token form; while no token is configured it says where the one-time login link is (never the link)."""
    first_start = not shared.ctx.settings.token_roles()
    t = translator(request)
    return shared.page(
        request, "login.html", status=status, title=t("login"), next=next, error=error, first_start=first_start
    )


def _session_cookie(response: Response, shared: Shared, value: str) -> None:
    response.set_cookie(
        COOKIE,
        value,
        max_age=shared.sessions.max_age,
        path="/console",
        httponly=True,
        samesite="lax",
        secure=shared.ctx.settings.console_secure_cookies,
    )


@router.get("/first-login", response_class=HTMLResponse)
def first_login(request: Request, shared: Shared, login_code: str = "") -> Response:
    """The first start's one-time admin login link: used up here; limited like wrong tokens."""
    t = translator(request)
    client = request.client.host if request.client else "unknown"
    now = shared.ctx.clock.now()
    wait = shared.limiter.retry_after(client, now=now)
    if wait is not None:
        minutes = max(1, math.ceil(wait.total_seconds() / 60))
        page = _login_page(request, shared, status=429, next="/console", error=t("login_limited", minutes=minutes))
        page.headers["Retry-After"] = str(max(1, math.ceil(wait.total_seconds())))
        return page
    found = shared.sessions.first_login(login_code.strip())
    if found is None:
        shared.limiter.failed(client, now=now)
        log.warning("console one-time login refused", extra={"client": client})
        return _login_page(request, shared, status=401, next="/console", error=t("first_login_spent"))
    session, value = found
    log.info("console one-time login", extra={"actor": session.caller.name, "role": "admin", "client": client})
    response = RedirectResponse("/console", status_code=303)
    _session_cookie(response, shared, value)
    return response


@router.post("/login", response_class=HTMLResponse)
def login(request: Request, shared: Shared, form: Form) -> Response:
    """Set the signed session cookie for a configured token; a wrong one sets nothing, and failures are limited."""
    t = translator(request)
    peer = request.client.host if request.client else None
    trusted = shared.ctx.settings.trusted_networks()
    client = limit_key(client_address(peer, request.headers.getlist("x-forwarded-for"), trusted))
    now = shared.ctx.clock.now()
    nxt = safe_next(form.get("next"))
    wait = shared.limiter.retry_after(client, now=now)
    if wait is not None:  # not even checked: a guesser learns nothing more while limited
        minutes = max(1, math.ceil(wait.total_seconds() / 60))
        page = _login_page(request, shared, status=429, next=nxt, error=t("login_limited", minutes=minutes))
        page.headers["Retry-After"] = str(max(1, math.ceil(wait.total_seconds())))
        return page
    found = shared.sessions.login(form.get("token", "").strip())
    if found is None:
        shared.limiter.failed(client, now=now)
        log.warning("console login refused", extra={"client": client})
        return _login_page(request, shared, status=401, next=nxt, error=t("login_wrong"))
    session, value = found
    log.info("console login", extra={"actor": session.caller.name, "role": session.caller.role, "client": client})
    response = RedirectResponse(nxt, status_code=303)
    _session_cookie(response, shared, value)
    return response


@router.post("/logout")
def logout(shared: Shared, session: Posting) -> Response:
    """Clear the session cookie (any role, with the session's CSRF token)."""
    log.info("console logout", extra={"actor": session.caller.name})
    response = RedirectResponse("/console/login", status_code=303)
    response.delete_cookie(
        COOKIE, path="/console", httponly=True, samesite="lax", secure=shared.ctx.settings.console_secure_cookies
    )
    return response


@router.get("/lang/{lang}")
def set_language(lang: str, shared: Shared, next: str | None = None) -> Response:
    """Remember the toggled language (zh or en) in a cookie and go back."""
    response = RedirectResponse(safe_next(next), status_code=303)
    if lang in i18n.LANGS:
        response.set_cookie(
            i18n.LANG_COOKIE,
            lang,
            max_age=LANG_MAX_AGE,
            path="/console",
            samesite="lax",
            secure=shared.ctx.settings.console_secure_cookies,
        )
    return response
