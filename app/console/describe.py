"""What a fact or an action says, in one line an operator reads, and every id in a text made a link."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup, escape
from sqlalchemy import select

from app.console.i18n import Translator
from concern.texts import messages, reasons
from kernel.context import UnitOfWork
from person.models import Person

ID = re.compile(r"\b(?:fact|dec|con|act)_\d{8}_\d{3,}\b|\bp_[a-z0-9_]{1,48}\b")
SIGNALS = ("message_received", "external_signal", "button_pressed", "llm_proposal")


def href(ref: str) -> str:
    """The console page of an id: a fact or decision, a loop, an action, a person."""
    prefix = ref.split("_", 1)[0]
    return {
        "fact": f"/console/facts/{ref}",
        "dec": f"/console/facts/{ref}",
        "con": f"/console/concerns/{ref}",
        "act": f"/console/actions/{ref}",
        "p": f"/console/persons/{ref}",
    }.get(prefix, "/console")


def linkify(text: str) -> Markup:
    """`text` escaped, with every fact, decision, loop, action and person id a link to its page."""
    out, last = [], 0
    for match in ID.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(Markup('<a href="{}">{}</a>').format(href(match.group()), match.group()))
        last = match.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


def pretty(content: Any) -> Markup:
    """JSON indented for reading, ids linked."""
    return linkify(json.dumps(content, ensure_ascii=False, indent=2, sort_keys=True, default=str))


def names(uow: UnitOfWork, ids: Iterable[str | None]) -> dict[str, str]:
    """Display names of the given person ids (unknown ids are left out)."""
    wanted = {i for i in ids if i}
    if not wanted:
        return {}
    stmt = select(Person.person_id, Person.display_name).where(Person.person_id.in_(wanted))
    return dict(uow.session.execute(stmt).all())


def reason(detail: dict[str, Any], t: Translator, *, target: str, tz: ZoneInfo, now: datetime) -> str:
    """Why an action was held back or failed, in the reader's language (from its codes, as people are told)."""
    until = None
    if detail.get("not_before"):
        until = messages.when(datetime.fromisoformat(detail["not_before"]), tz, t.lang, now=now)
    return reasons.why(detail, t.lang, target=target, until=until)


def action_line(record: dict[str, Any], t: Translator, *, who: dict[str, str], tz: ZoneInfo, now: datetime) -> str:
    """`question → 张三: held back — 张三 is in quiet hours until tomorrow 08:00`."""
    target = who.get(record.get("target_person_id") or "", record.get("target_person_id") or "")
    line = f"{t.action_type(record['action_type'])} → {target}: {t.result(record['result'])}"
    if record["result"] in ("blocked", "failed"):
        line += " — " + reason(record.get("result_detail") or {}, t, target=target, tz=tz, now=now)
    return line


def _joined(*parts: str) -> str:
    return " · ".join(p for p in parts if p)


def fact_line(fact: Any, t: Translator, *, who: dict[str, str], tz: ZoneInfo, now: datetime) -> str:
    """One line saying what a fact records, every code in the reader's words."""
    c = fact.content
    if fact.fact_type == "message_received":
        sender = who.get(c.get("person_id") or "", c.get("external_user_id", "?"))
        return f"{sender} ({t.channel(c.get('channel', ''))}): “{c.get('text', '')}”"
    if fact.fact_type == "button_pressed":
        presser = who.get(c.get("person_id") or "", c.get("external_user_id", "?"))
        pressed = f"{t('day_pressed')} “{t.verb(c.get('verb'))}”" if c.get("verb") else t("day_pressed")
        return f"{presser} ({t.channel(c.get('channel', ''))}): {pressed} {c.get('concern_id') or ''}".strip()
    if fact.fact_type == "llm_proposal":
        proposal = c.get("proposal") or {}
        said = t.code("rule", proposal.get("intent")) if proposal else t.code("code", c.get("status"))
        person = who.get(proposal.get("person") or "", proposal.get("person") or "") if proposal else ""
        return f"{t.code('code', 'llm')} ({c.get('message_fact_id', '')}): {_joined(said, person)}"
    if fact.fact_type == "external_signal":
        return f"{c.get('source')}/{c.get('signal_type')} {json.dumps(c.get('content', {}), ensure_ascii=False)}"
    if fact.fact_type == "decision":
        return _joined(t.code("kind", c.get("kind")), t.code("rule", c.get("rule"))) or t("fact_decision")
    if fact.fact_type == "concern_changed":
        before, after = (c.get("before") or {}).get("state"), (c.get("after") or {}).get("state")
        moved = f": {t.state(before)} → {t.state(after)}" if before and after and before != after else ""
        extra = t.code("code", c.get("blocked_by")) or t.code("purpose", c.get("step"))
        change = t.code("change", c.get("change")) or t("fact_concern_changed")
        return f"{c.get('concern_id')} {change}{moved}" + (f" ({extra})" if extra else "")
    if fact.fact_type == "action_result":
        preview = c.get("content_preview") or ""
        return action_line(c, t, who=who, tz=tz, now=now) + (f" · “{preview}”" if preview else "")
    if fact.fact_type == "person_changed":
        person = who.get(c.get("person_id") or "", c.get("person_id") or "")
        return f"{person} {t.code('change', c.get('change')) or t('fact_person_changed')} · {c.get('actor')}"
    if fact.fact_type == "phrasing":  # learned, confirmed or removed: whose, and what was said
        principal = who.get(c.get("principal_id") or "", c.get("principal_id") or "")
        said = f" “{c['example']}”" if c.get("example") else ""
        return f"{principal} {t.code('event', c.get('event'))}{said}".strip()
    return f"{t.code('event', c.get('event') or fact.fact_type)} {c.get('message', '')}".strip() or t("fact_system")


def people_in(facts: Iterable[Any]) -> set[str]:
    """The person ids a set of facts names (for one lookup of their display names)."""
    found: set[str] = set()
    for fact in facts:
        found.update(fact.person_refs or [])
        for key in ("person_id", "target_person_id"):
            if isinstance(fact.content.get(key), str):
                found.add(fact.content[key])
    return found
