"""The optional LLM proposes, off the processor's transaction; the rules judge it and the principal confirms."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.pipeline import tick
from app.wiring import build_context
from cognitive_core.llm import worker as llm_worker
from cognitive_core.llm.client import OpenAICompatibleLLM
from perception.models import InboxEntry
from tests.fakes.llm_server import NOT_JSON, RATE_LIMITED, FakeLLM, Reply, garbage, proposal
from tests.integration.press_helpers import buttons_to, outcomes_to, press
from tests.integration.story_helpers import say

VAGUE = "上线那块儿张三那边怎么说"  # no command the rules know, nor a sure guess of the classifier: the LLM is asked
# The rules' answer to it, at once: the classifier's likely readings as buttons (language.guesses).
UNSURE = "我不太确定你的意思，是下面哪一个？"


@pytest.fixture
def llm(ctx):
    """A fake OpenAI-compatible server, configured as the context's LLM."""
    server = FakeLLM().start()
    ctx.classifier = OpenAICompatibleLLM(server.url, api_key="sk-test", model="m", timeout=2.0)
    yield server
    ctx.classifier.close()
    server.stop()


def settle(ctx) -> None:
    """Wait for the LLM requests in flight, then run a pass (the proposal's signal, the actions it queued)."""
    ctx.classifier.settle()
    tick(ctx)


def replica(ctx, clock, llm):
    """Another process over the same database and memory channels, with its own LLM client."""
    other = build_context(ctx.settings, clock=clock)
    other.channels = ctx.channels
    other.classifier = OpenAICompatibleLLM(llm.url, api_key=None, model="m", timeout=2.0)
    return other


def decisions(client, rule_prefix: str) -> list[dict]:
    """Decisions whose rule starts with `rule_prefix`, oldest first."""
    items = client.get("/v1/facts", params={"fact_type": "decision", "limit": 200}).json()["items"]
    return [f["content"] for f in reversed(items) if f["content"]["rule"].startswith(rule_prefix)]


def test_an_ask_the_rules_did_not_understand_is_confirmed_by_the_principal_before_anyone_is_asked(
    ctx, client, team, llm
):
    feishu, telegram = team
    llm.script(proposal("ask", "p_zhangsan", "上线的事有谱了吗？", priority="P1"))
    say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
    settle(ctx)
    first, confirmation = feishu.texts_to("ou_boss")
    assert first == UNSURE  # the rules' "did you mean", at once
    assert confirmation == "要我去问张三：“上线的事有谱了吗？”吗？"
    assert telegram.texts_to("tg_zs") == [] and client.get("/v1/concerns").json()["items"] == []
    [held] = decisions(client, "llm_proposal")
    assert held["rule"] == "llm_proposal"
    assert '"person": "p_zhangsan"' in held["requested"][0]["raw"]
    assert held["requested"][0]["proposed"]["params"]["target_person_id"] == "p_zhangsan"
    request = llm.requests[0]
    assert request["response_format"]["type"] == "json_schema"
    assert "p_zhangsan: 张三, Zhang San" in request["messages"][0]["content"]

    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["确认"])
    [concern] = client.get("/v1/concerns").json()["items"]
    assert (concern["target_person_id"], concern["question"]) == ("p_zhangsan", "上线的事有谱了吗？")
    assert "上线的事有谱了吗？" in telegram.texts_to("tg_zs")[-1]
    assert outcomes_to(ctx, "p_boss")[-1].endswith("好的，这就去办")
    assert [d["rule"] for d in decisions(client, "llm_proposal:")] == ["llm_proposal:confirmed"]


def test_a_tell_is_sent_on_confirm_and_cancel_sends_nothing(ctx, client, team, llm):
    feishu, telegram = team
    llm.script(
        proposal("tell", "Zhang San", "the demo moved to Thursday"),
        proposal("tell", "p_zhangsan", "明天不用来了"),
    )
    say(ctx, channel="feishu", user="ou_boss", text="demo thing → Zhang San, Thursday now")
    settle(ctx)
    # the confirmation quotes the words as they will be sent (rewritten for the reader)
    assert feishu.texts_to("ou_boss")[-1] == "要我告诉张三：“the demo moved to Thursday.”吗？"
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["确认"])
    assert "the demo moved to Thursday" in telegram.texts_to("tg_zs")[-1]

    say(ctx, channel="feishu", user="ou_boss", text="张三那边明天的安排你看着办")
    settle(ctx)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["取消"])
    assert not any("明天不用来了" in text for text in telegram.texts_to("tg_zs"))
    assert outcomes_to(ctx, "p_boss")[-1].endswith("好的，不发了")


