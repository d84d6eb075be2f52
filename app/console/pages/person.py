"""`/console/persons/{id}`: a profile, its bindings, its policy as a form, recent facts and open loops; admins edit.

Every change goes through person.service under the session's actor, so it writes the same `person_changed`
fact (before, after, actor = the token's name) as the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.console import day, describe, forms
from app.console.i18n import Translator
from app.console.pages import phrasings, reach
from app.console.web import Changing, Form, Shared, Viewing, translator
from concern import service as concerns
from concern.models import ACTIVE_STATES
from fact import service as facts
from kernel.channel_names import installed
from kernel.errors import DeputyError
from person import bind_codes, service
from person.models import ChannelBindingIn
from person.rules import local_day_bounds

router = APIRouter(prefix="/console", include_in_schema=False)
# Templates of further sections of the person page, shown after their loops in this order (each gets the page's
# values: person, who, t, …). A feature adds its own, e.g. SECTIONS.append("partials/person_reachability.html").
SECTIONS: list[str] = ["partials/reachability.html", "partials/phrasings.html"]
FLASHES = {"created", "saved", "no_change", "reachable", "removed"}


def _context(shared: Shared, person_id: str, t: Translator) -> dict[str, Any]:
    with shared.ctx.reader() as uow:
        person = service.to_out(uow, service.get_or_404(uow, person_id=person_id))
        since, _ = local_day_bounds(uow.now, ZoneInfo(person.timezone))
        today = day.entries(uow, person_id=person_id, since=since, t=t, tz=ZoneInfo(person.timezone), now=uow.now)
        recent, _ = facts.list_(uow, filters=facts.FactFilter(person_id=person_id), limit=20)
        loops = [c for c in concerns.list_(uow, person_id=person_id, limit=100)[0] if c.state in ACTIVE_STATES]
        who = describe.names(
            uow,
            [person.manager_id, *describe.people_in(recent)]
            + [pid for c in loops for pid in (c.originator_id, c.target_person_id)],
        )
    return {"person": person, "recent": recent, "loops": loops, "who": who, "day": today, "day_since": since}


def _page(
    request: Request,
    shared: Shared,
    person_id: str,
    *,
    status: int = 200,
    policy_values: dict[str, str] | None = None,
    profile_values: dict[str, str] | None = None,
    errors: dict[str, dict[str, str]] | None = None,
    **values: Any,
) -> Response:
    t = translator(request)
    page = _context(shared, person_id, t)
    person = page["person"]
    tz = ZoneInfo(person.timezone)
    saved = request.query_params.get("saved")
    now = shared.ctx.clock.now()
    return shared.page(
        request,
        "person.html",
        status=status,
        title=person.display_name,
        person_tz=tz,
        channels=installed(),
        sections=SECTIONS,
        policy_values=policy_values or forms.policy_values(person.interaction_policy, tz=tz),
        profile_values=profile_values or _profile_values(person),
        errors=errors or {},
        flash=t("saved") if saved in FLASHES - {"no_change"} else t("no_change") if saved == "no_change" else None,
        reach=reach.section(shared.ctx, person_id=person_id, lang=t.lang),
        learned=phrasings.section(shared.ctx, person_id=person_id, lang=t.lang),
        fact_line=lambda f: describe.fact_line(f, t, who=page["who"], tz=shared.ctx.settings.tz, now=now),
        **page,
        **values,
    )


def _profile_values(person: Any) -> dict[str, str]:
    return {
        "display_name": person.display_name,
        "aliases": ", ".join(person.aliases),
        "role": person.role,
        "manager_id": person.manager_id or "",
        "timezone": person.timezone,
        "locale": person.locale,
    }


@router.get("/persons/{person_id}", response_class=HTMLResponse)
def person(person_id: str, request: Request, shared: Shared, _: Viewing) -> Response:
    """One person."""
    return _page(request, shared, person_id)


def _tz_of(shared: Shared, person_id: str) -> ZoneInfo:
    with shared.ctx.reader() as uow:
        return ZoneInfo(service.get_or_404(uow, person_id=person_id).timezone)


def _snapshot(uow: Any, person_id: str) -> dict[str, Any]:
    return service.to_out(uow, service.get_or_404(uow, person_id=person_id)).model_dump(exclude={"updated_at"})


def _refusal(exc: Exception, fields: tuple[str, ...], lang: str) -> tuple[int, dict[str, str]]:
    """(status, errors by field) of a form the model or the service refused."""
    if isinstance(exc, forms.FormErrors):
        return 422, exc.errors
    assert isinstance(exc, DeputyError)
    return exc.status, forms.domain_error(exc, fields=fields, lang=lang).errors


def _save(
    request: Request,
    shared: Shared,
    session: Any,
    person_id: str,
    form: dict[str, str],
    *,
    section: str,
    change: Callable[[Any], None],
    fields: tuple[str, ...],
) -> Response:
    """Apply one form in one unit of work; refused, the page comes back with the errors beside the fields."""
    try:
        with shared.ctx.uow(actor=session.caller.name) as uow:
            before = _snapshot(uow, person_id)
            change(uow)
            outcome = "saved" if _snapshot(uow, person_id) != before else "no_change"
    except (forms.FormErrors, DeputyError) as exc:
        status, errors = _refusal(exc, fields, translator(request).lang)
        values = {f"{section}_values": form}
        return _page(request, shared, person_id, status=status, errors={section: errors}, **values)
    return RedirectResponse(f"/console/persons/{person_id}?saved={outcome}#{section}", status_code=303)


@router.post("/persons/{person_id}/policy", response_class=HTMLResponse)
def save_policy(person_id: str, request: Request, shared: Shared, session: Changing, form: Form) -> Response:
    """Save the policy form, validated as `PATCH …/interaction_policy`; a bad value comes back beside its field."""

    def change(uow: Any) -> None:
        tz = ZoneInfo(service.get_or_404(uow, person_id=person_id).timezone)
        patch = forms.policy_patch(form, tz=tz, lang=translator(request).lang)
        service.patch_policy(uow, person_id=person_id, patch=patch)

    return _save(request, shared, session, person_id, form, section="policy", change=change, fields=forms.POLICY_FIELDS)


@router.post("/persons/{person_id}/policy/check", response_class=HTMLResponse)
def check_policy(person_id: str, request: Request, shared: Shared, _: Changing, form: Form) -> Response:
    """Inline validation while editing (htmx): every policy field's error slot, swapped out of band; saves nothing."""
    try:
        forms.policy_patch(form, tz=_tz_of(shared, person_id), lang=translator(request).lang)
        errors: dict[str, str] = {}
    except forms.FormErrors as exc:
        errors = exc.errors
    return shared.page(request, "partials/field_errors.html", fields=forms.POLICY_FIELDS, errors=errors)


