"""Annotated dependency aliases: the app context and the caller's role."""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Query, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.pipeline import Processor
from app.settings import parse_duration
from kernel import instants
from kernel.context import AppContext
from kernel.errors import Forbidden, Invalid, Unauthorized
from kernel.limits import RANGE_TEXT, in_range


@dataclass(frozen=True)
class Caller:
    """Who is calling: the token's name (the actor in facts) and its role."""

    name: str
    role: str


def get_ctx(request: Request) -> AppContext:
    """The process-wide application context."""
    return request.app.state.ctx


Ctx = Annotated[AppContext, Depends(get_ctx)]


def get_processor(request: Request) -> Processor:
    """The process's pipeline processor (woken after writes, run at once by the tick endpoint)."""
    return request.app.state.processor


Pipeline = Annotated[Processor, Depends(get_processor)]


# Declares the scheme in the OpenAPI document ("Authorize" in /docs); the header is checked below, answering
# the error envelope rather than FastAPI's own 403.
BEARER = HTTPBearer(
    scheme_name="bearer", auto_error=False, description="An admin or viewer token (DEPUTY_ADMIN_TOKENS, _VIEWER_TOKENS)"
)
Documented = Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]


def authenticate(request: Request, ctx: Ctx, _: Documented) -> Caller:
    """Resolve the bearer token to a caller; 401 when missing or unknown."""
    header = request.headers.get("authorization", "")
    scheme, _, presented = header.partition(" ")
    if scheme.lower() != "bearer" or not presented.strip():
        raise Unauthorized("missing bearer token")
    presented_b = presented.strip().encode()
    found: Caller | None = None
    # Compare against every token in constant time; never stop early.
    for role, name, secret in ctx.settings.token_roles():
        if hmac.compare_digest(presented_b, secret.encode()) and found is None:
            found = Caller(name=name, role=role)
    if found is None:
        raise Unauthorized("unknown bearer token")
    return found


def require_viewer(caller: Annotated[Caller, Depends(authenticate)]) -> Caller:
    """Any valid token may read."""
    return caller


# The "admin" role shows in the OpenAPI security requirement of every admin-only operation.
def require_admin(caller: Annotated[Caller, Security(authenticate, scopes=["admin"])]) -> Caller:
    """Only admin tokens may write."""
    if caller.role != "admin":
        raise Forbidden("this token may only read")
    return caller


Viewer = Annotated[Caller, Depends(require_viewer)]
Admin = Annotated[Caller, Depends(require_admin)]


# What `since` / `until` accept, as the OpenAPI document says it: an instant (kernel.instants), or a look-back of
# at most 9 digits of seconds, 7 of minutes, 5 of hours or 4 of days (at most 31.7 years), so that every look-back
# the document admits lands inside SPEC §8's range (1970-2100) whenever it is asked.
LOOK_BACK = re.compile(r"[0-9]{1,9}s?|[0-9]{1,7}m|[0-9]{1,5}h|[0-9]{1,4}d")
_LONG_LOOK_BACK = re.compile(r"[0-9]+[smhd]?")
INSTANT_SCHEMA = {"anyOf": [instants.INSTANT_SCHEMA, {"type": "string", "pattern": f"^(?:{LOOK_BACK.pattern})$"}]}


# A `since` / `until` query parameter, documented as `parse_instant` reads it.
InstantQuery = Annotated[
    str | None,
    Query(max_length=64, description="ISO 8601 with offset, or a look-back like 24h", json_schema_extra=INSTANT_SCHEMA),
]


def parse_instant(value: str | None, *, field: str, now: datetime) -> datetime | None:
    """An RFC 3339 instant with offset, or a look-back like `24h` (meaning now − 24 h); 422 for any other text,
    a look-back over the documented length, and an instant outside the sane range (SPEC §8: 1970-2100)."""
    if value is None:
        return None
    if LOOK_BACK.fullmatch(value):
        parsed = now - parse_duration(value)
    elif _LONG_LOOK_BACK.fullmatch(value):
        raise Invalid(f"{field} looks back too far (at most 9 digits of s, 7 of m, 5 of h or 4 of d)", field=field)
    elif instants.INSTANT_FORM.fullmatch(value):
        parsed = _parse_iso(value, field=field)
    elif instants.LOCAL_FORM.fullmatch(value):
        raise Invalid(f"{field} needs a UTC offset (e.g. 2026-03-18T10:00:00+08:00)", field=field)
    else:
        raise Invalid(f"{field} {instants.FORM_TEXT}, or a duration like 24h", field=field)
    if not in_range(parsed):
        raise Invalid(f"{field} must lie {RANGE_TEXT}", field=field)
    return parsed


def _parse_iso(value: str, *, field: str) -> datetime:
    try:
        return datetime.fromisoformat(value)
    except ValueError as exc:  # the form, but no such day or time (2026-02-30)
        raise Invalid(f"{field} {instants.FORM_TEXT}", field=field) from exc
