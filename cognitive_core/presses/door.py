"""The press door: the toast while the platform waits, then the press as a signal through the same tables.

Only the addressee may press; one press per message (the first wins, also across replicas); a press on a closed
loop changes nothing. Every press gets a decision fact carrying its command (`press_rules.VERBS`); the command goes
through the concern engine's handler table like a typed one, and its outcome is shown under the message (edited).
"""

from __future__ import annotations

from typing import Any

from cognitive_core import flows, phrasings
from cognitive_core.llm import proposals
from cognitive_core.presses import rules as press_rules
from cognitive_core.situation import Decision, SignalView, Situation
from concern import buttons as concern_buttons
from concern import commands as c
from concern import handlers, outbound, recipients, said
from concern import service as concern_service
from concern.outcomes import Outcome, Refused
from concern.texts.press import press_text
from fact import decisions
from fact import service as facts
from fact.models import Fact
from kernel.context import UnitOfWork
from person import service as persons

# A choice on a question the bot asked back: carried out as if typed in full (its answers go to the chat too).
PICKED = {"pick_person": "picked", "ask_or_tell": "picked", "cancel_pick": "picked", "guess": "picked"}


def view_of(uow: UnitOfWork, button: Any, presser_id: str | None, fact_id: str | None = None) -> press_rules.PressView:
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
            b.pressed_at is not None and b.press_fact_id != fact_id
            for b in concern_buttons.siblings(uow, button=button)
        ),
    )


def about(button: Any) -> dict[str, Any]:
    """What a press fact records of its button, so the log reads on its own."""
    return {"verb": button.verb, "concern_id": button.concern_id} if button is not None else {"verb": None}


def toast(uow: UnitOfWork, *, token: str, presser_id: str | None, fact_id: str, locale: str | None = None) -> str:
    """The answer while the platform waits: the cheap checks' result, or a neutral "received".

    `fact_id` is the press's fact: a platform's retry of a press that already acted is answered as the first was.
    `locale`: the presser's, when the caller has read it already.
    """
    view = view_of(uow, concern_buttons.get(uow, token=token), presser_id, fact_id)
    why = press_rules.verdict(view)
    if locale is None:
        presser = persons.get(uow, person_id=presser_id) if presser_id else None
        locale = presser.locale if presser else "zh"
    return press_text("received" if why == "ok" else why, locale)


def process(uow: UnitOfWork, fact: Fact, people: tuple = ()) -> None:
    """Decide and carry out one press (inside the inbox's transaction); `people` as the rules see them."""
    content = fact.content
    presser_id = content.get("person_id")
    button = concern_buttons.get(uow, token=content.get("token", ""))
    view = view_of(uow, button, presser_id)
    claims = press_rules.verdict(view) == "ok" and view.verb not in press_rules.READ_ONLY  # "why" is never spent
    if claims and not concern_buttons.claim_press(uow, button=button, fact_id=fact.fact_id):
        view = press_rules.PressView(**{**view.__dict__, "pressed": True})  # another press of it won the race
    decision = press_rules.decide_press(view)
    decision_id = decisions.record(
        uow,
        kind=decision.kind,
        rule=decision.rule,
        inputs=[fact.fact_id, *([view.concern_id] if view.concern_id else [])],
        requested=[decision.params | {"kind": decision.kind.value}],
        command=c.dump(decision.command),
        person_refs=fact.person_refs,
        source="cognitive_core",
    )
    if isinstance(decision.command, c.Ignore) or button is None:
        return
    presser = persons.get_or_404(uow, person_id=presser_id)
    if isinstance(decision.command, c.Explain):
        _explain(uow, decision.command, button, presser, fact, decision_id)
        return
    text, outcome = _carry_out(uow, decision.command, button, presser, fact, decision_id, people)
    phrasings.after_press(uow, button=button, press=fact, decision_id=decision_id, people=people)  # what it taught
    keep: list[Any] = []
    if isinstance(outcome, Refused):  # nothing happened: the message keeps its buttons, pressable again
        keep = concern_buttons.labelled(concern_buttons.release(uow, button=button), presser.locale)
        facts.append(
            uow,
            fact_type="system",
            source="cognitive_core",
            causation_id=decision_id,
            person_refs=fact.person_refs,
            content={"event": "press_released", "fact_id": fact.fact_id, "reason": text},
        )
    # Other items of the same message (a brief) keep their buttons.
    keep += concern_buttons.labelled(concern_buttons.others_on_message(uow, button=button), presser.locale)
    key = f"{fact.fact_id}:press"
    closed = concern_service.get(uow, concern_id=button.concern_id) if button.concern_id else None
    if button.verb == "cancel" and closed is not None and closed.state == "cancelled":
        key = f"{closed.concern_id}:outcome:cancelled"  # how the loop ends for its originator: told once, like /cancel
    where = (button.channel, button.chat_id, button.message_id)
    message = where if all(where) else None
    shown = f"{button.text}\n\n— {text}" if button.text and message is not None else text
    outbound.show(
        uow,
        to=presser.person_id,
        text=shown,
        decision_id=decision_id,
        channel=content.get("channel"),
        key=key,
        message=message,
        buttons=keep,
    )


