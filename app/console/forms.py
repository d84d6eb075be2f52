"""Console forms → the API's own input models, so a form is validated exactly as the JSON API validates it.

Only the spelling is the form's: `22:00-08:00, 12:00-13:30` for quiet hours, `6,7` for quiet days, a local
`datetime-local` for `paused_until`. A value that does not parse is handed on as typed, so the model's
own rule names the problem; errors come back per form field.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ValidationError

from app.console import problems
from kernel.errors import DeputyError
from kernel.limits import text_problem
from person.models import InteractionPolicyPatch, PersonCreate, PersonUpdate

POLICY_FIELDS = (
    "allow_proactive_ping",
    "max_proactive_contacts_per_day",
    "preferred_channel",
    "quiet_hours",
    "quiet_days",
    "paused_until",
    "follow_up_stretch",
)
PROFILE_FIELDS = ("display_name", "aliases", "role", "manager_id", "timezone", "locale")
CREATE_FIELDS = ("person_id", *PROFILE_FIELDS, "channel", "external_user_id", "chat_id")
_WINDOW = re.compile(r"^\s*(\S+?)\s*[-–~]\s*(\S+)\s*$")
_INT = re.compile(r"^[+-]?\d{1,9}$")
_NUMBER = re.compile(r"^\s*\d{1,3}(\.\d{1,6})?\s*$")


class FormErrors(Exception):
    """Field name → message, for the form to show beside each field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def screen(form: dict[str, str], lang: str = "en") -> None:
    """FormErrors for text no database can store (NUL, lone surrogates), before any model sees it."""
    errors = {
        name: problems.form("text", lang, problem) for name, value in form.items() if (problem := text_problem(value))
    }
    if errors:
        raise FormErrors(errors)


def _int_or_text(value: str) -> Any:
    return int(value) if _INT.match(value.strip()) else value


def _windows(text: str, lang: str) -> list[Any]:
    windows: list[Any] = []
    for chunk in (c for c in text.split(",") if c.strip()):
        match = _WINDOW.match(chunk)
        if not match:
            english = f"{chunk.strip()!r}: write each window as HH:MM-HH:MM"
            raise FormErrors({"quiet_hours": problems.form("window", lang, english)})
        windows.append({"start": match.group(1), "end": match.group(2)})
    return windows


def _local_instant(text: str, tz: ZoneInfo) -> Any:
    """`2026-03-20T10:00` in the person's timezone → an aware datetime; anything else as typed."""
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        return text
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)


def _validate(model: type[BaseModel], data: dict[str, Any], *, fields: tuple[str, ...], lang: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise FormErrors(field_errors(exc.errors(), fields=fields, lang=lang)) from exc


def field_errors(errors: list[Any], *, fields: tuple[str, ...], lang: str = "en") -> dict[str, str]:
    """Pydantic errors → {form field: first message}: the innermost part of the location that is a field."""
    found: dict[str, str] = {}
    for error in errors:
        loc = [str(p) for p in error.get("loc", ())]
        name = next((p for p in reversed(loc) if p in fields), loc[0] if loc else "form")
        found.setdefault(name, problems.validation(error, lang))
    return found


def domain_error(exc: DeputyError, *, fields: tuple[str, ...], lang: str = "en") -> FormErrors:
    """A service's refusal (unknown manager, unbound preferred channel, duplicate id) beside its field."""
    name = (exc.field or "form").rsplit(".", 1)[-1]
    return FormErrors({name if name in fields else "form": problems.domain(exc, lang)})


def policy_patch(form: dict[str, str], *, tz: ZoneInfo, lang: str = "en") -> InteractionPolicyPatch:
    """The policy form as `PATCH …/interaction_policy` would take it: every field on the form, set explicitly."""
    screen(form, lang)
    data: dict[str, Any] = {
        "allow_proactive_ping": form.get("allow_proactive_ping", "false") in ("true", "on", "1"),
        "max_proactive_contacts_per_day": _int_or_text(form.get("max_proactive_contacts_per_day", "")),
        "preferred_channel": form.get("preferred_channel") or None,
        "quiet_hours": _windows(form.get("quiet_hours", ""), lang),
        "quiet_days": [_int_or_text(d) for d in form.get("quiet_days", "").split(",") if d.strip()],
        "paused_until": _local_instant(form["paused_until"], tz) if form.get("paused_until", "").strip() else None,
    }
    stretch = form.get("follow_up_stretch", "")
    if stretch.strip():  # a form without the field (an older page) leaves the stretch as it is
        data["follow_up_stretch"] = float(stretch) if _NUMBER.match(stretch) else stretch
    return _validate(InteractionPolicyPatch, data, fields=POLICY_FIELDS, lang=lang)


def _aliases(text: str) -> list[str]:
    return [a.strip() for a in re.split(r"[,，]", text) if a.strip()]


def profile_update(form: dict[str, str], *, lang: str = "en") -> PersonUpdate:
    """The profile form as `PATCH /v1/persons/{id}` takes it (an empty manager clears it)."""
    screen(form, lang)
    data: dict[str, Any] = {n: form.get(n, "").strip() for n in ("display_name", "role", "timezone", "locale")}
    data["aliases"] = _aliases(form.get("aliases", ""))
    data["manager_id"] = form.get("manager_id", "").strip() or None
    return _validate(PersonUpdate, data, fields=PROFILE_FIELDS, lang=lang)


def person_create(form: dict[str, str], *, lang: str = "en") -> PersonCreate:
    """The new-person form as `POST /v1/persons` takes it, with at most one channel binding."""
    screen(form, lang)
    data: dict[str, Any] = {
        name: form[name].strip()
        for name in ("person_id", "display_name", "role", "manager_id", "timezone", "locale")
        if form.get(name, "").strip()
    }
    data["aliases"] = _aliases(form.get("aliases", ""))
    if form.get("external_user_id", "").strip():
        binding = {"channel": form.get("channel", ""), "external_user_id": form["external_user_id"].strip()}
        if form.get("chat_id", "").strip():
            binding["chat_id"] = form["chat_id"].strip()
        data["channel_bindings"] = [binding]
    return _validate(PersonCreate, data, fields=CREATE_FIELDS, lang=lang)


def policy_values(policy: Any, *, tz: ZoneInfo) -> dict[str, str]:
    """A stored policy in the form's spelling (what the form shows before any edit)."""
    paused = policy.paused_until.astimezone(tz).strftime("%Y-%m-%dT%H:%M") if policy.paused_until else ""
    return {
        "allow_proactive_ping": "true" if policy.allow_proactive_ping else "false",
        "max_proactive_contacts_per_day": str(policy.max_proactive_contacts_per_day),
        "preferred_channel": policy.preferred_channel or "",
        "quiet_hours": ", ".join(f"{w.start}-{w.end}" for w in policy.quiet_hours),
        "quiet_days": ",".join(str(d) for d in policy.quiet_days),
        "paused_until": paused,
        "follow_up_stretch": f"{policy.follow_up_stretch:g}",
    }
