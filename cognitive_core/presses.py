"""Button presses: the toast while the platform waits, then the press as a signal through the same core and flows.

Only the addressee may press; one press per message (the first wins, also across replicas); a press on a closed
loop changes nothing. Every press gets a decision fact; an acting one is then shown under its message (edited).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from action import buttons
from action.models import ActionRequest, ButtonRow, ButtonSpec, Destination
from cognitive_core import flows, press_rules, proposals, rules
from cognitive_core.rules import Decision
from concern import buttons as concern_buttons
from concern import commitments, escalation, press_flows, reminders
from concern import flows as concerns
from concern import service as concern_service
from concern.press_texts import press_text
from fact import decisions
from fact import service as facts
from fact.decisions import DecisionKind
from fact.models import Fact
from kernel.context import UnitOfWork
from kernel.errors import DeputyError
from person import service as persons


def view_of(
    uow: UnitOfWork, button: ButtonRow | None, presser_id: str | None, fact_id: str | None = None
) -> press_rules.PressView:
    """The press as the rules see it, read in the caller's transaction (`fact_id`'s own press is not "used")."""
    if button is None:
        return press_rules.PressView(verb=None, presser_id=presser_id)
    concern = concern_service.get(uow, concern_id=button.concern_id) if button.concern_id else None
    return press_rules.PressView(
        verb=button.verb,
        args=dict(button.args),
        addressee_id=button.addressee_id,
        presser_id=presser_id,
        concern_id=button.concern_id,
        concern_state=concern.state if concern is not None else None,
        pressed=any(
            b.pressed_at is not None and b.press_fact_id != fact_id for b in buttons.siblings(uow, button=button)
        ),
    )


def about(button: ButtonRow | None) -> dict[str, Any]:
    """What a press fact records of its button, so the log reads on its own."""
    return {"verb": button.verb, "concern_id": button.concern_id} if button is not None else {"verb": None}


def toast(uow: UnitOfWork, *, token: str, presser_id: str | None, fact_id: str) -> str:
    """The answer while the platform waits: the cheap checks' result, or a neutral "received".

    `fact_id` is the press's fact: a platform's retry of a press that already acted is answered as the first was.
    """
    view = view_of(uow, buttons.get(uow, token=token), presser_id, fact_id)
    why = press_rules.verdict(view)
    presser = persons.get(uow, person_id=presser_id) if presser_id else None
    return press_text("received" if why == "ok" else why, presser.locale if presser else "zh")


def process(uow: UnitOfWork, fact: Fact, people: tuple = ()) -> None:
    """Decide and carry out one press (inside the inbox's transaction); `people` as the rules see them."""
    content = fact.content
    presser_id = content.get("person_id")
    button = buttons.get(uow, token=content.get("token", ""))
    view = view_of(uow, button, presser_id)
    if press_rules.verdict(view) == "ok" and not buttons.claim_press(uow, button=button, fact_id=fact.fact_id):
        view = press_rules.PressView(**{**view.__dict__, "pressed": True})  # another press of it won the race
    decision = press_rules.decide_press(view)
    decision_id = decisions.record(
        uow,
        kind=decision.kind,
        rule=decision.rule,
        inputs=[fact.fact_id, *([view.concern_id] if view.concern_id else [])],
        requested=[decision.params | {"kind": decision.kind.value}],
        person_refs=fact.person_refs,
        source="cognitive_core",
    )
    if decision.kind == DecisionKind.ignore or button is None:
        return
    presser = persons.get_or_404(uow, person_id=presser_id)
    if button.verb in proposals.VERBS:  # an LLM proposal's Confirm · Cancel
        outcome = proposals.carry_out(uow, button=button, presser=presser, press=fact, people=people)
    elif button.verb in press_rules.PICKS:  # a choice on a question the bot asked back
        outcome = _picked(uow, decision, button, presser, decision_id, fact)
    else:
        outcome = _carry_out(uow, decision, button, presser, decision_id)
    keep: list[ButtonSpec] = []
    if isinstance(outcome, Refused):  # nothing happened: the message keeps its buttons, pressable again
        keep = _labelled(buttons.release(uow, button=button), presser.locale)
        facts.append(
            uow,
            fact_type="system",
            source="cognitive_core",
            causation_id=decision_id,
            person_refs=fact.person_refs,
            content={"event": "press_released", "fact_id": fact.fact_id, "reason": str(outcome)},
        )
    # Other items of the same message (a brief) keep their buttons.
    keep += _labelled(buttons.others_on_message(uow, button=button), presser.locale)
    key = f"{fact.fact_id}:press"
    closed = concern_service.get(uow, concern_id=button.concern_id) if button.concern_id else None
    if button.verb == "cancel" and closed is not None and closed.state == "cancelled":
        key = f"{closed.concern_id}:outcome:cancelled"  # how the loop ends for its originator: told once, like /cancel
    _show(uow, button=button, presser=presser, outcome=outcome, fact=fact, decision_id=decision_id, key=key, keep=keep)


def _carry_out(uow: UnitOfWork, decision: Decision, button: ButtonRow, presser: Any, decision_id: str) -> str:
    """Apply the decision through the concern engine; the outcome as the presser reads it."""
    verb, concern_id, locale = button.verb, button.concern_id, presser.locale
    concern = concern_service.get(uow, concern_id=concern_id) if concern_id else None
    names = _names(uow, concern)
    if verb == "later":
        changed = concerns.snooze(
            uow,
            concern_id=concern_id,
            duration=timedelta(seconds=decision.params["duration_s"]),
            decision_id=decision_id,
        )
        if changed is None:
            return press_text("nothing", locale)
        until = press_flows.when_for(uow, person_id=presser.person_id, instant=changed.step_at)
        return press_text("later", locale, until=until)
    if verb == "tomorrow":
        moment = press_flows.defer_to_morning(uow, concern_id=concern_id, decision_id=decision_id)
        if moment is None:
            return press_text("nothing", locale)
        return press_text(
            "tomorrow", locale, until=press_flows.when_for(uow, person_id=presser.person_id, instant=moment)
        )
    if verb == "cancel":
        try:
            with uow.session.begin_nested():
                concerns.cancel(
                    uow, concern_id=concern_id, by=presser.person_id, is_admin=False, decision_id=decision_id
                )
        except DeputyError:
            return press_text("nothing", locale)
        return press_text("cancelled", locale, **names)
    if verb in ("approve", "decline"):
        resolved = press_flows.decide(
            uow, concern_id=concern_id, by=presser.person_id, approve=verb == "approve", decision_id=decision_id
        )
        if resolved is None:
            return press_text("nothing", locale)
        return press_text("decided", locale, answer=resolved.answer or "", **names)
    if verb == "not_me":
        done = press_flows.not_me(uow, concern_id=concern_id, by=presser.person_id, decision_id=decision_id)
        return press_text("not_me" if done else "nothing", locale, **names)
    if verb == "reassign":
        done = press_flows.ask_for_someone_else(uow, concern_id=concern_id, by=presser.person_id)
        return press_text("reassign" if done else "nothing", locale)
    if verb == "done" and concern is not None and concern.kind == "reminder":
        closed = reminders.done(uow, concern_id=concern_id, by=presser.person_id, decision_id=decision_id)
        return reminders.render("done", locale) if closed else press_text("nothing", locale)
    if verb == "remind_later":
        moved = reminders.later(
            uow,
            concern_id=concern_id,
            by=presser.person_id,
            decision_id=decision_id,
            delay=timedelta(seconds=decision.params["duration_s"]),
        )
        if moved is None:
            return press_text("nothing", locale)
        until = press_flows.when_for(uow, person_id=presser.person_id, instant=moved.due_at)
        return reminders.render("later", locale, until=until)
    if verb == "done":  # a commitment's check-in: kept
        kept = commitments.complete_commitment(
            uow, concern_id=concern_id, by=presser.person_id, decision_id=decision_id
        )
        return press_text("done" if kept else "nothing", locale, **names)
    if verb == "extend":
        hours = int(decision.params.get("hours", 2))
        later = commitments.extend_commitment(
            uow, concern_id=concern_id, by=presser.person_id, hours=hours, decision_id=decision_id, tell=False
        )
        if later is None:
            return press_text("nothing", locale)
        until = press_flows.when_for(uow, person_id=presser.person_id, instant=later.due_at)
        return press_text("extended", locale, until=until)
    if verb == "handle":
        return _outcome(
            escalation.take_escalation(uow, concern_id=concern_id, by=presser.person_id, decision_id=decision_id)
        )
    if verb in ("nudge", "remind"):
        return _outcome(escalation.nudge(uow, concern_id=concern_id, by=presser.person_id, decision_id=decision_id))
    raise ValueError(f"no handler for the button verb {verb!r}")


def _labelled(rows: list[ButtonRow], locale: str) -> list[ButtonSpec]:
    """Buttons shown again: with the label they were minted with (a brief item's number), else their set's."""
    if not rows or not all(row.args.get("label") for row in rows):
        return concern_buttons.shown_again(rows, locale)
    ranked = sorted(rows, key=lambda row: (row.request_key, row.args.get("at", 0)))
    return [ButtonSpec(label=r.args["label"], token=r.token, style=r.args.get("style", "default")) for r in ranked]


def _picked(uow: UnitOfWork, decision: Decision, button: ButtonRow, presser: Any, decision_id: str, fact: Fact) -> str:
    """A choice on a question the bot asked back: the original request goes ahead as if typed in full."""
    locale = presser.locale
    if button.verb == "nudge_pick":
        return _outcome(
            escalation.nudge(
                uow, concern_id=decision.params["concern_id"], by=presser.person_id, decision_id=decision_id
            )
        )
    sender = rules.PersonView(
        person_id=presser.person_id,
        display_name=presser.display_name,
        role=presser.role,
        locale=locale,
        timezone=presser.timezone,
    )
    signal = rules.SignalView(fact_id=fact.fact_id, channel=fact.content.get("channel") or "", text="")
    situation = rules.Situation(signal=signal, sender=sender, people=(sender,), now=uow.now)
    flows.apply(uow, decision, decision_id=decision_id, situation=situation, fact_id=fact.fact_id)
    if button.verb == "cancel_pick":
        return press_text("picked", locale)
    target = persons.get(uow, person_id=decision.params["target_person_id"])
    verb = "picked_tell" if decision.kind == DecisionKind.direct_action else "picked_ask"
    return press_text(verb, locale, target=target.display_name if target else "")


class Refused(str):
    """An outcome that changed nothing yet (a nudge L1 or L3 holds back): the buttons stay for a later try."""


def _outcome(result: escalation.PressOutcome) -> str:
    return Refused(result.text) if result.code in ("refused", "not_yet") else result.text


def _names(uow: UnitOfWork, concern: Any) -> dict[str, str]:
    if concern is None:
        return {"asker": "", "target": ""}
    asker = persons.get(uow, person_id=concern.originator_id)
    target = persons.get(uow, person_id=concern.target_person_id)
    return {"asker": asker.display_name if asker else "", "target": target.display_name if target else ""}


def _show(
    uow: UnitOfWork,
    *,
    button: ButtonRow,
    presser: Any,
    outcome: str,
    fact: Fact,
    decision_id: str,
    key: str,
    keep: list[ButtonSpec],
) -> None:
    """Edit the pressed message to its text plus the outcome, without buttons (a new message where it cannot be)."""
    where = None
    if button.channel and button.chat_id and button.message_id:
        where = Destination(channel=button.channel, chat_id=button.chat_id, message_id=button.message_id)
    text = f"{button.text}\n\n— {outcome}" if button.text and where is not None else outcome
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=presser.person_id,
        text=text,
        reactive=True,
        origin_channel=fact.content.get("channel"),
        notification_type="reply",
        destination=where,
        request_key=key,
        buttons=keep if where is not None else [],
    )
    concern_service.enqueue(uow, request=request, purpose="reply")
