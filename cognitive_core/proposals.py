"""The LLM's proposal as a signal: judged by the rules, read-only ones answered, contacting ones confirmed first.

Every proposal gets one decision fact: `llm_proposal` (a confirmation with Confirm · Cancel, holding exactly
what Confirm will do), `llm_proposal:<rule>` (answered at once), `llm_proposal:dropped` or
`llm_proposal:fallback` (the rules' help answer, given when the message came, stands; `why` says why).
"""

from __future__ import annotations

from typing import Any

from action.models import ActionRequest, ButtonRow
from cognitive_core import llm_rules, rules
from cognitive_core.flows import apply
from concern import buttons as concern_buttons
from concern import replies
from concern import service as concern_service
from concern.press_texts import press_text
from fact import decisions
from fact.decisions import DecisionKind
from fact.models import Fact
from kernel.context import UnitOfWork

VERBS = ("llm_confirm", "llm_cancel")


def _situation(content: dict[str, Any], fact_id: str, sender: rules.PersonView | None, people, now) -> rules.Situation:
    signal = rules.SignalView(
        fact_id=fact_id,
        channel=content["channel"],
        text=content.get("text", ""),
        chat_type=content.get("chat_type", "p2p"),
        chat_id=content.get("chat_id"),
    )
    return rules.Situation(signal=signal, sender=sender, people=people, now=now)


def process(uow: UnitOfWork, fact: Fact, people: tuple[rules.PersonView, ...]) -> None:
    """Decide on one `llm_proposal` fact (inside the inbox's transaction)."""
    content = fact.content
    raw = content.get("raw", "")
    inputs = [fact.fact_id, content.get("message_fact_id", "")]

    def record(kind: DecisionKind, rule: str, params: dict[str, Any]) -> str:
        requested = [params | {"kind": DecisionKind(kind).value, "raw": raw}]
        return decisions.record(
            uow, kind=kind, rule=rule, inputs=inputs, requested=requested, person_refs=fact.person_refs
        )

    if content.get("status") != "ok":
        record(DecisionKind.ignore, "llm_proposal:fallback", {"why": content.get("status", "unknown")})
        return
    sender = next((p for p in people if p.person_id == content.get("person_id")), None)
    if sender is None or sender.role != "principal":
        record(DecisionKind.ignore, "llm_proposal:fallback", {"why": "sender"})
        return
    situation = _situation(content, fact.fact_id, sender, people, uow.now)
    verdict = llm_rules.judge(content.get("proposal"), situation)
    if verdict.outcome == "drop":
        record(DecisionKind.ignore, "llm_proposal:dropped", {"why": verdict.why})
        return
    decision = verdict.decision
    if verdict.outcome == "answer":
        decision_id = record(decision.kind, f"llm_proposal:{decision.rule}", decision.params)
        apply(uow, decision, decision_id=decision_id, situation=situation, fact_id=fact.fact_id, content=content)
        return
    proposed = {"kind": decision.kind.value, "rule": decision.rule, "params": decision.params}
    decision_id = record(DecisionKind.reply, "llm_proposal", {"template": "llm_confirm", "proposed": proposed})
    _confirm(uow, decision, verdict.target, situation, decision_id)


def _confirm(
    uow: UnitOfWork,
    decision: rules.Decision,
    target: rules.PersonView,
    situation: rules.Situation,
    decision_id: str,
) -> None:
    """`要我去问张三：“…”吗？` with Confirm · Cancel, to the principal."""
    sender = situation.sender
    what = decision.params.get("question") or decision.params.get("text", "")
    template = "llm_confirm_ask" if decision.rule == "ask" else "llm_confirm_tell"
    key = f"{situation.signal.fact_id}:confirm"
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=sender.person_id,
        text=replies.reply(template, sender.locale, target=target.display_name, text=what),
        reactive=True,
        origin_channel=situation.signal.channel,
        notification_type="reply",
        request_key=key,
        buttons=concern_buttons.for_proposal(
            uow, request_key=key, addressee_id=sender.person_id, locale=sender.locale, decision_id=decision_id
        ),
    )
    concern_service.enqueue(uow, request=request, purpose="reply")


def carry_out(uow: UnitOfWork, *, button: ButtonRow, presser: Any, press: Fact, people) -> str:
    """Confirm: do exactly the proposal the button names, through the normal flows; Cancel: drop it."""
    locale = presser.locale
    if button.verb == "llm_cancel":
        return press_text("llm_cancelled", locale)
    held = decisions.get(uow, decision_id=button.args.get("decision_id", ""))
    proposed = ((held.get("requested") or [{}])[0].get("proposed") if held is not None else None) or {}
    sender = next((p for p in people if p.person_id == presser.person_id), None)
    target = next((p for p in people if p.person_id == proposed.get("params", {}).get("target_person_id")), None)
    if held is None or sender is None or target is None or sender.role != "principal":
        return press_text("llm_stale", locale)  # someone left or changed role since: nothing is sent
    decision = rules.Decision(DecisionKind(proposed["kind"]), proposed["rule"], proposed["params"])
    content = {"channel": press.content["channel"]}  # answered where the principal pressed
    situation = _situation(content, press.fact_id, sender, people, uow.now)
    decision_id = decisions.record(
        uow,
        kind=decision.kind,
        rule="llm_proposal:confirmed",
        inputs=[press.fact_id, held["decision_id"]],
        requested=[decision.params | {"kind": decision.kind.value}],
        person_refs=press.person_refs,
    )
    apply(uow, decision, decision_id=decision_id, situation=situation, fact_id=press.fact_id, content=content)
    return press_text("llm_confirmed", locale)
