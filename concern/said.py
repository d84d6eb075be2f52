"""What a person reads of an outcome, in their language and timezone: in the chat they wrote in, or under the
message whose button they pressed. Two tables keyed by the outcome's code; the engine's own words (`text`) win.

A door asks `in_chat` (None: nothing to say now; the effect speaks later, e.g. "已发给张三" once the question went
out) or `under_press` (always a line: a press is always answered under its message).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from concern import service
from concern.kinds import promises, reminders
from concern.outcomes import Outcome
from concern.texts import messages, reasons, replies
from concern.texts.press import press_text
from kernel.context import UnitOfWork
from person import service as persons


@dataclass(frozen=True)
class Said:
    """A chat answer: its text, its key, and to whom."""

    text: str
    key: str | None = None  # a key of its own (told once per loop); None: the door's `<signal>:<suffix>`
    suffix: str = "reply"
    to: str | None = None  # a person other than the actor, answered in their own chat (someone just bound)
    stranger: bool = False  # nobody the bot knows: the chat itself, in both languages
    buttons: str | None = None  # the set (concern.buttons.SETS) the answer carries, about `concern_id`
    concern_id: str | None = None


def _when(uow: UnitOfWork, person: Any, instant: datetime) -> str:
    return messages.when(instant, ZoneInfo(person.timezone), person.locale, now=uow.now)


def _refused_limit(uow: UnitOfWork, outcome: Outcome, reader: Any) -> Said:
    target = persons.get(uow, person_id=outcome.values["target"])
    name = target.display_name if target else outcome.values["target"]
    reason = reasons.not_done({"blocked_by": outcome.values["blocked_by"]}, reader.locale, target=name)
    return Said(replies.reply("refused_limit", reader.locale, target=name, reason=reason))


def _cannot_cancel(uow: UnitOfWork, outcome: Outcome, reader: Any) -> Said:
    locale, state = reader.locale, outcome.values.get("state") or ""
    why = replies.reply(outcome.code, locale, state=reasons.state(state, locale) if state else "")
    return Said(replies.reply("cannot_cancel", locale, concern_id=outcome.concern_id or "", reason=why))


def not_snoozed(outcome: Outcome, locale: str) -> str:
    """Why a loop was not put off: escalated (to whom) or closed (how), in the reader's language."""
    if outcome.code == "snooze_escalated":
        manager = outcome.values.get("manager") or ""
        return replies.reply("snooze_escalated" if manager else "snooze_escalated_nobody", locale, manager=manager)
    state = outcome.values.get("state") or ""
    return replies.reply("snooze_closed", locale, state=reasons.state(state, locale) if state else "")


def _bound(uow: UnitOfWork, outcome: Outcome, reader: Any) -> Said:
    person = persons.get(uow, person_id=outcome.values["person_id"]) if outcome.values.get("person_id") else None
    if person is None:  # an unknown sender with a wrong code: answered in their chat, in both languages
        return Said(replies.to_stranger(outcome.code), suffix="bind", stranger=True)
    text = replies.reply(outcome.code, person.locale, name=person.display_name)
    return Said(text, suffix="bind", to=person.person_id)


def _reminder_set(uow: UnitOfWork, outcome: Outcome, reader: Any) -> Said:
    concern = service.get_or_404(uow, concern_id=outcome.concern_id or "")
    return Said(reminders.confirmation(uow, concern), buttons="reminder_set", concern_id=concern.concern_id)


Renderer = Callable[[UnitOfWork, Outcome, Any], Said]

CHAT: dict[str, Renderer] = {
    "refused_limit": _refused_limit,
    "reminder_set": _reminder_set,
    "passed_on": lambda uow, o, r: Said(replies.reply("passed_on", r.locale, asker=o.values["asker"])),
    "snoozed": lambda uow, o, r: Said(replies.reply("snoozed", r.locale, until=_when(uow, r, o.values["until"]))),
    "cancelled": lambda uow, o, r: Said(
        replies.reply("cancelled", r.locale, concern_id=o.concern_id or ""),
        key=f"{o.concern_id}:outcome:cancelled",  # how the loop ends for its originator: told once
    ),
    "cancel_not_found": _cannot_cancel,
    "cancel_not_yours": _cannot_cancel,
    "cancel_closed": _cannot_cancel,
    "snooze_escalated": lambda uow, o, r: Said(not_snoozed(o, r.locale)),
    "snooze_closed": lambda uow, o, r: Said(not_snoozed(o, r.locale)),
    "extended": lambda uow, o, r: Said(promises.render("extended", r.locale, when=_when(uow, r, o.values["until"]))),
    "bound": _bound,
    "bind_used": _bound,
    "bind_too_many": _bound,
    "bind_failed": _bound,
}


def in_chat(uow: UnitOfWork, outcome: Outcome, *, reader_id: str | None) -> Said | None:
    """What the actor is told in their chat now, or None (nothing, or the effect tells them when it happens)."""
    reader = persons.get(uow, person_id=reader_id) if reader_id else None
    if outcome.code in ("bound", "bind_used", "bind_too_many", "bind_failed"):
        return _bound(uow, outcome, reader)
    if reader is None:
        return None
    if outcome.text is not None:
        return Said(outcome.text)
    render = CHAT.get(outcome.code)
    return render(uow, outcome, reader) if render is not None else None


PRESS: dict[str, Callable[[UnitOfWork, Outcome, Any], str]] = {
    "snoozed": lambda uow, o, r: press_text("later", r.locale, until=_when(uow, r, o.values["step_at"])),
    "reminder_later": lambda uow, o, r: reminders.render("later", r.locale, until=_when(uow, r, o.values["until"])),
    "tomorrow": lambda uow, o, r: press_text("tomorrow", r.locale, until=_when(uow, r, o.values["until"])),
    "cancelled": lambda uow, o, r: press_text("cancelled", r.locale, **o.values),
    "decided": lambda uow, o, r: press_text("decided", r.locale, **o.values),
    "not_me": lambda uow, o, r: press_text("not_me", r.locale, **o.values),
    "reassign": lambda uow, o, r: press_text("reassign", r.locale),
    "wait_back": lambda uow, o, r: press_text("wait_back", r.locale, target=o.values.get("target", "")),
    "reminder_done": lambda uow, o, r: reminders.render("done", r.locale),
    "done": lambda uow, o, r: press_text("done", r.locale, **o.values),
    "extended": lambda uow, o, r: press_text("extended", r.locale, until=_when(uow, r, o.values["until"])),
    "snooze_escalated": lambda uow, o, r: not_snoozed(o, r.locale),
    "snooze_closed": lambda uow, o, r: press_text("nothing", r.locale),
}


def under_press(uow: UnitOfWork, outcome: Outcome, *, presser: Any) -> str:
    """The line shown under a pressed message: what the press did, or "already closed" when it did nothing."""
    if outcome.text is not None:
        return outcome.text
    render = PRESS.get(outcome.code)
    return render(uow, outcome, presser) if render is not None else press_text("nothing", presser.locale)
