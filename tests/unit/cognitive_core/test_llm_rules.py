"""The LLM's proposal is judged like a typed command: the rules and the people decide, not the model."""

from datetime import UTC, datetime

import pytest

from cognitive_core.llm.rules import judge, not_understood, wants_llm
from cognitive_core.rules import Decision, PersonView, SignalView, Situation, decide
from concern.commands import Reply

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # 10:00 in Shanghai, a Wednesday
BOSS = PersonView("p_boss", "老板", role="principal", timezone="Asia/Shanghai")
ZS = PersonView("p_zhangsan", "张三", aliases=("Zhang San",))
PEOPLE = (BOSS, ZS)


def sit(text="上线那块儿张三那边有谱了吗", sender=BOSS):
    return Situation(SignalView("fact_20260318_001", "feishu", text), sender, PEOPLE, (), NOW)


def fields(intent="ask", person="p_zhangsan", text="上线了吗？", **more):
    return {"intent": intent, "person": person, "text": text, "priority": None, "deadline": None, **more}


def test_an_ask_becomes_the_decision_the_typed_command_would_give():
    verdict = judge(fields(priority="P0"), sit())
    assert verdict.outcome == "confirm" and verdict.target == ZS
    assert verdict.decision == decide(sit("/ask @p_zhangsan P0 上线了吗？"))[0]


def test_a_person_is_found_by_name_or_alias_like_a_typed_one():
    assert judge(fields(person="Zhang San"), sit()).target == ZS
    assert judge(fields(person="@张三"), sit()).target == ZS


def test_a_deadline_from_the_model_is_kept_only_when_ahead():
    verdict = judge(fields(deadline="2026-03-20T18:00:00+08:00"), sit())
    assert verdict.decision.params["deadline"] == "2026-03-20T18:00:00+08:00"
    assert judge(fields(deadline="2026-03-17T18:00:00+08:00"), sit()).why == "deadline"
    assert judge(fields(deadline="2026-03-20T18:00:00"), sit()).why == "deadline"  # no offset: whose 18:00?
    assert judge(fields(deadline="周五前"), sit()).decision.params["deadline_words"] == "周五前"
    assert judge(fields(deadline="someday"), sit()).why == "deadline"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (fields(person="p_ghost"), "unknown_person"),
        (fields(person=None), "unknown_person"),
        (fields(person="p_boss"), "ask:self"),
        (fields(priority="urgent"), "priority"),
        (fields(text=""), "text"),
        (fields(text=42), "text"),
        (fields(intent="pay"), "intent"),
        (fields(intent="none"), "no_intent"),
        ("not an object", "intent"),
    ],
)
def test_an_impossible_proposal_is_dropped_with_the_reason(data, why):
    verdict = judge(data, sit())
    assert (verdict.outcome, verdict.why) == ("drop", why)


def test_a_member_cannot_get_through_the_llm_what_they_cannot_type():
    member = PersonView("p_wangwu", "王五")
    assert judge(fields(), Situation(SignalView("f", "feishu", "x"), member, (*PEOPLE, member), (), NOW)).why == (
        "ask:not_principal"
    )


def test_reads_are_answered_at_once():
    assert judge(fields("status", None, None), sit()).outcome == "answer"
    assert judge(fields("did", None, None), sit()).decision.rule == "did"


def test_only_a_principals_message_the_rules_did_not_understand_goes_to_the_llm():
    helped = [Decision("not_understood", Reply("not_understood", {"hint": "ask"}))]
    assert not_understood(helped) and wants_llm(sit(), helped)
    assert not wants_llm(sit(sender=ZS), helped)
    assert not wants_llm(sit("/frobnicate"), helped)
    assert not not_understood(decide(sit("/concerns")))
