"""Apply the core's decisions: replies, asks, cancels, binds and self-service, as concern changes and queued actions."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from action.models import ActionRequest, Destination
from cognitive_core import answers, briefs, reviews, rules, strangers
from concern import buttons as concern_buttons
from concern import commitments, escalation, messages, press_flows, reasons, reminders, replies
from concern import flows as concerns
from concern import service as concern_service
from concern.media import forwardable
from fact.decisions import DecisionKind
from kernel.context import UnitOfWork
from kernel.errors import Conflict, DeputyError, Forbidden, NotFound
from person import bind_codes
from person import service as persons

log = logging.getLogger("deputy.core")


def _group_of(situation: rules.Situation) -> str | None:
    """The group chat a request came from (its confirmations go back there), None for a direct message."""
    signal = situation.signal
    return signal.chat_id if signal.chat_type == "group" and signal.chat_id else None


def _reply(
    uow: UnitOfWork,
    situation: rules.Situation,
    decision_id: str,
    text: str,
    key: str | None = None,
    choices: list[tuple[str, str, dict]] | None = None,
) -> None:
    """Answer what the sender just wrote: where they wrote it (a group's command is answered in the group).

    `choices` (verb, label, args) become the reply's buttons, pressable by the sender only.
    """
    signal = situation.signal
    key = key or f"{signal.fact_id}:reply"
    shown = (
        concern_buttons.choices(uow, request_key=key, addressee_id=situation.sender.person_id, options=choices)
        if choices
        else []
    )
    in_group = signal.chat_type == "group" and signal.chat_id
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=situation.sender.person_id,
        text=text,
        reactive=True,
        origin_channel=signal.channel,
        notification_type="reply",
        request_key=key,
        destination=Destination(channel=signal.channel, chat_id=signal.chat_id) if in_group else None,
        buttons=shown,
    )
    concern_service.enqueue(uow, request=request, purpose="reply")


def apply(
    uow: UnitOfWork,
    decision: rules.Decision,
    *,
    decision_id: str,
    situation: rules.Situation,
    fact_id: str,
    content: dict | None = None,
) -> None:
    """Carry out one decision inside the signal's transaction (actions are queued, not sent)."""
    sender, params = situation.sender, decision.params
    locale = sender.locale if sender else "zh"
    if decision.kind == DecisionKind.ignore:
        return
    if decision.kind == DecisionKind.reply and sender is None:  # how to get linked, to the chat it came from
        strangers.reply_to_chat(
            uow,
            kind="help",
            channel=situation.signal.channel,
            chat_id=situation.signal.chat_id,
            text=replies.to_stranger(params["template"]),
            decision_id=decision_id,
            fact_id=fact_id,
        )
    elif decision.kind == DecisionKind.reply and params.get("template") in ("brief", "review"):
        _brief(uow, situation, decision_id, everything=bool(params.get("all")), review=params["template"] == "review")
    elif decision.kind == DecisionKind.reply:
        text = answers.text(uow, decision, situation)
        _reply(uow, situation, decision_id, text, choices=answers.choices(uow, decision, locale))
    elif decision.kind == DecisionKind.raise_concern and params.get("kind") == "reminder":
        reminder = reminders.set_(
            uow,
            person_id=sender.person_id,
            text=params["text"],
            due_at=datetime.fromisoformat(params["due_at"]),
            decision_id=decision_id,
            origin_channel=situation.signal.channel,
            source_fact_id=fact_id,
        )
        _reply(uow, situation, decision_id, reminders.confirmation(uow, reminder))
    elif decision.kind == DecisionKind.raise_concern and params.get("parent_id"):
        commitments.open_(
            uow,
            parent_id=params["parent_id"],
            due_at=datetime.fromisoformat(params["due_at"]),
            words=params["words"],
            decision_id=decision_id,
        )
    elif decision.kind == DecisionKind.raise_concern:
        outcome = concerns.raise_(
            uow,
            originator_id=sender.person_id,
            target_person_id=params["target_person_id"],
            question=params["question"],
            priority=params["priority"],
            decision_id=decision_id,
            origin_channel=situation.signal.channel,
            origin_chat_id=_group_of(situation),
            source_fact_id=fact_id,
            deadline=datetime.fromisoformat(params["deadline"]) if params.get("deadline") else None,
        )
        if isinstance(outcome, str):
            _refused(uow, situation, decision_id, params["target_person_id"], outcome)
    elif decision.kind == DecisionKind.escalate:
        outcome = concerns.raise_(
            uow,
            originator_id=sender.person_id,
            target_person_id=params["decision_maker_id"],
            question=params["question"],
            priority="P1",
            decision_id=decision_id,
            origin_channel=situation.signal.channel,
            approval=True,
            source_fact_id=fact_id,
        )
        if isinstance(outcome, str):
            _refused(uow, situation, decision_id, params["decision_maker_id"], outcome)
    elif decision.kind == DecisionKind.resolve_concern and _is_commitment(uow, params["concern_id"]):
        commitments.complete_commitment(
            uow, concern_id=params["concern_id"], by=sender.person_id, decision_id=decision_id, answer=params["answer"]
        )
    elif decision.kind == DecisionKind.resolve_concern:
        resolved = concerns.resolve(
            uow,
            concern_id=params["concern_id"],
            answer=params["answer"],
            answered_by=sender.person_id,
            decision_id=decision_id,
            media=forwardable(content or {}),
        )
        if resolved is not None:  # the person who answered hears it went on
            asker = persons.get_or_404(uow, person_id=resolved.originator_id)
            _reply(uow, situation, decision_id, replies.reply("passed_on", locale, asker=asker.display_name))
    elif decision.kind == DecisionKind.snooze_concern and params.get("acknowledgement"):
        concerns.acknowledge(uow, concern_id=params["concern_id"], decision_id=decision_id)
    elif decision.kind == DecisionKind.snooze_concern:
        c = concerns.snooze(
            uow,
            concern_id=params["concern_id"],
            duration=timedelta(seconds=params["duration_s"]),
            decision_id=decision_id,
        )
        if c is not None:
            tz = ZoneInfo(persons.get(uow, person_id=sender.person_id).timezone)
            until = messages.when(c.next_follow_up_at, tz, locale, now=uow.now)
            _reply(uow, situation, decision_id, replies.reply("snoozed", locale, until=until))
    elif decision.kind == DecisionKind.cancel_concern:
        _cancel(uow, situation, params["concern_id"], decision_id)
    elif decision.kind == DecisionKind.direct_action:
        _direct(uow, decision, situation, decision_id, content)


def _brief(uow: UnitOfWork, situation: rules.Situation, decision_id: str, *, everything: bool, review: bool) -> None:
    """`/brief` (with its buttons) or `/review`: now, where it was asked for."""
    signal = situation.signal
    in_group = signal.chat_type == "group" and signal.chat_id
    common = {
        "person": persons.get_or_404(uow, person_id=situation.sender.person_id),
        "decision_id": decision_id,
        "key": f"{signal.fact_id}:reply",
        "origin_channel": signal.channel,
        "destination": Destination(channel=signal.channel, chat_id=signal.chat_id) if in_group else None,
    }
    if review:
        reviews.answer(uow, **common)
    else:
        briefs.answer(uow, everything=everything, **common)


def _is_commitment(uow: UnitOfWork, concern_id: str) -> bool:
    concern = concern_service.get(uow, concern_id=concern_id)
    return concern is not None and concern.kind == "commitment"


def _refused(uow: UnitOfWork, situation: rules.Situation, decision_id: str, target_id: str, code: str) -> None:
    """A request the L2 limits refused: say so in the sender's language."""
    target = persons.get(uow, person_id=target_id)
    reason = reasons.not_done({"blocked_by": code}, situation.sender.locale, target=target.display_name)
    _reply(
        uow,
        situation,
        decision_id,
        replies.reply("refused_limit", situation.sender.locale, target=target.display_name, reason=reason),
    )


def _cancel(uow: UnitOfWork, situation: rules.Situation, concern_id: str, decision_id: str) -> None:
    locale = situation.sender.locale
    try:
        with uow.session.begin_nested():
            concerns.cancel(
                uow, concern_id=concern_id, by=situation.sender.person_id, is_admin=False, decision_id=decision_id
            )
    except DeputyError as exc:
        why = {NotFound: "cancel_not_found", Forbidden: "cancel_not_yours"}.get(type(exc), "cancel_closed")
        state = reasons.state((exc.details or {}).get("state", ""), locale) if isinstance(exc.details, dict) else ""
        _reply(
            uow,
            situation,
            decision_id,
            replies.reply(
                "cannot_cancel", locale, concern_id=concern_id, reason=replies.reply(why, locale, state=state)
            ),
        )
        return
    # The originator's confirmation is how this loop ends for them: keyed by the concern, told once.
    _reply(
        uow,
        situation,
        decision_id,
        replies.reply("cancelled", locale, concern_id=concern_id),
        key=f"{concern_id}:outcome:cancelled",
    )


def _bind(uow: UnitOfWork, situation: rules.Situation, decision_id: str, code: str, content: dict) -> None:
    try:
        with uow.session.begin_nested():
            person_id, outcome = bind_codes.redeem(
                uow,
                code=code,
                channel=content["channel"],
                external_user_id=content["external_user_id"],
                chat_id=content.get("chat_id"),
            )
    except Conflict:
        person_id, outcome = None, "conflict"
    replier = (
        persons.get(uow, person_id=person_id)
        if person_id
        else (persons.get(uow, person_id=situation.sender.person_id) if situation.sender else None)
    )
    template = {"bound": "bound", "used": "bind_used", "too_many_attempts": "bind_too_many"}.get(outcome, "bind_failed")
    if replier is None:  # an unknown sender with a wrong code: answered in their chat, a few times an hour at most
        strangers.reply_to_chat(
            uow,
            kind="bind",
            channel=content["channel"],
            chat_id=content.get("chat_id"),
            text=replies.to_stranger(template),
            decision_id=decision_id,
            fact_id=situation.signal.fact_id,
        )
        return
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=replier.person_id,
        reactive=True,
        text=replies.reply(template, replier.locale, name=replier.display_name),
        origin_channel=content["channel"],
        notification_type="reply",
        request_key=f"{situation.signal.fact_id}:bind",
    )
    concern_service.enqueue(uow, request=request, purpose="reply")


