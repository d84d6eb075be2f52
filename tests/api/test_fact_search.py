"""`GET /v1/facts?q=`: the search index finds exactly what a scan of the facts' human text and record ids finds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from fact import rules, search
from fact import service as facts
from kernel.context import AppContext

# (fact_type, person_refs, content) in the shapes the layers append; Chinese and English, mixed case.
CORPUS: list[tuple[str, list[str], dict[str, Any]]] = [
    (
        "message_received",
        ["p_boss"],
        {
            "channel": "feishu",
            "event_id": "evt_1",
            "message_id": "om_1",
            "chat_id": "oc_1",
            "chat_type": "p2p",
            "external_user_id": "ou_boss",
            "text": "问一下张三：提测什么时候能给？",
            "mentions": [{"external_user_id": "ou_zs", "name": "张三", "is_bot": False}],
            "occurred_at": "2026-03-18T02:00:00Z",
            "person_id": "p_boss",
        },
    ),
    (
        "decision",
        ["p_boss", "p_zhangsan"],
        {
            "decision_id": "dec_20260318_001",
            "kind": "raise_concern",
            "rule": "ask",
            "inputs": ["fact_20260318_001"],
            "requested": [
                {"target_person_id": "p_zhangsan", "question": "提测什么时候能给？", "kind": "raise_concern"}
            ],
            "actor": "cognitive_core",
        },
    ),
    (
        "concern_changed",
        ["p_boss", "p_zhangsan"],
        {
            "concern_id": "con_20260318_001",
            "change": "raised",
            "before": None,
            "after": {"state": "waiting_reply", "answer": None, "escalated_to": None},
            "question": "提测什么时候能给？",
            "priority": "P1",
        },
    ),
    (
        "action_result",
        ["p_zhangsan"],
        {
            "action_id": "act_20260318_001",
            "action_type": "send_message",
            "channel": "telegram",
            "content_preview": "老板想了解：提测什么时候能给？",
            "result": "blocked",
            "result_detail": {"blocked_by": "L1:quiet_hours", "reason": "23:30 Wed is Quiet Time for the person"},
        },
    ),
    (
        "message_received",
        ["p_zhangsan"],
        {"channel": "telegram", "chat_type": "p2p", "text": "明天下午 after the Code Review", "mentions": []},
    ),
    (
        "concern_changed",
        ["p_boss", "p_zhangsan"],
        {
            "concern_id": "con_20260318_001",
            "change": "resolved",
            "before": {"state": "waiting_reply", "answer": None},
            "after": {"state": "resolved", "answer": "明天下午 after the Code Review", "answered_by": "p_zhangsan"},
        },
    ),
    (
        "person_changed",
        ["p_wangwu"],
        {
            "change": "created",
            "person_id": "p_wangwu",
            "after": {"display_name": "王五", "aliases": ["Wang Wu", "老王"], "channel_bindings": []},
        },
    ),
    (
        "external_signal",
        ["p_wangwu"],
        {
            "source": "ci",
            "signal_type": "build_failed",
            "external_id": "b-4711",
            "content": {"title": "构建失败: Build 4711", "stages": [{"name": "unit tests", "failed": 3}]},
        },
    ),
    (
        "system",
        [],
        {"event": "signal_processing_failed", "error": "KeyError", "message": "no reply text in build 50%"},
    ),
    ("message_received", ["p_wangwu"], {"channel": "feishu", "text": "收到，我看下 REVIEW 意见", "mentions": []}),
]
# Two- and three-character Chinese, longer phrases, English in other cases, punctuation, one character.
FOUND = ["提测", "下午", "王五", "提测什", "明天下午", "什么时候能给", "review", "Code REVIEW", "wang wu", "build 4711"]
FOUND += ["quiet time", "50%", "unit tests", "3", "提", "问一下张三：", "构建失败:", "老王"]
# Record ids the facts are about: what an operator pastes (and the console's loop timeline looks up).
IDS = ["con_20260318_001", "act_20260318_001", "dec_20260318_001", "fact_20260318_001", "20260318_001"]
# Only ever keys or other machine values (person ids, states, rules, channels, event names): never searched.
ONLY_KEYS = ["channel", "content_preview", "chat_type", "display_name", "waiting_reply", "raise_concern", "p_boss"]
ONLY_KEYS += ["feishu", "signal_processing_failed", "requested", "build_failed", "ou_zs", "evt_1"]
ABSENT = ["量子", "量子纠缠", "xylophone", "提测了吗", "%%"]


@pytest.fixture(autouse=True)
def _few_recent(monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL reads the newest texts by LIKE, then asks the gram index: make both parts serve this corpus."""
    monkeypatch.setattr(search, "RECENT", 3)


@pytest.fixture
def corpus(ctx: AppContext, clock) -> list[tuple[str, str, list[str], str]]:
    """The corpus appended 10 minutes apart: (fact_id, fact_type, person_refs, the text a scan would read)."""
    appended = []
    for fact_type, refs, content in CORPUS:
        clock.advance(timedelta(minutes=10))
        with ctx.uow() as uow:
            fact, _ = facts.append(uow, fact_type=fact_type, source="system", content=content, person_refs=refs)
        text = rules.human_text(fact_type, content) + "\n" + rules.references(fact_type, content)
        appended.append((fact.fact_id, fact_type, refs, text))
    return appended