@router.post("/persons/{person_id}/profile", response_class=HTMLResponse)
def save_profile(person_id: str, request: Request, shared: Shared, session: Changing, form: Form) -> Response:
    """Save the profile form, validated as `PATCH /v1/persons/{id}`."""

    def change(uow: Any) -> None:
        service.update(uow, person_id=person_id, patch=forms.profile_update(form, lang=translator(request).lang))

    fields = forms.PROFILE_FIELDS
    return _save(request, shared, session, person_id, form, section="profile", change=change, fields=fields)


@router.post("/persons/{person_id}/bind_codes", response_class=HTMLResponse)
def issue_bind_code(person_id: str, request: Request, shared: Shared, session: Changing) -> Response:
    """Issue a one-time bind code and show it once (it is stored hashed)."""
    with shared.ctx.uow(actor=session.caller.name) as uow:
        code, expires = bind_codes.issue(uow, person_id=person_id)
    return _page(request, shared, person_id, bind_code=code, bind_expires=expires)


@router.post("/persons/{person_id}/bindings/reachable", response_class=HTMLResponse)
def mark_reachable(person_id: str, shared: Shared, session: Changing, form: Form) -> Response:
    """Mark one binding reachable again (the person unblocked the bot), as a bindings change."""
    channel, external = form.get("channel", ""), form.get("external_user_id", "")
    with shared.ctx.uow(actor=session.caller.name) as uow:
        current = service.bindings_of(uow, person_id=service.get_or_404(uow, person_id=person_id).person_id)
        bindings = [
            ChannelBindingIn(
                channel=b.channel,
                external_user_id=b.external_user_id,
                chat_id=b.chat_id,
                reachable=b.reachable or (b.channel, b.external_user_id) == (channel, external),
            )
            for b in current
        ]
        service.replace_bindings(uow, person_id=person_id, bindings=bindings)
    return RedirectResponse(f"/console/persons/{person_id}?saved=reachable#bindings", status_code=303)