def _direct(
    uow: UnitOfWork, decision: rules.Decision, situation: rules.Situation, decision_id: str, content: dict | None = None
) -> None:
    params = decision.params
    if params["action"] == "bind":
        _bind(uow, situation, decision_id, params["code"], content or {})
    elif params["action"] == "notify":
        target = persons.get_or_404(uow, person_id=params["target_person_id"])
        text = messages.relay(situation.sender.display_name, params["text"], target.locale)
        request = ActionRequest(
            action_type="notify",
            decision_ref=decision_id,
            target_person_id=params["target_person_id"],
            text=text,
            priority=params["priority"],
            origin_channel=situation.signal.channel,
            request_key=f"{situation.signal.fact_id}:tell",
            # Each relayed message is its own notification: L4's cooldown is for repeats of one kind.
            notification_type=f"relay:{situation.signal.fact_id}",
        )
        concern_service.enqueue(
            uow,
            request=request,
            purpose="tell",
            ack_person_id=situation.sender.person_id,
            ack_channel=situation.signal.channel,
            ack_chat_id=_group_of(situation),
        )
    elif params["action"] == "nudge":  # "催一下张三": their one open question
        outcome = escalation.nudge(
            uow, concern_id=params["concern_id"], by=situation.sender.person_id, decision_id=decision_id
        )
        _reply(uow, situation, decision_id, outcome.text)
    elif params["action"] == "reassign":
        outcome = press_flows.reassign(
            uow,
            concern_id=params["concern_id"],
            by=situation.sender.person_id,
            to=params["target_person_id"],
            decision_id=decision_id,
            origin_channel=situation.signal.channel,
        )
        if isinstance(outcome, str):
            _refused(uow, situation, decision_id, params["target_person_id"], outcome)
    elif params["action"] == "policy":
        tz = ZoneInfo(persons.get_or_404(uow, person_id=situation.sender.person_id).timezone)
        request = ActionRequest(
            action_type="internal_update",
            decision_ref=decision_id,
            target_person_id=situation.sender.person_id,
            operation={
                "name": "person.interaction_policy",
                "person_id": situation.sender.person_id,
                "patch": params["patch"],
            },
            text=replies.policy_change(params["patch"], situation.sender.locale, tz=tz, now=uow.now),
            request_key=f"{situation.signal.fact_id}:policy",
        )
        concern_service.enqueue(
            uow,
            request=request,
            purpose="policy",
            ack_person_id=situation.sender.person_id,
            ack_channel=situation.signal.channel,
            ack_chat_id=_group_of(situation),
        )
