"""What the bot answers back: the text of a reply decision and the buttons of a question it asks back."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from cognitive_core import rules, summaries
from concern import messages, reminders, replies
from kernel.context import UnitOfWork
from person import service as persons


def text(uow: UnitOfWork, decision: rules.Decision, situation: rules.Situation) -> str:
    """The reply a decision of kind `reply` asks for, in the sender's language and timezone."""
    sender = situation.sender
    params = decision.params
    tz = ZoneInfo(persons.get(uow, person_id=sender.person_id).timezone)
    if params["template"] == "did":
        return summaries.did(
            uow,
            viewer_id=sender.person_id,
            viewer_role=sender.role,
            locale=sender.locale,
            tz=tz,
            window=timedelta(seconds=params["window_s"]),
            today=params["today"],
            person_id=params.get("person_id"),
        )
    if params["template"] == "concerns":
        return summaries.concerns(uow, viewer_id=sender.person_id, locale=sender.locale, tz=tz)
    if params["template"] == "reminders":
        return reminders.listing(uow, person_id=sender.person_id, locale=sender.locale, tz=tz)
    if params["template"] == "remind_past":
        when = messages.when(datetime.fromisoformat(params["at"]), tz, sender.locale, now=uow.now)
        return reminders.render("past", sender.locale, when=when)
    target = persons.get(uow, person_id=params["target_person_id"]) if params.get("target_person_id") else None
    names = [persons.get(uow, person_id=p) for p in params.get("choices", []) if isinstance(p, str)]
    return replies.reply(
        params["template"],
        sender.locale,
        who=params.get("who", ""),
        command=params.get("command", ""),
        role=sender.role,
        hint=params.get("hint", "ask"),
        target=target.display_name if target else "",
        names=" / ".join(p.display_name for p in names if p),
    )


def choices(uow: UnitOfWork, decision: rules.Decision, locale: str) -> list[tuple[str, str, dict]]:
    """The buttons a question back carries: who was meant, ask or tell, which open question."""
    params, template = decision.params, decision.params.get("template")
    if template == "did_you_mean_person":
        people = [persons.get(uow, person_id=p) for p in params["choices"]]
        return [("pick_person", p.display_name, {"person_id": p.person_id, **params["request"]}) for p in people if p]
    if template == "ask_or_tell":
        pending = {"person_id": params["target_person_id"], **params["request"]}
        labels = {verb: replies.ASK_OR_TELL.text(verb, locale) for verb in ("ask", "tell")}
        return [("ask_or_tell", labels[verb], pending | {"as": verb}) for verb in ("ask", "tell")]
    if template in ("nudge_which", "cancel_which"):
        verb = template.removesuffix("_which") + "_pick"
        return [(verb, question, {"concern_id": concern_id}) for concern_id, question in params["choices"]]
    return []
