"""What the bot answers back: the words of a reply by its template, and the buttons of a question it asks back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from cognitive_core.reports import summaries
from cognitive_core.situation import Situation
from concern.commands import Reply
from concern.kinds import reminders
from concern.texts import messages, replies
from kernel.context import UnitOfWork
from person import service as persons


def _did(uow: UnitOfWork, values: dict[str, Any], sender: Any, tz: ZoneInfo) -> str:
    return summaries.did(
        uow,
        viewer_id=sender.person_id,
        viewer_role=sender.role,
        locale=sender.locale,
        tz=tz,
        window=timedelta(seconds=values["window_s"]),
        today=values["today"],
        person_id=values.get("person_id"),
        everything=bool(values.get("everything")),
    )


def _past(uow: UnitOfWork, values: dict[str, Any], sender: Any, tz: ZoneInfo) -> str:
    when = messages.when(datetime.fromisoformat(values["at"]), tz, sender.locale, now=uow.now)
    return reminders.render("past", sender.locale, when=when)


def _confirm(uow: UnitOfWork, values: dict[str, Any], sender: Any, tz: ZoneInfo) -> str:
    """`要我去问张三：“…”吗？`: the first contact through a learned phrasing, said before it is made."""
    target = persons.get(uow, person_id=values["target_person_id"]) if values.get("target_person_id") else None
    name = target.display_name if target else ""
    return replies.reply(f"confirm_{values['intent']}", sender.locale, target=name, text=values.get("text", ""))


# Replies whose words are read from the records; every other template is a line of concern.replies.
READ: dict[str, Callable[[UnitOfWork, dict[str, Any], Any, ZoneInfo], str]] = {
    "did": _did,
    "concerns": lambda uow, v, s, tz: (
        summaries.status_of(uow, viewer_id=s.person_id, person_id=v["target_person_id"], locale=s.locale, tz=tz)
        if v.get("target_person_id")
        else summaries.concerns(uow, viewer_id=s.person_id, locale=s.locale, tz=tz)
    ),
    "reminders": lambda uow, v, s, tz: reminders.listing(uow, person_id=s.person_id, locale=s.locale, tz=tz),
    "remind_past": _past,
    "learned_confirm": _confirm,
}


def text(uow: UnitOfWork, command: Reply, situation: Situation) -> str:
    """The reply's words, in the sender's language and timezone."""
    sender, values = situation.sender, command.values
    tz = ZoneInfo(sender.timezone)  # the directory copy this transaction checked is current
    if (read := READ.get(command.template)) is not None:
        return read(uow, values, sender, tz)
    target = persons.get(uow, person_id=values["target_person_id"]) if values.get("target_person_id") else None
    names = [persons.get(uow, person_id=p) for p in values.get("choices", []) if isinstance(p, str)]
    return replies.reply(
        command.template,
        sender.locale,
        who=values.get("who", ""),
        command=values.get("command", ""),
        role=sender.role,
        hint=values.get("hint", "ask"),
        target=target.display_name if target else "",
        names=" / ".join(p.display_name for p in names if p),
    )


def _people(uow: UnitOfWork, values: dict[str, Any], locale: str) -> list[tuple[str, str, dict]]:
    people = [persons.get(uow, person_id=p) for p in values["choices"]]
    return [("pick_person", p.display_name, {"person_id": p.person_id, **values["request"]}) for p in people if p]


def _ask_or_tell(uow: UnitOfWork, values: dict[str, Any], locale: str) -> list[tuple[str, str, dict]]:
    pending = {"person_id": values["target_person_id"], **values["request"]}
    labels = {verb: replies.ASK_OR_TELL.text(verb, locale) for verb in ("ask", "tell")}
    return [("ask_or_tell", labels[verb], pending | {"as": verb}) for verb in ("ask", "tell")]


def _guesses(uow: UnitOfWork, values: dict[str, Any], locale: str) -> list[tuple[str, str, dict]]:
    """The classifier's readings (language.guesses), each a button labelled in the sender's language."""
    out = []
    for guess in values["guesses"]:
        target = persons.get(uow, person_id=guess["person_id"]) if guess.get("person_id") else None
        label = replies.GUESSES.text(guess["intent"], locale, target=target.display_name if target else "")
        out.append((guess["verb"], label, guess["args"]))
    return out


def _which(verb: str) -> Callable[[UnitOfWork, dict[str, Any], str], list[tuple[str, str, dict]]]:
    return lambda uow, values, locale: [(verb, q, {"concern_id": cid}) for cid, q in values["choices"]]


# The buttons a question back carries: who was meant, ask or tell, which reading, which open question.
CHOICES: dict[str, Callable[[UnitOfWork, dict[str, Any], str], list[tuple[str, str, dict]]]] = {
    "did_you_mean_person": _people,
    "ask_or_tell": _ask_or_tell,
    "did_you_mean": _guesses,
    "learned_confirm": lambda uow, values, locale: _guesses(uow, {"guesses": [values["button"]]}, locale),
    "nudge_which": _which("nudge_pick"),
    "cancel_which": _which("cancel_pick"),
    "reminders": lambda uow, values, locale: reminders.cancel_buttons(
        uow, person_id=values["viewer_id"], locale=locale
    ),
    "concerns": lambda uow, values, locale: (
        []
        if values.get("target_person_id")
        else summaries.concern_buttons(uow, viewer_id=values["viewer_id"], locale=locale)
    ),
}


def choices(uow: UnitOfWork, command: Reply, locale: str, *, viewer_id: str) -> list[tuple[str, str, dict]]:
    """(verb, label, args) of each button the reply to `viewer_id` carries (none for most replies)."""
    make = CHOICES.get(command.template)
    return make(uow, {**command.values, "viewer_id": viewer_id}, locale) if make is not None else []
