"""Process recorded signals: one transaction per signal reads the situation, decides, records and queues actions."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action.ledger import contact_times
from action.models import ActionRequest
from cognitive_core import rules, summaries
from concern import flows as concerns
from concern import messages, reasons, replies
from concern import service as concern_service
from fact import decisions
from fact import service as facts
from fact.decisions import DecisionKind
from kernel.context import AppContext, UnitOfWork
from kernel.errors import Conflict, DeputyError, Forbidden, NotFound
from perception.models import InboxEntry
from person import bind_codes
from person import service as persons
from person.models import ChannelBinding, Person

log = logging.getLogger("deputy.core")


def _people(uow: UnitOfWork) -> tuple[rules.PersonView, ...]:
    ids: dict[str, list[tuple[str, str]]] = {}
    for b in uow.session.scalars(select(ChannelBinding)):
        ids.setdefault(b.person_id, []).append((b.channel, b.external_user_id))
    return tuple(
        rules.PersonView(
            person_id=person.person_id,
            display_name=person.display_name,
            role=person.role,
            locale=person.locale,
            aliases=tuple(person.aliases),
            manager_id=person.manager_id,
            external_ids=tuple(ids.get(person.person_id, ())),
        )
        for person in uow.session.scalars(select(Person).where(Person.active.is_(True)))
    )


def situation_of(uow: UnitOfWork, content: dict, fact_id: str) -> rules.Situation:
    """Everything `decide` needs about one message_received fact."""
    people = _people(uow)
    sender = next((person for person in people if person.person_id == content.get("person_id")), None)
    waiting = []
    if sender is not None:
        for c in concern_service.waiting_on(uow, person_id=sender.person_id):
            _, last = contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
            if last is None:  # a question still held back has not reached them: nothing they say answers it
                continue
            waiting.append(rules.WaitingConcern(c.concern_id, c.originator_id, c.question, tuple(c.message_refs), last))
        for c in concern_service.escalated_to(uow, person_id=sender.person_id):  # their answer resolves the escalation
            waiting.append(
                rules.WaitingConcern(
                    c.concern_id, c.originator_id, c.question, tuple(c.message_refs), c.escalated_at, role="escalation"
                )
            )
    reply_to = content.get("reply_to_message_id")
    signal = rules.SignalView(
        fact_id=fact_id,
        channel=content["channel"],
        text=content.get("text", ""),
        chat_type=content.get("chat_type", "p2p"),
        mentions_bot=bool(content.get("mentions_bot")),
        mentions=tuple((m.get("external_user_id"), m.get("name", "")) for m in content.get("mentions", [])),
        reply_to=f"{content['channel']}:{reply_to}" if reply_to else None,
    )
    return rules.Situation(signal=signal, sender=sender, people=people, waiting=tuple(waiting), now=uow.now)


def _with_rewrite(
    situation: rules.Situation, decided: list[rules.Decision], command: str | None
) -> list[rules.Decision]:
    """Decide again on the classifier's command, if it gave one for free text the rules only answered with help."""
    if command is None or [decision.rule for decision in decided] != ["fallback_help"]:
        return decided
    rewritten = rules.decide(
        replace(situation, signal=replace(situation.signal, text=command, mentions_bot=False, chat_type="p2p"))
    )
    return [
        replace(decision, rule=f"llm:{decision.rule}", params={**decision.params, "llm_command": command})
        for decision in rewritten
    ]


def _llm_hint(ctx: AppContext) -> dict[str, str | None]:
    """Ask the optional classifier about the next pending signal before any write lock (it is a network call)."""
    if ctx.classifier is None:
        return {}
    with ctx.reader() as uow:
        entry = uow.session.scalars(
            select(InboxEntry).where(InboxEntry.state == "pending").order_by(InboxEntry.fact_pk).limit(1)
        ).first()
        fact = facts.get(uow, fact_id=entry.fact_id) if entry else None
        if fact is None or fact.fact_type != "message_received":
            return {}
        situation = situation_of(uow, fact.content, fact.fact_id)
    if situation.sender is None or [decision.rule for decision in rules.decide(situation)] != ["fallback_help"]:
        return {}
    people = [f"{person.person_id}: {person.display_name}, {', '.join(person.aliases)}" for person in situation.people]
    return {fact.fact_id: ctx.classifier.rewrite(situation.signal.text, people=people)}


