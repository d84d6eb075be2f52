"""The person page's learned phrasings: how this principal was understood after correcting the bot, and Remove.

Its own module and partial (`partials/phrasings.html`). Each row is a `phrasing` fact read back by
`cognitive_core.phrasings` (what was said, what it is read as, when and how it was taught, whether a contact through
it was confirmed); Remove (admins, with the session's CSRF token) writes the phrasing's tombstone fact under the
session's actor, and the next message in that shape is no longer read through it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from app.console.web import Changing, Shared
from cognitive_core import phrasings
from cognitive_core.language import learned, shapes
from kernel.catalogue import Catalogue
from kernel.context import AppContext
from kernel.errors import NotFound
from person import service as persons

router = APIRouter(prefix="/console", include_in_schema=False)

WORDS = Catalogue.columns(
    "app.console.phrasings",
    ("en", "zh"),
    {
        "heading": ("Learned phrasings", "学会的说法"),
        "intro": (
            "Ways of saying things learned from this principal's corrections: read the same way next time.",
            "从这位负责人的纠正中学会的说法，下次照此理解。",
        ),
        "none": ("Nothing learned yet.", "还没有学会的说法。"),
        "said": ("Said", "原话"),
        "shape": ("Shape", "说法"),
        "means": ("Read as", "理解为"),
        "taught": ("Taught", "学会于"),
        "how": ("How", "方式"),
        "how_press": ("picked a suggested reading", "点选了建议"),
        "how_reword": ("said it again in other words", "换了个说法"),
        "asks_first": ("confirms before the first contact", "首次联系前先确认"),
        "direct": ("acts directly", "直接办理"),
        "remove": ("Remove", "删除"),
        "person": ("someone", "某人"),
        "body": ("message", "内容"),
        "ask": ("ask them", "去问"),
        "tell": ("pass it on", "转告"),
        "nudge": ("nudge them", "催一下"),
        "cancel": ("drop the question", "不再问"),
        "status": ("has anyone replied", "回复了吗"),
        "did": ("what was done", "做了什么"),
        "brief": ("the brief", "简报"),
        "review": ("the weekly review", "每周回顾"),
        "reminders": ("my reminders", "我的提醒"),
        "help": ("what can you do", "能做什么"),
        "resume": ("resume my messages", "恢复消息"),
    },
)
_HEADINGS = ("heading", "intro", "none", "said", "shape", "means", "taught", "how", "remove")


def _shown(shape: str, lang: str) -> str:
    """A shape as an operator reads it: its slots named in their language."""
    slots = {shapes.PERSON: "person", shapes.BODY: "body"}
    for slot, word in slots.items():
        shape = shape.replace(slot, f"‹{WORDS.text(word, lang)}›")
    return shape


def section(ctx: AppContext, *, person_id: str, lang: str) -> dict[str, Any]:
    """What the partial shows, in the console reader's language (nothing learned: an empty list)."""
    with ctx.reader() as uow:
        taught = phrasings.of(uow, principal_id=person_id)
    rows = [
        {
            "id": p.phrasing_id,
            "said": p.example,
            "shape": _shown(p.shape, lang),
            "means": WORDS.text(p.intent, lang),
            "taught_at": p.taught_at,
            "how": WORDS.text(f"how_{p.how}", lang),
            "state": WORDS.text("asks_first" if p.intent in learned.CONTACTS and not p.confirmed else "direct", lang),
        }
        for p in taught
    ]
    return {"words": {key: WORDS.text(key, lang) for key in _HEADINGS}, "rows": rows}


@router.post("/persons/{person_id}/phrasings/{phrasing_id}/remove")
def remove(person_id: str, phrasing_id: str, shared: Shared, session: Changing) -> Response:
    """Forget one learned phrasing: its tombstone fact, by the session's actor."""
    with shared.ctx.uow(actor=session.caller.name) as uow:
        persons.get_or_404(uow, person_id=person_id)
        if not phrasings.remove(uow, principal_id=person_id, phrasing_id=phrasing_id):
            raise NotFound(f"phrasing {phrasing_id} is not one of {person_id}'s", field="phrasing_id")
    return RedirectResponse(f"/console/persons/{person_id}?saved=removed#phrasings", status_code=303)
