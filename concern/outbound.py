"""The engine's outbound words: reply, notify, notice — every message the core and the engine queue, in their terms.

Nothing outside this module builds a reactive reply: `reply` answers what a person just wrote (in the group when
they wrote there), `reply_to_chat` answers a chat whose sender the bot does not know, `show` puts what a press did
under the pressed message (an edit; a new message where it cannot be edited), `notice` tells a loop's people how it
went, `notify` sends a one-way message (a brief, a route's notice). Each queues one outbox entry in the caller's
transaction; the drainer sends it after commit. What the core reads of the action layer is here too: contact times
and the action rows briefs and `/did` summarise, so the core needs nothing of the action layer itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select

from action.ledger import contact_times as _contact_times
from action.models import ActionRequest, ActionRow, ButtonSpec, Destination
from concern import queue, sandbox
from concern.models import Concern
from concern.queue import Purpose
from kernel.context import UnitOfWork

REPLY = "reply"  # the notification type of every reactive reply (L4 never holds it)
LOOP_OUTCOME = "loop_outcome"  # a solicited notice of how a loop goes (L4 keyed per loop)


def reply(
    uow: UnitOfWork,
    *,
    to: str,
    text: str,
    decision_id: str,
    channel: str | None,
    key: str,
    chat_id: str | None = None,
    buttons: Sequence[ButtonSpec] = (),
    later: bool = False,
) -> bool:
    """Answer what `to` just wrote on `channel`; with `chat_id` (a group) the answer goes to that chat.

    `later`: the answer comes after the moment passed (a relayed message sent on a later try): a solicited message
    then, which quiet hours and a pause hold, not a reply.
    """
    if later:
        return _queue(
            uow, Purpose.reply, decision_ref=decision_id, target_person_id=to, text=text, solicited=True,
            origin_channel=channel, notification_type=LOOP_OUTCOME, request_key=key, buttons=buttons,
        )  # fmt: skip
    where = Destination(channel=channel, chat_id=chat_id) if chat_id and channel else None
    return _reply(
        uow, to=to, text=text, decision_id=decision_id, channel=channel, key=key, where=where, buttons=buttons
    )


def reply_to_chat(uow: UnitOfWork, *, channel: str, chat_id: str, text: str, decision_id: str, key: str) -> bool:
    """Answer a chat whose sender is nobody the bot knows (no person to address: the chat itself)."""
    where = Destination(channel=channel, chat_id=chat_id)
    return _reply(uow, to=None, text=text, decision_id=decision_id, channel=channel, key=key, where=where)


def show(
    uow: UnitOfWork,
    *,
    to: str,
    text: str,
    decision_id: str,
    channel: str | None,
    key: str,
    message: tuple[str, str, str] | None,
    buttons: Sequence[ButtonSpec] = (),
) -> bool:
    """What a press did, under its message: `message` (channel, chat, message id) is edited; None: a new message."""
    where = Destination(channel=message[0], chat_id=message[1], message_id=message[2]) if message else None
    shown = buttons if where is not None else ()
    return _reply(uow, to=to, text=text, decision_id=decision_id, channel=channel, key=key, where=where, buttons=shown)


def notice(
    uow: UnitOfWork,
    concern: Concern,
    *,
    to: str,
    text: str,
    key: str,
    reactive: bool = False,
    origin_channel: str | None = None,
    chat_id: str | None = None,
    buttons: Sequence[ButtonSpec] = (),
) -> bool:
    """Tell one of a loop's people how it goes: solicited (quiet hours and pause apply, the cap does not; L4 per
    loop), or `reactive` when it answers their own message right now (in the group `chat_id` when asked there)."""
    channel = origin_channel or concern.origin_channel
    return _queue(
        uow,
        Purpose.outcome,
        concern=concern,
        decision_ref=concern.concern_id,
        target_person_id=to,
        text=text,
        priority=concern.priority,
        reactive=reactive,
        solicited=not reactive,
        concern_id=concern.concern_id,
        origin_channel=channel,
        notification_type=REPLY if reactive else LOOP_OUTCOME,
        request_key=key,
        destination=Destination(channel=channel, chat_id=chat_id) if chat_id and reactive and channel else None,
        buttons=buttons,
    )


def notify(
    uow: UnitOfWork,
    *,
    to: str,
    text: str,
    decision_id: str,
    key: str,
    notification_type: str,
    purpose: Purpose,
    priority: str = "P2",
    solicited: bool = False,
    buttons: Sequence[ButtonSpec] = (),
    claimed_by: str | None = None,
) -> bool:
    """A one-way message: a scheduled brief or review (`solicited`: the person configured it), a route's notice, an
    operator's notice (`claimed_by`: queued already owned by the request that runs it at once)."""
    return _queue(
        uow, purpose, decision_ref=decision_id, target_person_id=to, text=text, priority=priority, solicited=solicited,
        notification_type=notification_type, request_key=key, buttons=buttons, claimed_by=claimed_by,
    )  # fmt: skip


