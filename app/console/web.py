"""The console's request plumbing: rendering pages, who is asking (session), CSRF and role checks, HTML errors."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.console import describe, i18n
from app.console.auth import COOKIE, Session, Sessions
from app.console.limits import LoginLimiter
from concern import stats as concern_stats
from concern.texts import messages
from kernel.context import AppContext

HERE = Path(__file__).parent
CSRF_FIELD, CSRF_HEADER = "csrf_token", "x-csrf-token"


class LoginRequired(Exception):
    """No valid session: pages redirect to the login form, htmx requests are told where to go."""


class Refused(Exception):
    """403: a viewer tried to change something, or a POST came without this session's CSRF token."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Console:
    """Everything the console's routes share: the app context, sessions, the login limiter, the templates."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.sessions = Sessions(ctx.settings, clock=ctx.clock, db=ctx.db)
        self.limiter = LoginLimiter(
            attempts=ctx.settings.console_login_attempts,
            window=ctx.settings.console_login_window,
            new_device_attempts=ctx.settings.console_login_new_device_attempts,
            redis=ctx.redis,
            digest=self.sessions.digest,
        )
        self._env: Any = None

    @property
    def env(self) -> Any:
        """The templates, loaded at the first page (jinja2 stays out of a process that never serves one)."""
        if self._env is None:
            from jinja2 import Environment, FileSystemLoader, select_autoescape

            env = Environment(
                loader=FileSystemLoader(HERE / "templates"),
                autoescape=select_autoescape(default=True),
                trim_blocks=True,
                lstrip_blocks=True,
            )
            env.filters.update(linkify=describe.linkify, pretty=describe.pretty, href=describe.href)
            env.globals.update(static_version=_static_version(), held_on=concern_stats.held_on)
            self._env = env
        return self._env

    def page(self, request: Request, template: str, *, status: int = 200, **values: Any) -> HTMLResponse:
        """Render `template` with what every page needs: the translator, the session, the clock."""
        session: Session | None = getattr(request.state, "console_session", None)
        t = translator(request)
        now = self.ctx.clock.now()
        tz = self.ctx.settings.tz
        html = self.env.get_template(template).render(
            request=request,
            path=request.url.path,
            t=t,
            lang=t.lang,
            session=session,
            csrf=session.csrf if session else "",
            now=now,
            tz=tz,
            local=lambda v, zone=None: local(v, zone or tz),
            ago=lambda v: ago(v, now=now, lang=t.lang),
            span=lambda delta: messages.duration(delta, t.lang),
            **values,
        )
        return HTMLResponse(html, status_code=status)


def _static_version() -> str:
    """Changes when a static file changes, so browsers fetch the new one (`?v=`)."""
    return str(max(int(p.stat().st_mtime) for p in (HERE / "static").iterdir()))


def local(value: datetime | None, tz: Any) -> str:
    """`2026-03-18 10:00` in `tz`, or an empty string."""
    return value.astimezone(tz).strftime("%Y-%m-%d %H:%M") if value else ""


def ago(value: datetime | None, *, now: datetime, lang: str) -> str:
    """`5m ago` / `5分钟前`, `in 2h` / `2小时后`."""
    if value is None:
        return ""
    span = messages.duration(abs(now - value), lang)
    if value <= now:
        return f"{span}前" if lang == "zh" else f"{span} ago"
    return f"{span}后" if lang == "zh" else f"in {span}"


def translator(request: Request) -> i18n.Translator:
    """The request's language: the toggle's cookie, else Accept-Language."""
    return i18n.Translator(i18n.pick(request.headers.get("accept-language"), request.cookies.get(i18n.LANG_COOKIE)))


def console(request: Request) -> Console:
    """The app's console."""
    return request.app.state.console


Shared = Annotated[Console, Depends(console)]


def viewer(request: Request, shared: Shared) -> Session:
    """The logged-in session (admin or viewer), or LoginRequired."""
    session = shared.sessions.read(request.cookies.get(COOKIE))
    if session is None:
        raise LoginRequired()
    request.state.console_session = session
    return session


async def form_data(request: Request) -> dict[str, str]:
    """The posted form's text fields (the last value of a repeated field wins: a checkbox after its hidden default)."""
    form = await request.form()
    return {name: value for name, value in form.multi_items() if isinstance(value, str)}


Viewing = Annotated[Session, Depends(viewer)]
Form = Annotated[dict[str, str], Depends(form_data)]


def poster(request: Request, session: Viewing, form: Form) -> Session:
    """Any session's POST, with this session's CSRF token in the form or the X-CSRF-Token header (logout)."""
    if not Sessions.csrf_ok(session, form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)):
        raise Refused("forbidden_csrf")
    return session


def admin(session: Annotated[Session, Depends(poster)]) -> Session:
    """An admin's POST with its CSRF token; viewers change nothing."""
    if not session.admin:
        raise Refused("forbidden_viewer")
    return session


Posting = Annotated[Session, Depends(poster)]
Changing = Annotated[Session, Depends(admin)]


def to_login(request: Request) -> Response:
    """Where a request without a session goes: the login page, remembering the page asked for."""
    target = "/console/login"
    if request.method == "GET" and request.url.path not in ("/console/login", "/console/logout"):
        target += "?next=" + quote(request.url.path + (f"?{request.url.query}" if request.url.query else ""), safe="")
    if request.headers.get("hx-request"):
        return Response(status_code=401, headers={"HX-Redirect": target})
    return RedirectResponse(target, status_code=303)


def safe_next(value: str | None) -> str:
    """Only a console path may follow the login (no open redirect)."""
    if value and value.startswith("/console") and not value.startswith("//") and "\\" not in value:
        return value
    return "/console"
