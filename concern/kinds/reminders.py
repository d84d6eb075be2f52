"""Reminders a person sets for themselves: a concern of kind `reminder`, due at `due_at`, fired once by its timer.

The reminder goes out at its moment with Done / 稍后 1小时 (Later 1h). It is solicited (the person asked for it):
quiet hours and a pause hold it until they end (unless P0), the daily cap does not. Unanswered, it is repeated
once, gently, REPEAT_AFTER after it went out, and closes on its own (`expired`, nobody told) about EXPIRE_AFTER
after it first went out: no follow-up spam, and `/reminders` shows it until then.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action.models import MAX_BUTTONS, ActionRecord, ActionRequest, possibly_delivered
from concern import buttons as concern_buttons
from concern import queue, service
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from concern.texts import messages
from fact import decisions
from fact.decisions import DecisionKind
from kernel.catalogue import Catalogue
from kernel.context import UnitOfWork
from person import service as persons

PURPOSE = "reminder"
REPEAT_AFTER = timedelta(hours=2)  # the one gentle repeat of an unanswered reminder
EXPIRE_AFTER = timedelta(days=1)  # an unanswered reminder closes quietly about this long after it went out
LATER = timedelta(hours=1)  # the 稍后 1小时 button

_TEMPLATES: dict[str, dict[str, str]] = {
    "set": {"zh": "好的，{when} 提醒你：{text}", "en": "OK, I'll remind you {when}: {text}"},
    "due": {"zh": "⏰ 提醒：{text}", "en": "⏰ Reminder: {text}"},
    "repeat": {"zh": "⏰ 再提醒一次：{text}", "en": "⏰ Reminder again: {text}"},
    "list_head": {"zh": "你的提醒（{count}）：", "en": "Your reminders ({count}):"},
    "list_item": {"zh": "{n}. {when} {text}", "en": "{n}. {when} {text}"},
    "cancel_item": {"zh": "取消 {n}", "en": "Cancel {n}"},
    # Past the buttons one message carries, a reminder is cancelled by typing its id.
    "list_item_typed": {
        "zh": "{n}. {when} {text}（/cancel {concern_id}）",
        "en": "{n}. {when} {text} (/cancel {concern_id})",
    },
    "list_empty": {"zh": "没有待提醒的事项。", "en": "No open reminders."},
    "past": {
        "zh": "这个时间已经过去了：{when}。换个时间再试试，例如“提醒我10分钟后交周报”。",
        "en": 'That time has passed: {when}. Try another, e.g. "/remind 10m call the vendor".',
    },
    "done": {"zh": "好的，已完成", "en": "OK, done"},
    "later": {"zh": "好的，{until} 再提醒你", "en": "OK, I'll remind you again {until}"},
}
TEMPLATES = Catalogue("concern.reminders", _TEMPLATES)


def render(name: str, locale: str, **values: object) -> str:
    """One reminder text in the reader's language (the deployment's default locale when the language has none)."""
    return TEMPLATES.text(name, locale, **values)


def set_(
    uow: UnitOfWork,
    *,
    person_id: str,
    text: str,
    due_at: datetime,
    decision_id: str,
    origin_channel: str | None = None,
    source_fact_id: str | None = None,
) -> Concern:
    """Open a reminder for `person_id` (originator and target): its timer is `due_at`; nothing is sent now."""
    concern = service.create(
        uow,
        originator_id=person_id,
        target_person_id=person_id,
        question=text,
        priority="P2",
        causation_id=decision_id,
        origin_channel=origin_channel,
        kind="reminder",
        due_at=due_at,
        source_fact_id=source_fact_id,
    )
    service.change(
        uow, concern, change="reminder_scheduled", causation_id=decision_id, step_at=due_at, supersedes=False
    )
    return concern


def confirmation(uow: UnitOfWork, concern: Concern) -> str:
    """ "好的，明天 10:00 提醒你：交周报": the parsed moment in the person's timezone, so a misparse shows (its Cancel
    button is minted by the door that sends it)."""
    person = persons.get_or_404(uow, person_id=concern.target_person_id)
    when = messages.when(concern.due_at, ZoneInfo(person.timezone), person.locale, now=uow.now)
    return render("set", person.locale, when=when, text=concern.question)


def open_for(uow: UnitOfWork, *, person_id: str) -> list[Concern]:
    """A person's open reminders, soonest first."""
    stmt = (
        select(Concern)
        .where(Concern.kind == "reminder", Concern.originator_id == person_id, Concern.state.in_(ACTIVE_STATES))
        .order_by(Concern.due_at, Concern.concern_id)
    )
    return list(uow.session.scalars(stmt))


