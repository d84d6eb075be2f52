"""Who a person filter means: a `p_…` id, a display name or an alias (exact first, then a part of one).

Every filter of the console takes what an operator would type ("张三", "Zhang San", "p_zhangsan"); when the text
names no one, or several people, the page says so instead of showing an empty list.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from app.console.i18n import Translator
from kernel.context import UnitOfWork
from person import service
from person.models import Person

SUGGESTIONS = 300  # names offered as you type (a datalist); larger teams type more letters


@dataclass(frozen=True)
class Resolved:
    """The person a filter names (`person_id`), or why it names no one (`problem`, in the reader's words)."""

    person_id: str | None = None
    name: str = ""
    problem: str | None = None
    candidates: list[Person] = field(default_factory=list)


def _names(person: Person) -> list[str]:
    return [person.display_name, *person.aliases]


def resolve(uow: UnitOfWork, text: str, t: Translator) -> Resolved:
    """The one person `text` names, exactly by id, name or alias, else as the only partial match."""
    text = text.strip()
    if not text:
        return Resolved()
    exact = service.get(uow, person_id=text)
    if exact is not None:
        return Resolved(exact.person_id, exact.display_name)
    found, _ = service.list_(uow, q=text, active=None, limit=20)
    wanted = text.casefold()
    same = [p for p in found if wanted in (n.casefold() for n in _names(p))]
    matches = same or found
    if len(matches) == 1:
        return Resolved(matches[0].person_id, matches[0].display_name)
    if not matches:
        return Resolved(problem=t("no_person_named", name=text))
    sep, left, right = ("、", "（", "）") if t.lang == "zh" else (", ", " (", ")")
    names = sep.join(f"{p.display_name}{left}{p.person_id}{right}" for p in matches[:8])
    return Resolved(problem=t("several_named", name=text, names=names), candidates=matches)


def suggestions(uow: UnitOfWork) -> list[tuple[str, str]]:
    """(what to type, whom it names) for the filters' datalist: every active person's name and aliases."""
    stmt = select(Person).where(Person.active.is_(True)).order_by(Person.display_name).limit(SUGGESTIONS)
    offered: dict[str, str] = {}
    for person in uow.session.scalars(stmt):
        for name in _names(person):
            offered.setdefault(name, f"{person.display_name} · {person.person_id}")
    return list(offered.items())
