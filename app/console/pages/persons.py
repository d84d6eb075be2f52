"""`/console/persons`: the searchable list of people, and creating one (admins)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.console import forms
from app.console import people as console_people
from app.console.web import Changing, Form, Shared, Viewing, translator
from kernel.channel_names import installed
from kernel.errors import DeputyError
from person import service
from person.rules import is_quiet

router = APIRouter(prefix="/console", include_in_schema=False)
PAGE = 50


def _rows(shared: Shared, *, q: str | None, role: str | None, active: bool | None, cursor: str | None) -> dict:
    with shared.ctx.reader() as uow:
        persons, next_cursor = service.list_(uow, role=role, active=active, q=q, limit=PAGE, cursor=cursor)
        people = [service.to_out(uow, p) for p in persons]
        managers = {p.manager_id for p in people if p.manager_id}
        names = {pid: person.display_name for pid in managers if (person := service.get(uow, person_id=pid))}
        suggest = console_people.suggestions(uow)
    return {"people": people, "next_cursor": next_cursor, "manager_names": names, "suggest": suggest}


def _list(
    request: Request,
    shared: Shared,
    *,
    q: str = "",
    role: str = "",
    active: str = "true",
    cursor: str | None = None,
    status: int = 200,
    **values,
) -> Response:
    active_ = {"true": True, "false": False}.get(active)
    rows = _rows(shared, q=q or None, role=role or None, active=active_, cursor=cursor)
    template = "partials/person_rows.html" if request.headers.get("hx-request") else "persons.html"
    return shared.page(
        request,
        template,
        status=status,
        title=translator(request)("persons"),
        filters={"q": q, "role": role, "active": active},
        channels=installed(),
        is_quiet=is_quiet,
        values=values.pop("values", {}),
        errors=values.pop("errors", {}),
        **rows,
        **values,
    )


@router.get("/persons", response_class=HTMLResponse)
def persons(
    request: Request,
    shared: Shared,
    _: Viewing,
    q: str = Query("", max_length=200),
    role: Literal["principal", "member", ""] = "",
    active: Literal["true", "false", "all"] = "true",
    cursor: str | None = Query(None, max_length=300),
) -> Response:
    """Name, role, manager, channels, cap, quiet hours and pause of everyone; search by name or id."""
    return _list(request, shared, q=q, role=role, active=active, cursor=cursor)


@router.post("/persons", response_class=HTMLResponse)
def create_person(request: Request, shared: Shared, session: Changing, form: Form) -> Response:
    """Create a person (validated as `POST /v1/persons`); the form comes back with errors beside its fields."""
    lang = translator(request).lang
    try:
        data = forms.person_create(form, lang=lang)
        with shared.ctx.uow(actor=session.caller.name) as uow:
            service.create(uow, data=data)
    except DeputyError as exc:
        errors = forms.domain_error(exc, fields=forms.CREATE_FIELDS, lang=lang).errors
        return _list(request, shared, status=exc.status, values=form, errors=errors, show_create=True)
    except forms.FormErrors as exc:
        return _list(request, shared, status=422, values=form, errors=exc.errors, show_create=True)
    return RedirectResponse(f"/console/persons/{data.person_id}?saved=created", status_code=303)
