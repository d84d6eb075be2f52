"""The daily brief: read what a principal needs to know, lay it out, and send it once per local day (or on demand).

The scheduled brief is gated by a decision fact whose dedup_key is `brief:{person_id}:{local date}`: the first
replica to record it sends (the notify's request_key is the same key); a replica that loses the race rolls back.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from cognitive_core.reports import fewer
from cognitive_core.reports.brief_rules import Item, clip, layout
from cognitive_core.reports.brief_texts import age, text
from cognitive_core.signals import routing as signals
from concern import buttons as concern_buttons
from concern import outbound, sandbox, schedule
from concern.models import ACTIVE_STATES, Concern
from concern.queue import Purpose
from concern.texts import reasons
from concern.texts.messages import WEEKDAYS, when
from fact import service as facts
from fact.models import Fact
from kernel.context import AppContext, UnitOfWork
from kernel.ids import allocate
from kernel.portion import Portion
from person import service as persons
from person.models import Person
from person.principals import Principal, due, principals
from person.rules import local_day_bounds

NOTIFICATION_TYPE = "daily_brief"
_STYLES = {"nudge": "primary", "cancel": "danger", "extend": "default"}


def _names(uow: UnitOfWork) -> dict[str, str]:
    return dict(uow.session.execute(select(Person.person_id, Person.display_name)).all())


def last_brief_at(uow: UnitOfWork, *, person_id: str) -> datetime | None:
    """When the person's last scheduled brief went out, or None."""
    return outbound.last_sent(uow, person_id=person_id, notification_type=NOTIFICATION_TYPE)


def _next_step(uow: UnitOfWork, c: Concern, tz: ZoneInfo, locale: str) -> str:
    if c.next_follow_up_at is None:
        return text("no_next", locale)
    moment = when(c.next_follow_up_at, tz, locale, now=uow.now)
    escalates = schedule.planned(uow, c).kind == "escalate"  # the person's stretch may leave no follow-up
    return text("next_escalation" if escalates else "next_follow_up", locale, when=moment)


def _mine(uow: UnitOfWork, c: Concern, names: dict[str, str], tz: ZoneInfo, locale: str) -> Item | None:
    """An open loop the reader started, as one item (None: not for the brief)."""
    now, who, question = uow.now, names.get(c.target_person_id, c.target_person_id), clip(c.question)
    if c.kind == "commitment":
        if c.due_at is None:
            return None
        if c.due_at < now:
            line = text("slipped", locale, who=who, age=age(now - c.due_at, locale), question=question)
            return Item("due", line, (c.due_at - now).total_seconds(), c.concern_id, ("extend", "cancel"))
        if c.due_at < local_day_bounds(now, tz)[1]:
            line = text("due_today", locale, who=who, when=when(c.due_at, tz, locale, now=now), question=question)
            return Item("due", line, (c.due_at - now).total_seconds(), c.concern_id, ("extend", "cancel"))
        return None
    if c.kind != "question":
        return None
    waited = (now - c.created_at).total_seconds()
    if c.escalation_level > 0 or c.state == "escalated":
        by = names.get(c.acknowledged_by or "", c.acknowledged_by)
        line = text(
            "escalated",
            locale,
            who=who,
            question=question,
            to=names.get(c.escalated_to or "", c.escalated_to or "-"),
            ack=text("acknowledged", locale, by=by) if c.acknowledged_by else "",
        )
        return Item("attention", line, -waited, c.concern_id, ("nudge", "cancel"))
    if c.pending_deliveries and c.follow_up_count == 0 and c.message_refs == []:
        why = reasons.held(c.pending_deliveries[-1].get("blocked_by", ""), locale)
        return Item("attention", text("held", locale, who=who, question=question, why=why), -waited, c.concern_id)
    if c.held_by == "away":  # with the person away: it waits for their return (open-ended: listed until then)
        back = text("back_at", locale, when=when(c.held_until, tz, locale, now=now)) if c.held_until else ""
        line = text("held_away", locale, who=who, question=question, back=back or text("back_open", locale))
        return Item("attention", line, -waited, c.concern_id, ("cancel",))
    line = text(
        "waiting_item",
        locale,
        who=who,
        question=question,
        age=age(now - c.created_at, locale),
        count=c.follow_up_count,
        next=_next_step(uow, c, tz, locale),
    )
    return Item("waiting", line, -waited, c.concern_id, ("nudge", "cancel"))


