"""Answers to `/did` and `/concerns`, read from the action ledger and concern table, in the reader's language."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select

from cognitive_core.reports import did_rules, did_texts
from concern import outbound, sandbox
from concern.buttons import PER_MESSAGE
from concern.models import ACTIVE_STATES, Concern
from concern.texts import reasons
from concern.texts.messages import clip, duration, when
from kernel.context import UnitOfWork
from person.models import Person
from person.rules import local_day_bounds


def _names(uow: UnitOfWork) -> dict[str, str]:
    return dict(uow.session.execute(select(Person.person_id, Person.display_name)).all())


def did(
    uow: UnitOfWork,
    *,
    viewer_id: str,
    viewer_role: str,
    locale: str,
    tz: ZoneInfo,
    window: timedelta,
    today: bool,
    person_id: str | None,
    everything: bool = False,
) -> str:
    """Whom Deputy contacted for the viewer and where each stands: a summary first, then a line per loop."""
    since = local_day_bounds(uow.now, tz)[0] if today else uow.now - window
    span = None if today else did_rules.span_words(int(window.total_seconds()), locale)
    if viewer_role != "principal":
        return _did_mine(uow, viewer_id=viewer_id, locale=locale, since=since, span=span)
    rows = sandbox.real_actions(uow, outbound.actions_since(uow, since=since, target_id=person_id or None))
    names = _names(uow)
    ids = {r.concern_id for r in rows if r.concern_id}
    loops = {c.concern_id: c for c in uow.session.scalars(select(Concern).where(Concern.concern_id.in_(ids)))}
    outcomes, seen = [], set()
    for r in rows:
        if not r.target_person_id or r.target_person_id == viewer_id or r.action_type == "backflow":
            continue
        key = r.concern_id or r.action_id
        loop = loops.get(r.concern_id or "")
        # One line per loop, about the person it waits on: its escalations to a manager are part of that line.
        if key in seen or (
            loop is not None and (loop.originator_id, loop.target_person_id) != (viewer_id, r.target_person_id)
        ):
            continue
        seen.add(key)
        last = [x for x in rows if (x.concern_id or x.action_id) == key and x.target_person_id == r.target_person_id][
            -1
        ]
        found = _outcome(uow, last, loop, names=names, locale=locale, tz=tz)
        sent = last.result == "success" and last.channel != "internal"
        outcomes.append(replace(found, via=reasons.channel(last.channel, locale)) if sent else found)
    public = uow.settings.public_url
    link = f"{public.rstrip('/')}/console/actions" if public else None
    return did_rules.reply(outcomes, locale=locale, span=span, everything=everything, link=link)


def _outcome(
    uow: UnitOfWork, last, loop: Concern | None, *, names: dict[str, str], locale: str, tz: ZoneInfo
) -> did_rules.Outcome:
    """Where one loop (or one message passed on) stands, from the loop's state and its latest action."""
    who = names.get(last.target_person_id or "", last.target_person_id or "")
    about = loop.question if loop is not None else last.content_preview
    not_before = last.result_detail.get("not_before")
    if last.result in ("blocked", "failed", "pending") and not_before:
        held = reasons.held(last.result_detail.get("blocked_by", ""), locale)
        until = when(datetime.fromisoformat(not_before), tz, locale, now=uow.now)
        return did_rules.Outcome(who, "held", about, note=held, until=until)
    if last.result in ("blocked", "failed") and (loop is None or loop.state in ACTIVE_STATES):
        note = reasons.not_done(last.result_detail, locale, target=who)
        return did_rules.Outcome(who, "not_done", about, note=note)
    if loop is None:
        return did_rules.Outcome(who, "told", about)
    if loop.answer is not None:
        return did_rules.Outcome(who, "answered", about, answer=loop.answer)
    if loop.kind == "commitment" and loop.state in ACTIVE_STATES and loop.due_at:
        if loop.due_at <= uow.now:
            return did_rules.Outcome(who, "promise_due", about)
        return did_rules.Outcome(who, "promised", about, until=when(loop.due_at, tz, locale, now=uow.now))
    if loop.state == "escalated" or loop.escalation_level > 0:
        return did_rules.Outcome(who, "escalated", about, note=names.get(loop.escalated_to or "", "-"))
    if loop.state not in ACTIVE_STATES:
        return did_rules.Outcome(who, "closed", about, note=reasons.state(loop.state, locale))
    if loop.held_by == "away":
        back = when(loop.held_until, tz, locale, now=uow.now) if loop.held_until else None
        return did_rules.Outcome(who, "held", about, note="away", until=back or did_texts.text("back_open", locale))
    return did_rules.Outcome(who, "waiting", about, follow_ups=loop.follow_up_count)


