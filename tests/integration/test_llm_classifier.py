"""The optional LLM classifier: only for free text the rules answer with help; the rules still decide."""

import json

import httpx
import pytest

from cognitive_core.llm import OpenAICompatibleClassifier
from tests.integration.story_helpers import say


def _fake_llm(answer: str | None, seen: list):
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        if answer is None:
            return httpx.Response(503, text="overloaded")
        return httpx.Response(200, json={"choices": [{"message": {"content": answer}}]})

    return OpenAICompatibleClassifier(
        "http://llm.test/v1", api_key="k", model="m", transport=httpx.MockTransport(handle)
    )


def test_free_text_is_rewritten_into_a_command_and_recorded_as_such(ctx, client, team):
    seen = []
    ctx.classifier = _fake_llm("/ask @p_zhangsan 提测什么时候能给？", seen)
    say(ctx, channel="feishu", user="ou_boss", text="帮我催一下张三提测的事")
    [concern] = client.get("/v1/concerns").json()["items"]
    assert concern["question"] == "提测什么时候能给？"
    decision = client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"][-1]
    assert decision["content"]["rule"] == "llm:ask"
    assert "p_zhangsan: 张三" in seen[0]["messages"][0]["content"]


@pytest.mark.parametrize("answer", [None, "NONE", "sure, I'll ask him!"])
def test_an_unusable_or_failing_llm_falls_back_to_the_rules(ctx, client, team, answer):
    feishu, _ = team
    ctx.classifier = _fake_llm(answer, [])
    say(ctx, channel="feishu", user="ou_boss", text="帮我催一下张三提测的事")
    assert client.get("/v1/concerns").json()["items"] == []
    assert feishu.texts_to("ou_boss")[-1].startswith("我可以帮你")


def test_commands_never_go_to_the_llm(ctx, client, team):
    seen = []
    ctx.classifier = _fake_llm("/help", seen)
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    assert seen == []


def test_the_classifier_is_asked_while_no_write_lock_is_held(ctx, client, team):
    if not ctx.db.is_sqlite:
        return  # PostgreSQL has no database-wide write lock to hold
    import sqlite3

    from sqlalchemy.engine import make_url

    path = make_url(ctx.settings.database_url).database
    locked = []

    def handle(request: httpx.Request) -> httpx.Response:
        probe = sqlite3.connect(path, timeout=0.2, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
        except sqlite3.OperationalError:
            locked.append(True)
        finally:
            probe.close()
        return httpx.Response(200, json={"choices": [{"message": {"content": "/concerns"}}]})

    ctx.classifier = OpenAICompatibleClassifier(
        "http://llm.test/v1", api_key=None, model="m", transport=httpx.MockTransport(handle)
    )
    say(ctx, channel="feishu", user="ou_boss", text="我现在在等谁的回复来着")
    assert locked == []
    assert (
        client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"][0]["content"]["rule"]
        == "llm:concerns"
    )
