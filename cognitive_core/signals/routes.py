"""The routing table for external signals (DEPUTY_SIGNAL_ROUTES): models, loading, and the pure reading of a route.

A route maps a signal type to what the core does: `notify` the recipients, or `raise` a question to them on behalf
of the route's originator. The recipient is the signal's top-level `person_id` or a field of its content (a list
field reaches each person in it). Loading validates every route and names the one that is wrong.
"""

from __future__ import annotations

import json
import re
import string
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kernel.catalogue import Catalogue, pick

_FIELD = r"content\.[A-Za-z_][A-Za-z0-9_]*"
_PERSON = r"^p_[a-z0-9_]{1,48}$"


class SignalRoute(BaseModel):
    """One route: signal type → action, recipient, notification type (and for `raise`, originator and deadline)."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["notify", "raise"]
    recipient: str = Field(pattern=rf"^(?:person_id|{_FIELD})$")
    notification_type: str | None = Field(None, pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    originator: str | None = Field(None, pattern=_PERSON)
    deadline: str | None = Field(None, pattern=rf"^{_FIELD}$")
    priority: str | None = Field(None, pattern=r"^P[0-3]$")
    # The words, per language, with {field} for content fields and {signal_type}, {source}; default: a generic line.
    template: dict[Literal["zh", "en"], str] = Field(default_factory=dict)
    # List the signal in the brief of the recipient's manager when that manager is a principal.
    brief_manager: bool = False

    @field_validator("template")
    @classmethod
    def _plain_fields(cls, value: dict[str, str]) -> dict[str, str]:
        for text in value.values():
            for _, name, spec, conversion in string.Formatter().parse(text):
                if name is not None and (not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or spec or conversion):
                    raise ValueError(f"template field {{{name}}} must be a plain content field name")
        return value

    @model_validator(mode="after")
    def _raise_needs_originator(self) -> SignalRoute:
        if self.action == "raise" and self.originator is None:
            raise ValueError("a raise route needs an originator (a person id)")
        if self.action == "notify" and (self.originator or self.deadline):
            raise ValueError("originator and deadline belong to raise routes")
        return self


def _short(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'route'}: {e['msg']}" for e in exc.errors())


def load(value: Any) -> dict[str, SignalRoute]:
    """Inline JSON, `@path/to/routes.yaml` (YAML or JSON), or a mapping → validated routes; errors name the route."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return {}
        if text.startswith("@"):
            path = Path(text[1:])
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"signal routes file {path}: {exc.strerror or exc}") from exc
            import yaml  # only a routes file needs the YAML parser

            try:
                value = yaml.safe_load(text) or {}
            except yaml.YAMLError as exc:
                raise ValueError(f"signal routes file {path} is not valid YAML: {exc}") from exc
        else:
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"signal routes are not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ValueError("signal routes must be a mapping of signal type to route")
    routes: dict[str, SignalRoute] = {}
    for name, raw in value.items():
        if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", str(name)):
            raise ValueError(f"signal route {name!r}: the signal type must be 1–64 of A-Z a-z 0-9 _ . : -")
        if isinstance(raw, SignalRoute):
            routes[name] = raw
            continue
        try:
            routes[name] = SignalRoute.model_validate(raw)
        except ValidationError as exc:
            raise ValueError(f"signal route {name!r}: {_short(exc)}") from None
    return routes


def recipients(route: SignalRoute, content: dict[str, Any]) -> list[str]:
    """The person ids a route reaches for one signal (a list field: each, in order, once)."""
    if route.recipient == "person_id":
        found: Any = content.get("person_id")
    else:
        found = (content.get("content") or {}).get(route.recipient.removeprefix("content."))
    values = found if isinstance(found, list) else [found]
    seen: list[str] = []
    for v in values:
        if isinstance(v, str) and re.fullmatch(_PERSON, v) and v not in seen:
            seen.append(v)
    return seen


def deadline(route: SignalRoute, content: dict[str, Any]) -> datetime | None:
    """The raise's deadline from its content field (an aware ISO moment), or None."""
    if route.deadline is None:
        return None
    raw = (content.get("content") or {}).get(route.deadline.removeprefix("content."))
    try:
        moment = datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""


TEXTS = Catalogue(
    "cognitive_core.signal_routes",
    {"generic": {"zh": "来自 {source} 的消息：{summary}", "en": "From {source}: {summary}"}},
)


def text(route: SignalRoute, content: dict[str, Any], locale: str) -> str:
    """The words a recipient reads: the route's template (the one fallback rule), or a generic line with the summary."""
    fields = content.get("content") or {}
    values = _Blank({k: v for k, v in fields.items() if isinstance(v, (str, int, float))})
    values.update(signal_type=content.get("signal_type", ""), source=content.get("source", ""))
    summary = next((str(fields[k]) for k in ("text", "title", "summary", "name") if fields.get(k)), "")
    values.setdefault("summary", summary or content.get("signal_type", ""))
    template = pick(route.template, locale) or TEXTS.template("generic", locale)
    return template.format_map(values).strip()