def _reply(uow: UnitOfWork, *, to: str | None, decision_id: str, channel: str | None, key: str, where, **rest) -> bool:
    """A reactive reply (L1's proactive checks and L4 skip it): to a person, or to `where` (a chat, a message)."""
    return _queue(
        uow, Purpose.reply, decision_ref=decision_id, target_person_id=to, reactive=True, origin_channel=channel,
        notification_type=REPLY, request_key=key, destination=where, **rest,
    )  # fmt: skip


def _queue(
    uow: UnitOfWork,
    purpose: Purpose,
    *,
    concern: Concern | None = None,
    buttons: Sequence[ButtonSpec] = (),
    claimed_by: str | None = None,
    **fields: Any,
) -> bool:
    """The one place a notify is built and queued (in the caller's transaction; sent after commit)."""
    request = ActionRequest(action_type="notify", buttons=list(buttons), **fields)
    lease = queue.LEASE if claimed_by else timedelta(0)
    return queue.enqueue(uow, request=request, purpose=purpose, concern=concern, claimed_by=claimed_by, lease=lease)


def contact_times(uow: UnitOfWork, *, concern_id: str, person_id: str) -> tuple[datetime | None, datetime | None]:
    """First and last question or follow-up of a loop that reached (or may have reached) its person."""
    return _contact_times(uow, concern_id=concern_id, person_id=person_id)


def last_sent(uow: UnitOfWork, *, person_id: str, notification_type: str) -> datetime | None:
    """When a notice of this type last reached the person (their last scheduled brief), or None."""
    return uow.session.scalar(
        select(func.max(ActionRow.created_at)).where(
            ActionRow.target_person_id == person_id,
            ActionRow.notification_type == notification_type,
            ActionRow.result == "success",
        )
    )


def actions_since(uow: UnitOfWork, *, since: datetime, target_id: str | None = None) -> list[ActionRow]:
    """Actions recorded since `since` (to `target_id` only, when given), oldest first; reactive replies left out."""
    stmt = select(ActionRow).where(ActionRow.created_at >= since).order_by(ActionRow.pk)
    if target_id is not None:
        stmt = stmt.where(ActionRow.target_person_id == target_id)
    return [r for r in uow.session.scalars(stmt) if not (r.action_type == "notify" and r.notification_type == REPLY)]


def failed_for(uow: UnitOfWork, *, originator_id: str, since: datetime) -> list[tuple[ActionRow, str]]:
    """Actions of the originator's loops that failed since `since` (not replies), with the loop's question."""
    stmt = (
        select(ActionRow, Concern.question)
        .join(Concern, Concern.concern_id == ActionRow.concern_id)
        .where(Concern.originator_id == originator_id, ActionRow.result == "failed", ActionRow.created_at > since)
        .where(sandbox.shown(uow.settings))
        .where(or_(ActionRow.notification_type.is_(None), ActionRow.notification_type != REPLY))
        .order_by(ActionRow.pk)
    )
    return [(row, question) for row, question in uow.session.execute(stmt)]