def items(uow: UnitOfWork, *, person: Person) -> list[Item]:
    """Everything the person's brief would say now."""
    tz, locale, me, now = ZoneInfo(person.timezone), person.locale, person.person_id, uow.now
    names = _names(uow)
    since = last_brief_at(uow, person_id=me) or now - timedelta(hours=24)
    found: list[Item] = []
    real = sandbox.shown(uow.settings)
    loops = select(Concern).where(Concern.state.in_(ACTIVE_STATES), Concern.originator_id == me, real)
    for c in uow.session.scalars(loops.order_by(Concern.created_at, Concern.concern_id)):
        if (item := _mine(uow, c, names, tz, locale)) is not None:
            found.append(item)
    escalated = select(Concern).where(
        Concern.state.in_(ACTIVE_STATES), Concern.escalated_to == me, Concern.originator_id != me, real
    )
    for c in uow.session.scalars(escalated.order_by(Concern.created_at, Concern.concern_id)):
        line = text(
            "escalated_to_you",
            locale,
            asker=names.get(c.originator_id, c.originator_id),
            who=names.get(c.target_person_id, c.target_person_id),
            question=clip(c.question),
            age=age(now - c.created_at, locale),
        )
        found.append(Item("attention", line, -(now - c.created_at).total_seconds(), c.concern_id, ("nudge",)))
    answered = select(Concern).where(Concern.originator_id == me, Concern.state == "resolved", real)
    answered = answered.where(Concern.kind == "question", Concern.resolved_at > since)
    for c in uow.session.scalars(answered.order_by(Concern.resolved_at)):
        who = names.get(c.answered_by or c.target_person_id, c.answered_by or c.target_person_id)
        line = text("answer", locale, who=who, question=clip(c.question, 40), answer=clip(c.answer or "", 80))
        found.append(Item("answers", line, c.resolved_at.timestamp()))
    # The loop's own words, not the failed message's preview: that was written in its recipient's language.
    for row, question in outbound.failed_for(uow, originator_id=me, since=since):
        who = names.get(row.target_person_id or "", row.target_person_id or "-")
        line = text("failed", locale, who=who, preview=clip(question, 50))
        found.append(Item("attention", line, row.created_at.timestamp()))
    owed = select(Concern).where(
        Concern.state.in_(ACTIVE_STATES), Concern.target_person_id == me, Concern.kind == "question", real
    )
    for c in uow.session.scalars(owed.order_by(Concern.created_at, Concern.concern_id)):
        line = text(
            "owed_item",
            locale,
            asker=names.get(c.originator_id, c.originator_id),
            question=clip(c.question),
            age=age(now - c.created_at, locale),
        )
        found.append(Item("owed", line, -(now - c.created_at).total_seconds()))
    found += fewer.items(uow, me=me, since=since, names=names, locale=locale)
    return found + _signal_items(uow, me=me, since=since, names=names, tz=tz, locale=locale)


def _signal_items(
    uow: UnitOfWork, *, me: str, since: datetime, names: dict[str, str], tz: ZoneInfo, locale: str
) -> list[Item]:
    """External signals since the last brief: those no route handles (every principal hears of them), and those a
    route lists in this principal's brief (a report's task_overdue)."""
    found = []
    for s in signals.unhandled_signals(uow, since=since):
        moment = when(s["timestamp"], tz, locale, now=uow.now)
        line = text("unhandled", locale, kind=s["signal_type"], source=s["source"], when=moment)
        found.append(Item("signals", line, s["timestamp"].timestamp()))
    for s in signals.briefed_signals(uow, principal_id=me, since=since):
        who = "、".join(names.get(p, p) for p in s["recipients"]) or names.get(s["person_id"] or "", "-")
        moment = when(s["timestamp"], tz, locale, now=uow.now)
        line = text("routed", locale, who=who, kind=s["signal_type"], source=s["source"], when=moment)
        found.append(Item("signals", line, s["timestamp"].timestamp()))
    return found


def _title(now: datetime, tz: ZoneInfo, locale: str) -> str:
    local = now.astimezone(tz)
    if locale == "zh":
        return text("title", locale, day=f"{local.month}月{local.day}日 周{WEEKDAYS['zh'][local.weekday()]}")
    return text("title", locale, day=f"{WEEKDAYS['en'][local.weekday()]} {local:%m-%d}")