def _explain(uow: UnitOfWork, command: c.Explain, button: Any, presser: Any, press: Fact, decision_id: str) -> None:
    """ "Why this?" only reads: answered in a message of its own, the pressed message and its buttons as they were."""
    text = recipients.explain(uow, command=command, reader=presser, minted_at=button.created_at)
    outbound.show(
        uow, to=presser.person_id, text=text, decision_id=decision_id, channel=press.content.get("channel"),
        key=f"{press.fact_id}:press", message=None,
    )  # fmt: skip


def _answer(uow: UnitOfWork, command: c.Command, presser: Any, press: Fact, decision_id: str, people: tuple) -> None:
    """An answer the core gives itself (a reply, a brief, a review), sent to the presser where they pressed."""
    sender = next((p for p in people if p.person_id == presser.person_id), None)
    if sender is None:  # not among the active people any more: nothing to answer
        return
    signal = SignalView(fact_id=press.fact_id, channel=press.content.get("channel") or "", text="")
    situation = Situation(signal=signal, sender=sender, people=people, now=uow.now)
    decision = Decision(f"press:{command.KIND.value}", command)
    flows.apply(uow, decision, decision_id=decision_id, situation=situation, fact_id=press.fact_id)


def _carry_out(
    uow: UnitOfWork, command: c.Command, button: Any, presser: Any, press: Fact, decision_id: str, people: tuple
) -> tuple[str, Outcome | None]:
    """Carry the press's command out; the line shown under the message and the outcome (None for an answer)."""
    if isinstance(command, c.DropProposal):
        return press_text("llm_cancelled", presser.locale), None
    if isinstance(command, c.ConfirmProposal):
        return proposals.confirm(uow, command=command, presser=presser, press=press, people=people), None
    if type(command) in flows.ANSWERS:  # a reading offered (language.guesses): answered as if typed, in the chat
        _answer(uow, command, presser, press, decision_id, people)
        return press_text("picked", presser.locale), None
    channel = press.content.get("channel") or ""
    origin = handlers.Origin(
        decision_id=decision_id, actor_id=presser.person_id, channel=channel, fact_id=press.fact_id
    )
    outcome = handlers.handle(uow, command, origin)
    if button.verb not in PICKED:
        return said.under_press(uow, outcome, presser=presser), outcome
    flows.tell(uow, outcome, origin)  # as if typed: a refusal or a cancellation is answered in the chat
    if isinstance(command, c.Tell | c.Ask):
        target = persons.get(uow, person_id=command.target_person_id)
        verb = "picked_tell" if isinstance(command, c.Tell) else "picked_ask"
        return press_text(verb, presser.locale, target=target.display_name if target else ""), outcome
    return press_text(PICKED[button.verb], presser.locale), outcome
