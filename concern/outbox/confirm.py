"""Confirmations once an action has a result: a relayed message told (or held, or why not), a policy change made;
and what every result handler shares (a person's name, whether an action reached its person, a reply).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from action.models import ActionRecord, ActionRequest, possibly_delivered
from concern import buttons as concern_buttons
from concern import outbound, queue
from concern.kinds import away
from concern.models import OutboxEntry
from concern.queue import Purpose
from concern.texts import forwarding, messages, reasons, replies
from kernel.context import UnitOfWork
from person import service as persons

MAX_TELL_TRIES = 5


def name(uow: UnitOfWork, person_id: str | None) -> str:
    person = persons.get(uow, person_id=person_id) if person_id else None
    return person.display_name if person else (person_id or "")


def reached(record: ActionRecord) -> bool:
    return record.result == "success" or possibly_delivered(record.result, record.result_detail)


def reply(
    uow: UnitOfWork,
    *,
    to: str,
    template: str,
    causation: str,
    origin_channel: str | None,
    key: str,
    reactive: bool = True,
    buttons: str | None = None,
    concern_id: str | None = None,
    chat_id: str | None = None,
    **values: str,
) -> None:
    """Queue a reply to `to` in their language: reactive (to what they just wrote) or a later solicited notice.

    `buttons` names the set (concern.buttons.SETS) the message carries, about `concern_id`. A reactive reply to a
    request made in a group (`chat_id`) is answered in that group.
    """
    person = persons.get(uow, person_id=to)
    if person is None:
        return
    specs = []
    if buttons is not None:
        specs = concern_buttons.for_message(
            uow, kind=buttons, request_key=key, addressee_id=to, locale=person.locale, concern_id=concern_id
        )
    text = replies.reply(template, person.locale, **values, **({"concern_id": concern_id} if concern_id else {}))
    outbound.reply(
        uow,
        to=to,
        text=text,
        decision_id=causation,
        channel=origin_channel,
        key=key,
        chat_id=chat_id,
        buttons=specs,
        later=not reactive,
    )


def told(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """A relayed message: confirm it, hold it for its moment, or say why it could not be passed on."""
    if not entry.ack_person_id:
        return
    base, _, tries = entry.request_key.partition("#")
    attempt = int(tries or 1)
    teller = persons.get_or_404(uow, person_id=entry.ack_person_id)
    target = name(uow, request.target_person_id)
    common = {
        "to": entry.ack_person_id,
        "causation": request.decision_ref,
        "origin_channel": entry.ack_channel,
        "chat_id": entry.ack_chat_id,
    }
    not_before = record.result_detail.get("not_before")
    if record.result == "success":
        if attempt == 1:
            words = forwarding.unframed(request.text, teller.display_name, tuple(teller.aliases or ()))
            reply(uow, template="told", key=f"{base}:ack", target=target, text=words, **common)
    elif record.result == "blocked" and not_before and attempt < MAX_TELL_TRIES:
        again = request.model_copy(update={"request_key": f"{base}#{attempt + 1}"})
        queue.enqueue(
            uow,
            request=again,
            purpose=Purpose.tell,
            ack_person_id=entry.ack_person_id,
            ack_channel=entry.ack_channel,
            ack_chat_id=entry.ack_chat_id,
            available_at=datetime.fromisoformat(not_before),
        )
        if attempt == 1:
            when = messages.when(
                datetime.fromisoformat(not_before), ZoneInfo(teller.timezone), teller.locale, now=uow.now
            )
            reply(
                uow,
                template="told_later",
                key=f"{base}:ack",
                target=target,
                why=reasons.held(record.result_detail["blocked_by"], teller.locale),
                when=when,
                **common,
            )
    else:
        reply(
            uow,
            template="not_told",
            key=f"{base}:ack" if attempt == 1 else f"{base}:ack#{attempt}",
            target=target,
            reactive=attempt == 1,
            reason=reasons.not_done(record.result_detail, teller.locale, target=target),
            **common,
        )


def policy_changed(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    operation = request.operation or {}
    back = operation.get("name") == "person.work_state" and (operation.get("work_state") or {}).get("status")
    if record.result == "success" and back == "available":  # said in chat: what waited for them goes now, spaced
        away.back(uow, person_id=operation["person_id"])
    if not entry.ack_person_id:
        return
    person = persons.get_or_404(uow, person_id=entry.ack_person_id)
    template = "policy_updated" if record.result == "success" else "policy_failed"
    reply(
        uow,
        to=entry.ack_person_id,
        template=template,
        causation=request.decision_ref,
        origin_channel=entry.ack_channel,
        chat_id=entry.ack_chat_id,
        key=f"{entry.request_key}:ack",
        reason=reasons.not_done(record.result_detail, person.locale, target=person.display_name),
        what=request.text,
    )
