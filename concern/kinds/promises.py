"""What the bot says and sends about a commitment: the check-in with its buttons, the promise noted, the slip.

Imported by concern.flows (the timer sends the check-in), so it needs nothing from flows itself.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from action.models import ActionRequest
from concern import buttons as concern_buttons
from concern import notices, outbound, queue, service
from concern.models import Concern
from concern.texts import messages
from kernel.catalogue import Catalogue
from kernel.context import UnitOfWork
from person import service as persons

_TEMPLATES: dict[str, dict[str, str]] = {
    "promise_noted": {
        "zh": "{target}承诺 {when} 前给你，到时我会跟进。",
        "en": "{target} promised it by {when}; I'll check in then.",
    },
    "check_in": {
        "zh": "你答应过{asker}：“{promise}”（{when}），是关于“{text}”。现在完成了吗？",
        "en": "You told {asker} “{promise}” ({when}), about “{text}”. Is it done?",
    },
    "check_in_follow_up": {
        "zh": "【跟进】你答应过{asker}：“{promise}”（{when}），是关于“{text}”。现在怎么样了？",
        "en": "[Follow-up] You told {asker} “{promise}” ({when}), about “{text}”. How is it going?",
    },
    "done": {"zh": "{target}：已完成 ——“{text}”（{timing}）", "en": '{target}: done — "{text}" ({timing})'},
    "answered": {
        "zh": "{target}回复了承诺的“{text}”：{answer}（{timing}）",
        "en": '{target} replied about the promise "{text}": {answer} ({timing})',
    },
    "on_time": {"zh": "按时", "en": "on time"},
    "late": {"zh": "晚了 {late}", "en": "{late} late"},
    "slipped": {
        "zh": "【承诺未兑现】{target}答应 {when} 前给你的“{text}”还没有完成，我会继续跟进。",
        "en": '[Promise slipped] {target} promised "{text}" by {when} and it is not done yet; I keep following up.',
    },
    "extended": {
        "zh": "好的，新的时间是 {when}，到时我再问你。",
        "en": "OK, the new time is {when}; I'll check in then.",
    },
}
TEMPLATES = Catalogue("concern.promises", _TEMPLATES)


def render(name: str, locale: str, **values: object) -> str:
    """One promise template in the reader's locale (the deployment's default locale when the locale has none)."""
    return TEMPLATES.text(name, locale, **values)


def timing(due_at: datetime, done_at: datetime, locale: str) -> str:
    """`按时` / `on time`, or how late."""
    if done_at <= due_at:
        return render("on_time", locale)
    return render("late", locale, late=messages.duration(done_at - due_at, locale))


def request(uow: UnitOfWork, concern: Concern, *, purpose: str, decision_ref: str, attempt: str) -> ActionRequest:
    """The check-in (or its follow-up) to the person who promised, with Done / 2 more hours buttons."""
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    asker = persons.get_or_404(uow, person_id=concern.originator_id)
    due = concern.due_at or uow.now
    when = messages.when(due, ZoneInfo(target.timezone), target.locale, now=uow.now)
    template = "check_in_follow_up" if purpose == "follow_up" else "check_in"
    key = f"{concern.concern_id}:{purpose}:{attempt}"
    specs = concern_buttons.for_message(
        uow,
        kind="check_in",
        request_key=key,
        addressee_id=target.person_id,
        locale=target.locale,
        concern_id=concern.concern_id,
    )
    specs += notices.recipient_buttons(uow, concern, key=key, to=target, kind="check_in")
    return ActionRequest(
        action_type="send_message",
        decision_ref=decision_ref,
        target_person_id=target.person_id,
        text=render(
            template,
            target.locale,
            when=when,
            asker=asker.display_name,
            text=concern.question,
            promise=_promise_words(uow, concern),
        ),  # fmt: skip
        priority=concern.priority,
        concern_id=concern.concern_id,
        follow_up=purpose == "follow_up",
        origin_channel=concern.origin_channel,
        request_key=key,
        buttons=specs,
    )


def _promise_words(uow: UnitOfWork, concern: Concern) -> str:
    """The promise as its maker said it: the answer that opened the commitment (the question itself, if none)."""
    parent = service.get(uow, concern_id=concern.parent_id) if concern.parent_id else None
    return messages.clip(parent.answer if parent is not None and parent.answer else concern.question)


def check_in_due(concern: Concern, last_contact_at: datetime | None) -> bool:
    """A commitment whose due moment came after its last contact owes a fresh check-in (first, or extended)."""
    return (
        concern.kind == "commitment"
        and concern.due_at is not None
        and (last_contact_at is None or last_contact_at < concern.due_at)
    )


def slipped(uow: UnitOfWork, concern: Concern, *, causation_id: str | None) -> None:
    """Tell the originator, once, that a promise passed its time undone; the fact counts it for a review."""
    if concern.kind != "commitment" or concern.due_at is None:
        return
    originator = persons.get(uow, person_id=concern.originator_id)
    target = persons.get(uow, person_id=concern.target_person_id)
    key = f"{concern.concern_id}:outcome:slipped"
    if originator is None or target is None or queue.queued(uow, request_key=key):
        return
    when = messages.when(concern.due_at, ZoneInfo(originator.timezone), originator.locale, now=uow.now)
    text = render("slipped", originator.locale, target=target.display_name, when=when, text=concern.question)
    outbound.notice(uow, concern, to=originator.person_id, text=text, key=key)
    service.change(
        uow,
        concern,
        change="commitment_slipped",
        causation_id=causation_id,
        supersedes=False,
        extra={"due_at": concern.due_at.isoformat(), "late_by_s": int((uow.now - concern.due_at).total_seconds())},
    )


def later(due_at: datetime | None, now: datetime, hours: int) -> datetime:
    """The new due moment of an extension: `hours` after the old one, or after now when that has passed."""
    return max(due_at or now, now) + timedelta(hours=hours)