def _did_mine(uow: UnitOfWork, *, viewer_id: str, locale: str, since: datetime, span: str | None) -> str:
    """A person who is not a principal asks what Deputy sent them: one line per message, newest last."""
    rows = sandbox.real_actions(uow, outbound.actions_since(uow, since=since, target_id=viewer_id))
    if not rows:
        return did_texts.text("nothing_mine", locale)
    plural = did_texts.text("messages" if len(rows) != 1 else "message", locale)
    head = did_texts.text("head_mine_today" if span is None else "head_mine", locale, n=len(rows), messages=plural,
                          span=span or "")  # fmt: skip
    shown = rows[-did_rules.MAX_LINES :]
    lines = [head] + [
        did_texts.text(
            "line_mine",
            locale,
            note=reasons.action_type(r.action_type, locale),
            about=did_rules.clip(r.content_preview),
        )  # fmt: skip
        for r in shown
    ]
    return "\n".join(lines)


def _active(uow: UnitOfWork, *, viewer_id: str) -> list[Concern]:
    stmt = select(Concern).where(
        Concern.state.in_(ACTIVE_STATES),
        or_(Concern.originator_id == viewer_id, Concern.target_person_id == viewer_id),
        Concern.kind != "reminder",  # /reminders lists those
        sandbox.shown(uow.settings),
    )
    return list(uow.session.scalars(stmt.order_by(Concern.created_at, Concern.concern_id)))


def concerns(uow: UnitOfWork, *, viewer_id: str, locale: str, tz: ZoneInfo) -> str:
    """Open loops the viewer started or owes, numbered (their buttons: `concern_buttons`), and answers on their way."""
    names = _names(uow)
    lines = []
    for n, c in enumerate(_active(uow, viewer_id=viewer_id), 1):
        state = reasons.state(c.state, locale)
        quoted = clip(c.question)
        if c.originator_id != viewer_id:  # a question they owe
            asker = names.get(c.originator_id, c.originator_id)
            lines.append(did_texts.text("owed_item", locale, n=n, asker=asker, about=quoted, state=state))
            continue
        nxt = when(c.next_follow_up_at, tz, locale, now=uow.now) if c.next_follow_up_at else None
        after = did_texts.text("next_follow_up", locale, when=nxt) if nxt else ""
        who = names.get(c.target_person_id, c.target_person_id)
        lines.append(did_texts.text("open_item", locale, n=n, who=who, about=quoted, state=state, next=after))
    held = select(Concern).where(
        Concern.originator_id == viewer_id,
        Concern.state == "resolved",
        Concern.next_follow_up_at.is_not(None),
        sandbox.shown(uow.settings),
    )
    for c in uow.session.scalars(held):
        who = names.get(c.answered_by or "", c.answered_by or "")
        lines.append(did_texts.text("answer_on_its_way", locale, who=who, answer=clip(c.answer or "")))
    return "\n".join(lines) if lines else did_texts.text("nothing_open", locale)


def concern_buttons(uow: UnitOfWork, *, viewer_id: str, locale: str) -> list[tuple[str, str, dict]]:
    """(verb, label, args) under `/concerns`: 催一下 n / 取消 n for the first loops the viewer started."""
    out: list[tuple[str, str, dict]] = []
    for n, c in enumerate(_active(uow, viewer_id=viewer_id), 1):
        if c.originator_id == viewer_id and len(out) + 2 <= PER_MESSAGE:
            out += [(verb, did_texts.text(f"{verb}_n", locale, n=n), {"concern_id": c.concern_id})
                    for verb in ("nudge_pick", "cancel_pick")]  # fmt: skip
    return out


def status_of(uow: UnitOfWork, *, viewer_id: str, person_id: str, locale: str, tz: ZoneInfo) -> str:
    """`刘洋回了吗`: what the viewer waits on from that one person, or their last answer, in plain words."""
    zh, who = locale == "zh", _names(uow).get(person_id, "")
    mine = [c for c in _active(uow, viewer_id=viewer_id) if c.target_person_id == person_id]
    lines = []
    for c in mine:
        waited = duration(uow.now - c.created_at, locale)
        nxt = when(c.next_follow_up_at, tz, locale, now=uow.now) if c.next_follow_up_at else ""
        if zh:
            lines.append(
                f"{who}还没回你问的“{c.question}”，已经等了{waited}" + (f"，我会在{nxt}再提醒。" if nxt else "。")
            )
        else:
            later = f"; I'll remind them {nxt}." if nxt else "."
            lines.append(f'{who} hasn\'t answered "{c.question}" yet (waiting {waited}){later}')
    if lines:
        return "\n".join(lines)
    answered = select(Concern).where(
        Concern.originator_id == viewer_id,
        Concern.target_person_id == person_id,
        Concern.answer.is_not(None),
        sandbox.shown(uow.settings),
    )
    last = uow.session.scalars(answered.order_by(Concern.resolved_at.desc())).first()
    if last is not None:
        return (
            f"{who}已经回复了“{last.question}”：{last.answer}"
            if zh
            else f'{who} answered "{last.question}": {last.answer}'
        )
    return f"现在没有在等{who}的事。" if zh else f"Nothing to {who} is open."