def listing(uow: UnitOfWork, *, person_id: str, locale: str, tz: ZoneInfo) -> str:
    """`/reminders`: the open ones, numbered, with their local time (each number's Cancel is a button)."""
    items = open_for(uow, person_id=person_id)
    if not items:
        return render("list_empty", locale)
    lines = [render("list_head", locale, count=len(items))]
    for n, c in enumerate(items, 1):
        when = messages.when(c.due_at, tz, locale, now=uow.now)
        item = "list_item" if n <= MAX_BUTTONS else "list_item_typed"
        lines.append(render(item, locale, n=n, when=when, text=c.question, concern_id=c.concern_id))
    return "\n".join(lines)


def cancel_buttons(uow: UnitOfWork, *, person_id: str, locale: str) -> list[tuple[str, str, dict]]:
    """(verb, label, args) of the listing's buttons: 取消 1, 取消 2 … in the listing's order."""
    items = open_for(uow, person_id=person_id)[:MAX_BUTTONS]
    return [("cancel_pick", render("cancel_item", locale, n=n), {"concern_id": c.concern_id}) for n, c in
            enumerate(items, 1)]  # fmt: skip


def fire(uow: UnitOfWork, concern: Concern) -> None:
    """Its step is due: send it (or the one repeat), or close it quietly once it has had its chances."""
    if concern.state != "waiting_reply":
        service.change(uow, concern, change="timer_cleared", step_at=None)
        return
    if concern.follow_up_count >= 2:
        service.change(uow, concern, change="expired", state="expired", step_at=None, pending_deliveries=[])
        return
    step = "due" if concern.follow_up_count == 0 else "repeat"
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.direct_action,
        rule=f"reminder:{step}",
        inputs=[concern.concern_id],
        person_refs=[concern.target_person_id],
        source="concern",
        requested=[{"step": step, "concern_id": concern.concern_id}],
    )
    service.change(uow, concern, change="timer_fired", causation_id=decision_id, step_at=None, extra={"step": step})
    person = persons.get_or_404(uow, person_id=concern.target_person_id)
    key = f"{concern.concern_id}:{PURPOSE}:v{concern.version}"
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=person.person_id,
        text=render(step, person.locale, text=concern.question),
        priority=concern.priority,
        solicited=True,
        concern_id=concern.concern_id,
        origin_channel=concern.origin_channel,
        # One cooldown per reminder: two reminders set for the same hour both go out.
        notification_type=f"reminder:{concern.concern_id}",
        request_key=key,
        buttons=concern_buttons.for_message(
            uow,
            kind="reminder",
            request_key=key,
            addressee_id=person.person_id,
            locale=person.locale,
            concern_id=concern.concern_id,
        ),
    )
    queue.enqueue(uow, request=request, purpose=PURPOSE, concern=concern)


def sent(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """The result: out (the repeat or the quiet close waits), held (until its moment), or failed (counts as tried)."""
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None:
        return
    reached = record.result == "success" or possibly_delivered(record.result, record.result_detail)
    if record.result == "success":
        service.note_message(uow, concern, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
    if concern.state not in ACTIVE_STATES:
        return
    not_before = record.result_detail.get("not_before")
    if not reached and record.result == "blocked" and not_before:
        service.change(
            uow,
            concern,
            change="rescheduled",
            causation_id=record.action_id,
            step_at=datetime.fromisoformat(not_before),
            extra={"blocked_by": record.result_detail["blocked_by"]},
        )
        return
    count = concern.follow_up_count + 1
    wait = REPEAT_AFTER if count == 1 else EXPIRE_AFTER - REPEAT_AFTER
    service.change(
        uow,
        concern,
        change="reminder_sent" if reached else "reminder_failed",
        causation_id=record.action_id,
        follow_up_count=count,
        step_at=uow.now + wait,
    )


def done(uow: UnitOfWork, *, concern_id: str, by: str, decision_id: str) -> Concern | None:
    """Done: the reminder closes (resolved); None when it is not an open reminder of `by`."""
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if (
        concern is None
        or concern.kind != "reminder"
        or concern.state not in ACTIVE_STATES
        or by != concern.originator_id
    ):
        return None
    return service.change(
        uow,
        concern,
        change="resolved",
        causation_id=decision_id,
        state="resolved",
        answer="done",
        answered_by=by,
        resolved_at=uow.now,
        step_at=None,
        pending_deliveries=[],
    )


def later(uow: UnitOfWork, *, concern_id: str, by: str, decision_id: str, delay: timedelta = LATER) -> Concern | None:
    """稍后 1小时: due again `delay` from now, as a fresh reminder (its repeat and quiet close count from then)."""
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if (
        concern is None
        or concern.kind != "reminder"
        or concern.state not in ACTIVE_STATES
        or by != concern.originator_id
    ):
        return None
    due = uow.now + delay
    return service.change(
        uow, concern, change="snoozed", causation_id=decision_id, due_at=due, step_at=due, follow_up_count=0
    )