def _claim(uow: UnitOfWork) -> InboxEntry | None:
    stmt = select(InboxEntry).where(InboxEntry.state == "pending").order_by(InboxEntry.fact_pk).limit(1)
    if uow.postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    return uow.session.scalars(stmt).first()


def process_pending(ctx: AppContext, *, limit: int = 200) -> int:
    """Process waiting signal facts one transaction each (a crash re-processes only the unfinished one)."""
    done = 0
    while done < limit:
        claimed: list[str] = []
        hints = _llm_hint(ctx)
        try:
            with ctx.uow(actor="cognitive_core") as uow:
                entry = _claim(uow)
                if entry is None:
                    break
                claimed.append(entry.fact_id)
                _process(uow, entry, hints)
        except Exception as exc:  # a signal that cannot be processed must not block the ones after it
            if not claimed:
                raise
            log.exception("signal %s could not be processed", claimed[0])
            _quarantine(ctx, claimed[0], exc)
        done += 1
    return done


def _process(uow: UnitOfWork, entry: InboxEntry, hints: dict[str, str | None]) -> None:
    fact = facts.get(uow, fact_id=entry.fact_id)
    if fact.fact_type == "message_received":
        situation = situation_of(uow, fact.content, fact.fact_id)
        for decision in _with_rewrite(situation, rules.decide(situation), hints.get(fact.fact_id)):
            decision_id = decisions.record(
                uow,
                kind=decision.kind,
                rule=decision.rule,
                inputs=[fact.fact_id, *_concern_inputs(decision)],
                requested=[decision.params | {"kind": decision.kind.value}],
                person_refs=fact.person_refs,
            )
            apply(
                uow, decision, decision_id=decision_id, situation=situation, fact_id=fact.fact_id, content=fact.content
            )
    else:
        decisions.record(
            uow,
            kind=DecisionKind.ignore,
            rule="external_signal:recorded_only",
            inputs=[fact.fact_id],
            person_refs=fact.person_refs,
        )
    entry.state, entry.processed_at = "done", uow.now


def _quarantine(ctx: AppContext, fact_id: str, exc: Exception) -> None:
    """Set a failing signal aside (state failed) with a system fact saying why."""
    with ctx.uow(actor="cognitive_core") as uow:
        entry = uow.session.scalars(
            select(InboxEntry).where(InboxEntry.fact_id == fact_id, InboxEntry.state == "pending")
        ).first()
        if entry is None:
            return
        entry.state, entry.processed_at = "failed", uow.now
        facts.append(
            uow,
            fact_type="system",
            source="cognitive_core",
            causation_id=fact_id,
            content={
                "event": "signal_processing_failed",
                "fact_id": fact_id,
                "error": type(exc).__name__,
                "message": str(exc)[:500],
            },
        )


def _concern_inputs(decision: rules.Decision) -> list[str]:
    concern_id = decision.params.get("concern_id")
    return [concern_id] if concern_id else []


def _reply(uow: UnitOfWork, situation: rules.Situation, decision_id: str, text: str, key: str | None = None) -> None:
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=situation.sender.person_id,
        text=text,
        reactive=True,
        origin_channel=situation.signal.channel,
        notification_type="reply",
        request_key=key or f"{situation.signal.fact_id}:reply",
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
    if decision.kind == DecisionKind.reply:
        _reply(uow, situation, decision_id, _reply_text(uow, decision, situation))
    elif decision.kind == DecisionKind.raise_concern:
        outcome = concerns.raise_(
            uow,
            originator_id=sender.person_id,
            target_person_id=params["target_person_id"],
            question=params["question"],
            priority=params["priority"],
            decision_id=decision_id,
            origin_channel=situation.signal.channel,
            source_fact_id=fact_id,
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
            kind="risk",
            source_fact_id=fact_id,
        )
        if isinstance(outcome, str):
            _refused(uow, situation, decision_id, params["decision_maker_id"], outcome)
    elif decision.kind == DecisionKind.resolve_concern:
        concerns.resolve(
            uow,
            concern_id=params["concern_id"],
            answer=params["answer"],
            answered_by=sender.person_id,
            decision_id=decision_id,
        )
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
    if replier is None:
        return  # an unknown sender with a wrong code gets no answer: nobody to answer to
    template = "bound" if outcome == "bound" else "bind_failed"
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
        )
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
        )


def _reply_text(uow: UnitOfWork, decision: rules.Decision, situation: rules.Situation) -> str:
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
    return replies.reply(
        params["template"], sender.locale, who=params.get("who", ""), command=params.get("command", "")
    )