def test_a_proposal_that_only_reads_is_answered_at_once(ctx, client, team, llm):
    feishu, _ = team
    llm.script(proposal("status"))
    say(ctx, channel="feishu", user="ou_boss", text="最近大家手上的活儿都回我了没")
    settle(ctx)
    assert feishu.texts_to("ou_boss")[-1] == "现在没有在等的事。"
    assert [d["rule"] for d in decisions(client, "llm_proposal")] == ["llm_proposal:concerns"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (garbage(), "garbage"),
        (garbage('{"intent": 3}'), "garbage"),
        (RATE_LIMITED, "rate_limited"),
        (NOT_JSON, "http_error"),
        (Reply(body=proposal("ask", "p_zhangsan", "x").body, delay=3.0), "timeout"),
        (Reply(body=proposal("ask", "p_zhangsan", "x" * 400).body, trickle=0.05), "timeout"),
        (proposal("tell", "p_zhangsan", "a\x00b"), "garbage"),
        (proposal("tell", "p_zhangsan", "a\ud800b"), "garbage"),
        (proposal("tell", "p_zhangsan\x00", "ab"), "garbage"),
    ],
    ids=["prose", "wrong-shape", "429", "502", "slow", "trickling", "nul", "lone-surrogate", "nul-in-person"],
)
def test_a_failing_llm_leaves_the_rules_answer_and_records_why(ctx, client, team, llm, reply, why):
    feishu, telegram = team
    llm.script(reply)
    say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
    settle(ctx)
    [fallback] = decisions(client, "llm_proposal")
    assert (fallback["rule"], fallback["requested"][0]["why"]) == ("llm_proposal:fallback", why)
    assert len(feishu.texts_to("ou_boss")) == 1 and feishu.texts_to("ou_boss")[0] == UNSURE
    assert telegram.texts_to("tg_zs") == [] and client.get("/v1/concerns").json()["items"] == []


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"intent": "ask", "person": "p_nobody", "text": "在吗"}, "unknown_person"),
        ({"intent": "ask", "person": "小张", "text": "在吗"}, "unknown_person"),
        ({"intent": "ask", "person": "p_boss", "text": "在吗"}, "ask:self"),
        ({"intent": "ask", "person": "p_zhangsan", "text": "在吗", "priority": "P9"}, "priority"),
        (
            {"intent": "ask", "person": "p_zhangsan", "text": "在吗", "deadline": "2020-01-01T10:00:00+08:00"},
            "deadline",
        ),
        ({"intent": "tell", "person": "p_zhangsan", "text": "  "}, "text"),
        ({"intent": "fire", "person": "p_zhangsan", "text": "bye"}, "intent"),
        ({"intent": "none"}, "no_intent"),
    ],
    ids=["hallucinated-id", "unknown-name", "self", "priority", "past-deadline", "no-text", "no-such-intent", "none"],
)
def test_a_proposal_the_rules_reject_is_dropped_with_the_reason(ctx, client, team, llm, fields, why):
    feishu, telegram = team
    llm.script(proposal(**{"person": None, "text": None, **fields}))
    say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
    settle(ctx)
    [dropped] = decisions(client, "llm_proposal")
    assert (dropped["rule"], dropped["requested"][0]["why"]) == ("llm_proposal:dropped", why)
    assert dropped["requested"][0]["raw"]  # the model's own words, kept
    assert len(feishu.texts_to("ou_boss")) == 1 and telegram.texts_to("tg_zs") == []


def test_the_daily_budget_is_counted_in_the_database_and_renews_the_next_day(ctx, client, team, clock, llm):
    ctx.settings = ctx.settings.model_copy(update={"llm_daily_budget": 1})
    say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
    settle(ctx)
    other = replica(ctx, clock, llm)  # another replica over the same database
    try:
        say(other, channel="feishu", user="ou_boss", text="张三那个事怎么样了")
        settle(other)
        assert len(llm.requests) == 1
        assert [d["requested"][0]["why"] for d in decisions(client, "llm_proposal")] == [
            "no_intent",
            "budget_exhausted",
        ]
        clock.advance(timedelta(days=1))
        say(other, channel="feishu", user="ou_boss", text="李四那个事怎么样了")
        settle(other)
        assert len(llm.requests) == 2
    finally:
        other.classifier.close()
        other.db.dispose()


def test_only_principals_free_text_goes_to_the_llm(ctx, client, team, llm):
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    say(ctx, channel="feishu", user="ou_wangwu", text="上线那块儿有谱了吗")  # a member
    settle(ctx)
    assert llm.requests == []


def test_the_processor_answers_other_signals_while_the_llm_is_slow(ctx, client, team, llm):
    feishu, _ = team
    gate, asked = threading.Event(), threading.Event()
    llm.script(Reply(body=proposal("status").body, gate=gate, before=asked.set))
    try:
        say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
        assert asked.wait(10)  # the model is thinking …
        say(ctx, channel="feishu", user="ou_boss", text="/concerns")  # … and the next message is answered
        assert feishu.texts_to("ou_boss")[-1] == "现在没有在等的事。"
        assert decisions(client, "llm_proposal") == []
    finally:
        gate.set()
    settle(ctx)
    assert [d["rule"] for d in decisions(client, "llm_proposal")] == ["llm_proposal:concerns"]


def test_no_write_lock_is_held_while_the_llm_is_asked(ctx, client, team, llm):
    if not ctx.db.is_sqlite:
        return  # PostgreSQL has no database-wide write lock to hold
    import sqlite3

    from sqlalchemy.engine import make_url

    path, locked = make_url(ctx.settings.database_url).database, []

    def probe() -> None:
        conn = sqlite3.connect(path, timeout=0.2, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
        except sqlite3.OperationalError:
            locked.append(True)
        finally:
            conn.close()

    llm.script(Reply(body=proposal("status").body, before=probe))
    say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
    settle(ctx)
    assert len(llm.requests) == 1 and locked == []


def test_a_request_recorded_before_a_crash_is_asked_after_the_restart(ctx, client, team, clock, llm, monkeypatch):
    feishu, _ = team
    monkeypatch.setattr(llm_worker, "dispatch", lambda _ctx: 0)  # the process dies before handing it over
    say(ctx, channel="feishu", user="ou_boss", text=VAGUE)
    with ctx.reader() as uow:
        assert uow.session.scalars(select(InboxEntry.state).order_by(InboxEntry.fact_pk)).all() == ["llm_pending"]
    monkeypatch.undo()
    llm.script(proposal("status"))
    restarted = replica(ctx, clock, llm)
    try:
        tick(restarted)
        settle(restarted)
    finally:
        restarted.classifier.close()
        restarted.db.dispose()
    assert [d["rule"] for d in decisions(client, "llm_proposal")] == ["llm_proposal:concerns"]
    assert feishu.texts_to("ou_boss")[-1] == "现在没有在等的事。"