def _buttons(uow: UnitOfWork, person: Person, key: str, actions: tuple) -> list:
    """Each numbered item's buttons, one press per item (its own request key), labelled with the item's number."""
    items = []
    for number, concern_id, verbs in actions:
        shown = [
            (
                verb,
                text(verb, person.locale, n=number),
                {"at": at, **({"hours": 2} if verb == "extend" else {})},
                _STYLES[verb],
            )
            for at, verb in enumerate(verbs)
        ]
        items.append((str(number), concern_id, shown))
    return concern_buttons.numbered(uow, key=key, addressee_id=person.person_id, items=items)


def compose(
    uow: UnitOfWork, *, person: Person, key: str, everything: bool = False, always: bool = False
) -> tuple[str, list, int] | None:
    """The brief's text, its buttons and its item count; None when there is nothing to say (unless `always`)."""
    tz, locale = ZoneInfo(person.timezone), person.locale
    found = items(uow, person=person)
    if not found:
        return (text("nothing", locale), [], 0) if always else None
    public = uow.settings.public_url
    link = f"{public.rstrip('/')}/console" if public else None
    shaped = layout(found, locale=locale, title=_title(uow.now, tz, locale), everything=everything, link=link)
    return shaped.text, _buttons(uow, person, key, shaped.actions), len(found)


def answer(
    uow: UnitOfWork,
    *,
    person: Person,
    decision_id: str,
    key: str,
    everything: bool,
    channel: str | None,
    chat_id: str | None,
) -> None:
    """`/brief` (`/brief all`): the brief now, reactively, also when there is nothing to say."""
    body, specs, _ = compose(uow, person=person, key=key, everything=everything, always=True)
    outbound.reply(
        uow,
        to=person.person_id,
        text=body,
        decision_id=decision_id,
        channel=channel,
        key=key,
        chat_id=chat_id,
        buttons=specs,
    )


class _Taken(Exception):
    """Another replica recorded this day's brief first: roll ours back."""


def _due_keys(uow: UnitOfWork, everyone: tuple[Principal, ...]) -> list[tuple[str, str]]:
    """(person_id, key) of every active principal whose brief is due now and not yet decided."""
    wanted = [(person_id, key) for person_id, key, _ in due(everyone, uow.now, report="brief")]
    if not wanted:
        return []
    done = set(uow.session.scalars(select(Fact.dedup_key).where(Fact.dedup_key.in_([k for _, k in wanted]))))
    return [(p, k) for p, k in wanted if k not in done]


def _decide(uow: UnitOfWork, *, person_id: str, key: str) -> bool:
    """Record the day's brief decision and queue the brief (nothing when there is nothing to say)."""
    person = persons.get_or_404(uow, person_id=person_id)
    decision_id = allocate(uow.session, "dec", now=uow.now, tz=uow.tz)
    composed = compose(uow, person=person, key=key)
    _, created = facts.append(
        uow,
        fact_type="decision",
        source="cognitive_core",
        person_refs=[person_id],
        dedup_key=key,
        content={
            "decision_id": decision_id,
            "kind": "direct_action",
            "rule": "daily_brief" if composed else "daily_brief:nothing_to_report",
            "inputs": [],
            "requested": [{"action": "notify", "notification_type": NOTIFICATION_TYPE, "items": composed[2]}]
            if composed
            else [],
            "actor": uow.actor,
        },
    )
    if not created:
        raise _Taken
    if composed is None:
        return False
    outbound.notify(  # the gate above makes it the only one
        uow,
        to=person_id,
        text=composed[0],
        decision_id=decision_id,
        key=key,
        notification_type=NOTIFICATION_TYPE,
        purpose=Purpose.brief,
        solicited=True,
        buttons=composed[1],
    )
    return True


def send_due(ctx: AppContext, *, portion: Portion) -> int:
    """Decide the briefs due now, as many as `portion` takes (once per principal and local day, across replicas);
    how many were queued (a principal with nothing to report is decided and queues nothing)."""
    with ctx.reader() as uow:
        due = _due_keys(uow, principals(ctx))
    decided = queued = 0
    for person_id, key in due:
        if not portion.more(decided):
            break
        try:
            with ctx.uow(actor="cognitive_core") as uow:
                queued += _decide(uow, person_id=person_id, key=key)
        except _Taken:
            continue
        decided += 1
    return queued
