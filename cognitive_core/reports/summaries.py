"""Answers to `/did` and `/concerns`, read from the action ledger and concern table, in the reader's language."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select

from concern import outbound, sandbox
from concern.models import ACTIVE_STATES, Concern
from concern.texts import reasons
from concern.texts.messages import duration, when
from kernel.context import UnitOfWork
from person.models import Person
from person.rules import local_day_bounds

MAX_LINES = 15


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
) -> str:
    """Grouped summary of actions: sent, blocked and why, failed, and what is still waiting."""
    since = local_day_bounds(uow.now, tz)[0] if today else uow.now - window
    target = viewer_id if viewer_role != "principal" else (person_id or None)
    rows = sandbox.real_actions(uow, outbound.actions_since(uow, since=since, target_id=target))
    names = _names(uow)
    zh = locale == "zh"
    by_result = Counter(r.result for r in rows)
    head = (
        f"自 {since.astimezone(tz):%m-%d %H:%M} 起：发送成功 {by_result['success']}，"
        f"被拦截 {by_result['blocked']}，失败 {by_result['failed']}。"
        if zh
        else f"Since {since.astimezone(tz):%m-%d %H:%M}: {by_result['success']} sent, "
        f"{by_result['blocked']} blocked, {by_result['failed']} failed."
    )
    lines = [head]
    for r in rows[-MAX_LINES:]:
        who = names.get(r.target_person_id or "", r.target_person_id or "-")
        not_before = r.result_detail.get("not_before")
        until = when(datetime.fromisoformat(not_before), tz, locale, now=uow.now) if not_before else None
        why = (
            f"（{reasons.why(r.result_detail, locale, target=who, until=until)}）"
            if r.result in ("blocked", "failed")
            else ""
        )
        if not zh and why:
            why = f" ({why[1:-1]})"
        kind, channel, result = (
            reasons.action_type(r.action_type, locale),
            reasons.channel(r.channel, locale),
            reasons.result(r.result, locale),
        )
        lines.append(
            f"{r.action_id} {kind} → {who}（{channel}）{result}{why}：{r.content_preview[:40]}"
            if zh
            else f"{r.action_id} {kind} → {who} ({channel}) {result}{why}: {r.content_preview[:40]}"
        )
    waiting = _active(uow, viewer_id=viewer_id)
    if waiting:
        lines.append("仍在等待：" if zh else "Still waiting:")
        lines += [
            f"{c.concern_id} {names.get(c.target_person_id, c.target_person_id)}: {c.question[:40]}" for c in waiting
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
    """Open loops the viewer started or owes, and answers not yet delivered."""
    names = _names(uow)
    zh = locale == "zh"
    lines = []
    for c in _active(uow, viewer_id=viewer_id):
        nxt = f"{c.next_follow_up_at.astimezone(tz):%m-%d %H:%M}" if c.next_follow_up_at else "-"
        who = names.get(c.target_person_id, c.target_person_id)
        state = reasons.state(c.state, locale)
        lines.append(
            f"{c.concern_id} {who}：{c.question[:40]} · {state} · 已跟进 {c.follow_up_count} 次 · 下次 {nxt}"
            if zh
            else f"{c.concern_id} {who}: {c.question[:40]} · {state} · {c.follow_up_count} follow-ups · next {nxt}"
        )
    held = select(Concern).where(
        Concern.originator_id == viewer_id,
        Concern.state == "resolved",
        Concern.next_follow_up_at.is_not(None),
        sandbox.shown(uow.settings),
    )
    for c in uow.session.scalars(held):
        lines.append(f"{c.concern_id} {names.get(c.answered_by or '', c.answered_by)}: {c.answer}")
    if not lines:
        return "现在没有在等的事。" if zh else "Nothing is open."
    return "\n".join(lines)


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
