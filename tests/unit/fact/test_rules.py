"""fact.rules: which fields of a fact are human text, and the grams the search index is built from."""

from __future__ import annotations

import pytest

from fact import rules


def test_a_message_is_searched_by_its_text_and_the_names_it_mentions_not_its_keys_or_ids():
    content = {
        "channel": "feishu",
        "chat_id": "oc_1",
        "text": "问一下张三",
        "mentions": [{"external_user_id": "ou_zs", "name": "张三"}],
        "person_id": "p_boss",
    }
    assert rules.human_text("message_received", content) == "问一下张三\n张三"


@pytest.mark.parametrize(
    ("fact_type", "content", "text"),
    [
        ("decision", {"kind": "ask", "requested": [{"question": "提测？", "target_person_id": "p_x"}]}, "提测？"),
        ("decision", {"requested": [{"concern_id": "con_1", "answer": "明天"}, {"text": "hi", "who": "老王"}]}, None),
        ("concern_changed", {"change": "raised", "question": "Q?", "after": {"answer": None}}, "Q?"),
        ("concern_changed", {"change": "stalled", "after": {"answer": "A"}, "reason": "no manager"}, "A\nno manager"),
        (
            "action_result",
            {"content_preview": "P", "result_detail": {"blocked_by": "L1", "reason": "quiet"}},
            "P\nquiet",
        ),
        ("person_changed", {"after": {"display_name": "王五", "aliases": ["Wang Wu"], "role": "member"}}, None),
        ("system", {"event": "outbox_entry_failed", "error": "KeyError", "message": "boom"}, "boom"),
        (
            "external_signal",
            {"source": "ci", "content": {"title": "Build", "n": 7, "ok": True, "x": [{"y": "z"}]}},
            None,
        ),
    ],
)
def test_each_fact_type_contributes_its_human_fields(fact_type, content, text):
    expected = {
        "decision": "明天\nhi\n老王",
        "person_changed": "王五\nWang Wu",
        "external_signal": "Build\n7\nz",
    }
    assert rules.human_text(fact_type, content) == (text if text is not None else expected[fact_type])


def test_an_unknown_fact_type_or_a_missing_or_odd_field_contributes_nothing():
    assert rules.human_text("gossip", {"text": "x"}) == ""
    assert rules.human_text("message_received", {"mentions": "not a list", "text": 7}) == ""
    assert rules.human_text("decision", {"requested": None}) == ""


def test_searchable_text_is_case_folded_and_bounded():
    assert rules.searchable_text("system", {"message": "Straße REVIEW"}) == "strasse review"
    assert len(rules.searchable_text("system", {"message": "x" * (rules.MAX_CHARS + 5)})) == rules.MAX_CHARS


def test_gram_keys_are_distinct_per_gram_and_fit_a_signed_64_bit_integer():
    top = chr(0x10FFFF)
    assert rules.gram_key("提测") != rules.gram_key("测提")
    # Text never holds NUL (kernel.limits), so every trigram key lies above every bigram key.
    assert rules.gram_key("\x01\x00\x00") > rules.gram_key(top * 2)
    assert rules.gram_key(top * 3) < 2**63
    assert rules.gram_keys("提测提测", 2) == [rules.gram_key("提测"), rules.gram_key("测提")]
    assert rules.gram_keys("ab", 3) == []


def test_record_ids_are_searchable_but_person_ids_states_and_rules_are_not():
    decision = {
        "decision_id": "dec_1",
        "rule": "ask",
        "inputs": ["fact_9", "con_2"],
        "requested": [{"concern_id": "con_2"}],
    }
    assert rules.references("decision", decision) == "dec_1\nfact_9\ncon_2\ncon_2"
    changed = {"concern_id": "con_2", "change": "raised", "after": {"state": "waiting_reply"}, "question": "Q?"}
    assert rules.searchable_text("concern_changed", changed) == "q?\ncon_2"
    person = {"person_id": "p_x", "after": {"display_name": "X", "role": "member"}}
    assert rules.searchable_text("person_changed", person) == "x"
