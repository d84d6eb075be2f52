"""The LLM's proposal as a signal: judged by the rules, read-only ones answered, contacting ones confirmed first.

Every proposal gets one decision fact: `llm_proposal` (a confirmation with Confirm · Cancel, holding exactly the
command Confirm will carry out under `requested[0].proposed.command`), `llm_proposal:<rule>` (answered at once),
`llm_proposal:dropped` or `llm_proposal:fallback` (the rules' help answer, given when the message came, stands;
`why` says why). A proposal held before commands existed has only `kind` and `params`: it is read through
`concern.commands.from_requested`, so an old confirmation still carries out what it showed.
"""

from __future__ import annotations

from typing import Any

from cognitive_core import flows
from cognitive_core.llm import rules as llm_rules
from cognitive_core.situation import Decision, PersonView, SignalView, Situation
from concern import buttons as concern_buttons
from concern import commands as c
from concern import outbound
from concern.texts import replies
from concern.texts.press import press_text
from fact import decisions
from fact.decisions import DecisionKind
from fact.models import Fact
from kernel.context import UnitOfWork


def _situation(content: dict[str, Any], fact_id: str, sender: PersonView | None, people, now) -> Situation:
    signal = SignalView(
        fact_id=fact_id,
        channel=content["channel"],
        text=content.get("text", ""),
        chat_type=content.get("chat_type", "p2p"),
        chat_id=content.get("chat_id"),
    )
    return Situation(signal=signal, sender=sender, people=people, now=now)


def process(uow: UnitOfWork, fact: Fact, people: tuple[PersonView, ...]) -> None:
    """Decide on one `llm_proposal` fact (inside the inbox's transaction)."""
    content = fact.content
    raw = content.get("raw", "")
    inputs = [fact.fact_id, content.get("message_fact_id", "")]

    def record(decision: Decision) -> str:
        requested = [decision.params | {"kind": decision.kind.value, "raw": raw}]
        return decisions.record(
            uow,
            kind=decision.kind,
            rule=decision.rule,
            inputs=inputs,
            requested=requested,
            command=c.dump(decision.command),
            person_refs=fact.person_refs,
        )

    def ignored(rule: str, why: str) -> None:
        record(Decision(rule, c.Ignore({"why": why})))

    if content.get("status") != "ok":
        return ignored("llm_proposal:fallback", content.get("status", "unknown"))
    sender = next((p for p in people if p.person_id == content.get("person_id")), None)
    if sender is None or sender.role != "principal":
        return ignored("llm_proposal:fallback", "sender")
    situation = _situation(content, fact.fact_id, sender, people, uow.now)
    verdict = llm_rules.judge(content.get("proposal"), situation)
    if verdict.outcome == "drop":
        return ignored("llm_proposal:dropped", verdict.why)
    decision = verdict.decision
    if verdict.outcome == "answer":
        answered = Decision(f"llm_proposal:{decision.rule}", decision.command, decision.notes)
        decision_id = record(answered)
        flows.apply(uow, answered, decision_id=decision_id, situation=situation, fact_id=fact.fact_id, content=content)
        return None
    proposed = {
        "kind": decision.kind.value,
        "rule": decision.rule,
        "params": decision.params,
        "command": c.dump(decision.command),
    }
    decision_id = record(Decision("llm_proposal", c.Reply("llm_confirm", {"proposed": proposed})))
    _confirm(uow, decision, verdict.target, situation, decision_id)
    return None


def _confirm(uow: UnitOfWork, decision: Decision, target: PersonView, situation: Situation, decision_id: str) -> None:
    """`要我去问张三：“…”吗？` with Confirm · Cancel, to the principal."""
    sender, command = situation.sender, decision.command
    what = command.question if isinstance(command, c.Ask) else getattr(command, "text", "")
    template = "confirm_ask" if isinstance(command, c.Ask) else "confirm_tell"
    key = f"{situation.signal.fact_id}:confirm"
    shown = concern_buttons.for_proposal(
        uow, request_key=key, addressee_id=sender.person_id, locale=sender.locale, decision_id=decision_id
    )
    outbound.reply(
        uow,
        to=sender.person_id,
        text=replies.reply(template, sender.locale, target=target.display_name, text=what),
        decision_id=decision_id,
        channel=situation.signal.channel,
        key=key,
        buttons=shown,
    )


def held_command(held: dict[str, Any] | None) -> c.Command | None:
    """The command a held proposal's decision names: its `command`, or (an older fact) its kind and params."""
    proposed = ((held.get("requested") or [{}])[0].get("proposed") if held is not None else None) or {}
    if "command" in proposed:
        return c.load(proposed["command"])
    if "kind" in proposed:
        return c.from_requested(proposed["kind"], proposed.get("params", {}))
    return None


def confirm(uow: UnitOfWork, *, command: c.ConfirmProposal, presser: Any, press: Fact, people) -> str:
    """Confirm: carry out exactly the command the held proposal names, through the chat door; the line shown."""
    locale = presser.locale
    held = decisions.get(uow, decision_id=command.decision_id)
    proposal = held_command(held)
    sender = next((p for p in people if p.person_id == presser.person_id), None)
    target_id = getattr(proposal, "target_person_id", None)
    target = next((p for p in people if p.person_id == target_id), None)
    if proposal is None or sender is None or target is None or sender.role != "principal":
        return press_text("llm_stale", locale)  # someone left or changed role since: nothing is sent
    content = {"channel": press.content["channel"]}  # answered where the principal pressed
    situation = _situation(content, press.fact_id, sender, people, uow.now)
    decision = Decision("llm_proposal:confirmed", proposal)
    decision_id = decisions.record(
        uow,
        kind=DecisionKind(decision.kind),
        rule=decision.rule,
        inputs=[press.fact_id, held["decision_id"]],
        requested=[decision.params | {"kind": decision.kind.value}],
        command=c.dump(proposal),
        person_refs=press.person_refs,
    )
    flows.apply(uow, decision, decision_id=decision_id, situation=situation, fact_id=press.fact_id, content=content)
    return press_text("llm_confirmed", locale)