def _scan(corpus, q: str, keep=lambda _t, _r: True) -> list[str]:
    """The plain scan the index must agree with: newest first, case-insensitive substring of the human text."""
    folded = q.casefold()
    return [fid for fid, ftype, refs, text in reversed(corpus) if folded in text.casefold() and keep(ftype, refs)]


def _walk(client, **params) -> list[str]:
    """Every page of `GET /v1/facts` with these parameters, two facts a page, following the cursors."""
    seen: list[str] = []
    cursor = None
    while True:
        response = client.get("/v1/facts", params={"limit": 2, **params, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.text
        page = response.json()
        seen += [item["fact_id"] for item in page["items"]]
        if not (cursor := page["next_cursor"]):
            return seen


@pytest.mark.parametrize("q", FOUND + IDS + ONLY_KEYS + ABSENT)
def test_search_returns_what_a_scan_of_the_human_text_returns(client, corpus, q):
    assert _walk(client, q=q) == _scan(corpus, q)


@pytest.mark.parametrize("q", ["提测", "明天下午", "review", "王五", "3", "wang wu"])
def test_search_finds_the_terms_people_wrote(client, corpus, q):
    assert _scan(corpus, q), "the oracle would agree with an index that found nothing"
    assert _walk(client, q=q) == _scan(corpus, q)


def test_a_record_id_finds_the_facts_about_that_record(client, corpus):
    ids = {name: fid for name, (fid, *_) in zip(("ask", "decision", "raised", "action"), corpus, strict=False)}
    resolved = corpus[5][0]
    assert _walk(client, q="con_20260318_001") == [resolved, ids["raised"]]
    # Substrings, as for text: fact_20260318_001 (the decision's input) holds act_20260318_001 too.
    assert _walk(client, q="ACT_20260318_001") == [ids["action"], ids["decision"]]
    assert _walk(client, q="dec_20260318_001") == [ids["decision"]]


@pytest.mark.parametrize("q", ONLY_KEYS)
def test_a_term_found_only_in_json_keys_or_other_machine_values_matches_nothing(client, corpus, q):
    everything = client.get("/v1/facts", params={"limit": 500}).json()["items"]
    assert any(q.casefold() in str(item["content"]).casefold() for item in everything), "the term is in the JSON"
    assert _walk(client, q=q) == []


@pytest.mark.parametrize("q", ["提测", "明天下午", "review", "提", "wang wu"])
def test_search_combines_with_type_and_person_filters_across_cursor_pages(client, corpus, q):
    assert _walk(client, q=q, fact_type="message_received") == _scan(corpus, q, lambda t, _r: t == "message_received")
    assert _walk(client, q=q, person_id="p_zhangsan") == _scan(corpus, q, lambda _t, r: "p_zhangsan" in r)
    both = _scan(corpus, q, lambda t, r: t == "concern_changed" and "p_boss" in r)
    assert _walk(client, q=q, person_id="p_boss", fact_type="concern_changed") == both


def test_search_combines_with_a_time_window(client, corpus):
    # Facts sit 10 minutes apart from 10:10; the window holds the 4th to the 8th.
    window = {"since": "2026-03-18T10:40:00+08:00", "until": "2026-03-18T11:30:00+08:00"}
    in_window = {fid for fid, *_ in corpus[3:8]}
    for q in ("提测", "明天下午", "review", "build"):
        expected = [fid for fid in _scan(corpus, q) if fid in in_window]
        assert _walk(client, q=q, **window) == expected


def test_a_fact_is_searchable_as_soon_as_its_transaction_commits_and_not_if_it_rolls_back(ctx, client, corpus):
    with pytest.raises(RuntimeError), ctx.uow() as uow:
        facts.append(uow, fact_type="message_received", source="perception", content={"text": "回滚的提测"})
        raise RuntimeError("the use case failed")
    assert _walk(client, q="回滚") == []
    with ctx.uow() as uow:
        kept, _ = facts.append(uow, fact_type="message_received", source="perception", content={"text": "留下的提测"})
    assert _walk(client, q="留下")[0] == kept.fact_id
    assert _walk(client, q="提测")[0] == kept.fact_id


@pytest.mark.parametrize("q", ['"', 'say "ok"', "NEAR(", "a* OR b", "-x", "^abc", "\\", "🙂🙂", "ｆｕｌｌ", "   "])
def test_search_syntax_in_q_is_taken_literally(ctx, client, q):
    with ctx.uow() as uow:
        text = 'they say "ok" NEAR( a* OR b -x ^abc \\ 🙂🙂 ＦＵＬＬ   stop'
        fact, _ = facts.append(uow, fact_type="message_received", source="perception", content={"text": text})
        facts.append(uow, fact_type="message_received", source="perception", content={"text": "nothing here"})
    assert _walk(client, q=q) == [fact.fact_id]
