"""`/console/sandbox`: try the whole story as anyone, with no platform account (admins, every channel dry-run)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select

from app.console import sandbox
from app.console.web import Changing, Form, Refused, Shared, Viewing, translator
from kernel.catalogue import Catalogue
from person.models import Person

router = APIRouter(prefix="/console", include_in_schema=False)
WORDS = Catalogue.columns(
    "app.console.sandbox",
    ("en", "zh"),
    {
        "title": ("Sandbox", "沙盒"),
        "intro": (
            "Talk to Deputy as anyone: what you type or press here is recorded like a platform message, marked as "
            "sandbox, and what it causes is never sent on a live channel.",
            "以任何人的身份与 Deputy 对话：在这里输入或点击的内容会像平台消息一样记录，并标记为沙盒；"
            "由它引起的任何消息都不会在真实渠道上发出。",
        ),
        "off": (
            "The sandbox is off while a channel is live: {channels}. Add every channel to DEPUTY_DRY_RUN_CHANNELS "
            "to try things here.",
            "有渠道处于真实发送状态时沙盒关闭：{channels}。请把所有渠道加入 DEPUTY_DRY_RUN_CHANNELS 后再在这里试用。",
        ),
        "as": ("Speak as", "身份"),
        "say": ("Send", "发送"),
        "placeholder": ("Type as {name}…", "以{name}的身份输入…"),
        "nobody": (
            "Nobody has a channel binding yet: add a person with one first.",
            "还没有人绑定渠道，请先添加一个。",
        ),
        "unbound": (
            "{name} has no channel binding: the sandbox cannot speak as them.",
            "{name}没有绑定渠道，无法代其发言。",
        ),
        "empty": ("No messages yet. Type something, for example /help.", "还没有消息。试着输入 /help。"),
        "toast": ("The platform would show: {text}", "平台会提示：{text}"),
        "sandbox_mark": ("sandbox", "沙盒"),
        "refresh": ("Refresh", "刷新"),
        "no_text": ("Type a message first.", "请先输入消息。"),
    },
)


def _words(lang: str) -> dict[str, str]:
    return {key: WORDS.template(key, lang) for key in WORDS}


def _page(request: Request, shared: Shared, *, person_id: str, status: int = 200, **values) -> Response:
    lang = translator(request).lang
    live = sandbox.live_channels(shared.ctx)
    found = chat = None
    with shared.ctx.reader() as uow:
        people = list(uow.session.scalars(select(Person).where(Person.active.is_(True)).order_by(Person.person_id)))
        chosen = next((p for p in people if p.person_id == person_id), people[0] if people else None)
        if chosen is not None and not live:
            found = sandbox.binding(uow, person_id=chosen.person_id)
            chat = sandbox.chat(uow, person_id=chosen.person_id) if found else []
    names = ", ".join(translator(request).channel(c) for c in live)
    template = "partials/sandbox_chat.html" if request.headers.get("hx-request") else "sandbox.html"
    return shared.page(
        request,
        template,
        status=status,
        title=WORDS.text("title", lang),
        w=_words(lang),
        off=WORDS.text("off", lang, channels=names) if live else "",
        people=people,
        chosen=chosen,
        bound=found,
        chat=chat,
        placeholder=WORDS.text("placeholder", lang, name=chosen.display_name) if chosen else "",
        unbound=WORDS.text("unbound", lang, name=chosen.display_name) if chosen and not found else "",
        **values,
    )


def _admin_only(session) -> None:
    if not session.admin:
        raise Refused("forbidden_viewer")


@router.get("/sandbox", response_class=HTMLResponse)
def page(request: Request, shared: Shared, session: Viewing, person_id: str = Query("", max_length=64)) -> Response:
    """Each person's conversation as a chat, with a box to type as them and the buttons they got."""
    _admin_only(session)
    return _page(request, shared, person_id=person_id)


def _speaker(request: Request, shared: Shared, person_id: str):
    """The binding to speak as, or why not (409: a live channel; 422: no such bound person)."""
    lang = translator(request).lang
    if live := sandbox.live_channels(shared.ctx):
        names = ", ".join(translator(request).channel(c) for c in live)
        return None, _page(
            request, shared, person_id=person_id, status=409, problem=WORDS.text("off", lang, channels=names)
        )
    with shared.ctx.reader() as uow:
        found = sandbox.binding(uow, person_id=person_id) if person_id else None
    if found is None:
        problem = WORDS.text("unbound", lang, name=person_id or "—")
        return None, _page(request, shared, person_id=person_id, status=422, problem=problem)
    return found, None


@router.post("/sandbox/say", response_class=HTMLResponse)
def say(request: Request, shared: Shared, _: Changing, form: Form) -> Response:
    """Record what was typed as the person's message (through the inbound port), then show the chat."""
    person_id, text = form.get("person_id", ""), form.get("text", "").strip()
    found, refused = _speaker(request, shared, person_id)
    if refused is not None:
        return refused
    if not text or len(text) > 4000:
        problem = WORDS.text("no_text", translator(request).lang)
        return _page(request, shared, person_id=person_id, status=422, problem=problem)
    sandbox.say(shared.ctx, person=found, text=text)
    return RedirectResponse(f"/console/sandbox?person_id={person_id}", status_code=303)


@router.post("/sandbox/press", response_class=HTMLResponse)
def press(request: Request, shared: Shared, _: Changing, form: Form) -> Response:
    """Press a button as the person it was sent to; the chat comes back with the platform's toast."""
    person_id, token = form.get("person_id", ""), form.get("token", "")
    found, refused = _speaker(request, shared, person_id)
    if refused is not None:
        return refused
    if not token or len(token) > 40:
        return _page(request, shared, person_id=person_id, status=422, problem=translator(request)("not_found"))
    answer = sandbox.press(shared.ctx, person=found, token=token)
    toast = WORDS.text("toast", translator(request).lang, text=answer.toast)
    return _page(request, shared, person_id=person_id, toast=toast)
