"""Decision facts are immutable: those recorded before commands existed (no `command`, only the flat `requested`)
are read by everything that reads decisions — a held LLM proposal is still carried out as it showed, and the API,
the search, the trace and the console show them as they show the new ones."""

from __future__ import annotations

from sqlalchemy import select

from app.pipeline import tick
from concern import buttons as concern_buttons
from concern.outbound import reply
from fact import decisions, trace
from fact.decisions import DecisionKind
from fact.models import Fact
from tests.conftest import ADMIN_TOKEN
from tests.integration.press_helpers import buttons_to, outcomes_to, press
from tests.integration.story_helpers import say

OLD_PROPOSAL = {  # what cognitive_core/proposals.py held before the decision carried a command
    "template": "llm_confirm",
    "proposed": {
        "kind": "raise_concern",
        "rule": "ask",
        "params": {"target_person_id": "p_zhangsan", "question": "上线的事有谱了吗？", "priority": "P1"},
    },
    "kind": "reply",
    "raw": '{"intent": "ask", "person": "p_zhangsan"}',
}


def _held_the_old_way(ctx) -> str:
    """An LLM proposal's decision in the old shape, its confirmation sent to the principal with Confirm · Cancel."""
    with ctx.uow(actor="cognitive_core") as uow:
        decision_id = decisions.record(
            uow, kind=DecisionKind.reply, rule="llm_proposal", requested=[OLD_PROPOSAL], person_refs=["p_boss"]
        )
        key = f"{decision_id}:confirm"
        shown = concern_buttons.for_proposal(
            uow, request_key=key, addressee_id="p_boss", locale="zh", decision_id=decision_id
        )
        reply(uow, to="p_boss", text="要我去问张三：“上线的事有谱了吗？”吗？", decision_id=decision_id,
              channel="feishu", key=key, buttons=shown)  # fmt: skip
    return decision_id


def test_a_proposal_held_before_commands_existed_is_carried_out_on_confirm(ctx, client, team):
    feishu, telegram = team
    held = _held_the_old_way(ctx)
    tick(ctx)  # the confirmation goes out with its buttons
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["确认"])
    [concern] = client.get("/v1/concerns").json()["items"]
    assert (concern["target_person_id"], concern["question"]) == ("p_zhangsan", "上线的事有谱了吗？")
    assert telegram.texts_to("tg_zs") == ["老板想了解：上线的事有谱了吗？"]
    assert outcomes_to(ctx, "p_boss")[-1].endswith("好的，这就去办")
    with ctx.reader() as uow:
        facts = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision")).all()
    [confirmed] = [f.content for f in facts if f.content["rule"] == "llm_proposal:confirmed"]
    assert confirmed["inputs"][1] == held
    assert confirmed["command"] == {
        "type": "ask",
        "target_person_id": "p_zhangsan",
        "question": "上线的事有谱了吗？",
        "priority": "P1",
        "deadline": None,
        "deadline_words": None,
    }


def test_an_old_decision_reads_in_the_api_the_search_the_trace_and_the_console(ctx, client, team):
    with ctx.uow(actor="cognitive_core") as uow:
        decision_id = decisions.record(
            uow,
            kind=DecisionKind.raise_concern,
            rule="ask",
            requested=[{"target_person_id": "p_zhangsan", "question": "周报什么时候交？", "priority": "P1"}],
            person_refs=["p_boss"],
        )
        chain = trace.causes(uow, refs=[decision_id])
    assert [step["kind"] for step in chain] == ["decision"]
    [fact] = client.get("/v1/facts", params={"fact_type": "decision", "q": "周报什么时候交"}).json()["items"]
    assert fact["content"]["decision_id"] == decision_id and "command" not in fact["content"]
    assert client.post("/console/login", data={"token": ADMIN_TOKEN}, follow_redirects=False).status_code == 303
    page = client.get(f"/console/facts/{decision_id}")
    assert page.status_code == 200 and "raise_concern" in page.text and "周报什么时候交？" in page.text


def test_a_decision_records_exactly_the_command_carried_out_beside_its_flat_shape(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 线上挂了，能看下吗")
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["稍后 2小时"])
    items = client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"]
    by_rule = {f["content"]["rule"]: f["content"] for f in items}
    ask, later = by_rule["ask"], by_rule["press:later"]
    assert ask["command"] == {
        "type": "ask",
        "target_person_id": "p_zhangsan",
        "question": "线上挂了，能看下吗？",
        "priority": "P0",
        "deadline": None,
        "deadline_words": None,
    }
    assert ask["requested"][0]["question"] == "线上挂了，能看下吗？"  # the flat shape, as readers always had it
    concern_id = client.get("/v1/concerns").json()["items"][0]["concern_id"]
    assert later["command"] == {"type": "snooze", "concern_id": concern_id, "duration_s": 7200}
