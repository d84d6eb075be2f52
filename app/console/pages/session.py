"""Logging in and out of the console (limited: app.console.limits), and the language toggle."""

from __future__ import annotations

import logging
import math
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.console import i18n
from app.console.auth import COOKIE, DEVICE_COOKIE
from app.console.clients import client_address, limit_key
from app.console.limits import ADDRESS, DEVICE, NEW_DEVICES, Attempt
from app.console.web import Form, Posting, Shared, safe_next, translator

router = APIRouter(prefix="/console", include_in_schema=False)
log = logging.getLogger("deputy.console")
LANG_MAX_AGE = 365 * 86400
LIMITED_WORDS = {ADDRESS: "login_limited", DEVICE: "login_limited_device", NEW_DEVICES: "login_limited_new_devices"}


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


def _signed_in(response: Response, shared: Shared, value: str, holder: str) -> Response:
    """The session cookie, and the device cookie that lets this browser log in apart from its address's limit."""
    settings = shared.ctx.settings
    cookies = (
        (COOKIE, value, shared.sessions.max_age),
        (DEVICE_COOKIE, shared.sessions.device(holder), int(settings.console_device_ttl.total_seconds())),
    )
    for name, content, max_age in cookies:
        response.set_cookie(
            name,
            content,
            max_age=max_age,
            path="/console",
            httponly=True,
            samesite="lax",
            secure=settings.console_secure_cookies,
        )
    return response


def _attempt(request: Request, shared: Shared) -> Attempt:
    """Who is logging in, as the limit counts them: the client's address, and who its device cookie says."""
    peer = request.client.host if request.client else None
    trusted = shared.ctx.settings.trusted_networks()
    address = limit_key(client_address(peer, request.headers.getlist("x-forwarded-for"), trusted))
    return Attempt(address, device=shared.sessions.device_of(request.cookies.get(DEVICE_COOKIE)))


def _limited(request: Request, shared: Shared, attempt: Attempt, *, now: datetime, next: str) -> Response | None:
    """The 429 page while one of the attempt's buckets is full (its token not even checked), else None."""
    limited = shared.limiter.retry_after(attempt, now=now)
    if limited is None:
        return None
    extra = {"client": attempt.address, "device": attempt.device, "limit": limited.kind}
    log.warning("console login limited", extra=extra)
    minutes = max(1, math.ceil(limited.wait.total_seconds() / 60))
    error = translator(request)(LIMITED_WORDS[limited.kind], minutes=minutes)
    page = _login_page(request, shared, status=429, next=next, error=error)
    page.headers["Retry-After"] = str(max(1, math.ceil(limited.wait.total_seconds())))
    return page


@router.get("/first-login", response_class=HTMLResponse)
def first_login(request: Request, shared: Shared, login_code: str = "") -> Response:
    """The first start's one-time admin login link: used up here; limited like wrong tokens."""
    attempt, now = _attempt(request, shared), shared.ctx.clock.now()
    if (refused := _limited(request, shared, attempt, now=now, next="/console")) is not None:
        return refused
    found = shared.sessions.first_login(login_code.strip())
    if found is None:
        shared.limiter.failed(attempt, f"code:{login_code.strip()}", now=now)
        log.warning("console one-time login refused", extra={"client": attempt.address})
        error = translator(request)("first_login_spent")
        return _login_page(request, shared, status=401, next="/console", error=error)
    session, value = found
    log.info("console one-time login", extra={"actor": session.caller.name, "role": "admin", "client": attempt.address})
    return _signed_in(RedirectResponse("/console", status_code=303), shared, value, session.caller.name)


@router.post("/login", response_class=HTMLResponse)
def login(request: Request, shared: Shared, form: Form) -> Response:
    """Set the signed session cookie for a configured token; a wrong one sets nothing, and failures are limited."""
    attempt, now = _attempt(request, shared), shared.ctx.clock.now()
    nxt = safe_next(form.get("next"))
    if (refused := _limited(request, shared, attempt, now=now, next=nxt)) is not None:
        return refused  # a guesser learns nothing more while limited
    token = form.get("token", "").strip()
    found = shared.sessions.login(token)
    if found is None:
        shared.limiter.failed(attempt, f"token:{token}", now=now)
        log.warning("console login refused", extra={"client": attempt.address})
        return _login_page(request, shared, status=401, next=nxt, error=translator(request)("login_wrong"))
    session, value = found
    caller = session.caller
    log.info("console login", extra={"actor": caller.name, "role": caller.role, "client": attempt.address})
    return _signed_in(RedirectResponse(nxt, status_code=303), shared, value, caller.name)


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
