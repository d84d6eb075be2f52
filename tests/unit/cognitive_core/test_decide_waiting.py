"""What a message from someone a concern waits on means: their reply, a command, an acknowledgement — decided purely."""

from datetime import UTC, datetime, timedelta

import pytest

from cognitive_core.language.parsing import is_acknowledgement, keyword_command, slash_command
from cognitive_core.rules import PersonView, SignalView, Situation, WaitingConcern, decide

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
BOSS = PersonView("p_boss", "老板", role="principal")
ZS = PersonView("p_zhangsan", "张三", aliases=("Zhang San",), manager_id="p_wangwu")
WW = PersonView("p_wangwu", "王五")
PEOPLE = (BOSS, ZS, WW)
ASKED = WaitingConcern("con_20260318_001", "p_boss", "提测什么时候能给？", ("telegram:41",), NOW - timedelta(hours=1))
ESCALATED = WaitingConcern(
    "con_20260318_002", "p_boss", "周报呢？", ("feishu:77",), NOW - timedelta(minutes=5), role="escalation"
)


def sit(text, sender=ZS, *, waiting=(ASKED,), reply_to=None):
    return Situation(
        SignalView("fact_20260318_009", "telegram", text, "p2p", False, (), reply_to),
        sender,
        PEOPLE,
        tuple(waiting),
        NOW,
    )


@pytest.mark.parametrize("text", ["收到", "好的", "ok", "OK.", "got it", "我看下", "好的👌", "👍", "Got it!", "嗯嗯"])
def test_a_bare_acknowledgement_keeps_the_loop_open(text):
    [d] = decide(sit(text))
    assert (d.kind, d.rule, d.params["concern_id"]) == ("snooze_concern", "acknowledgement", ASKED.concern_id)


@pytest.mark.parametrize("text", ["好的，周五给你", "ok, tomorrow 3pm", "收到，下午发你"])
def test_an_acknowledgement_with_content_is_an_answer(text):
    d, *promised = decide(sit(text))
    assert d.kind == "resolve_concern" and d.params["answer"] == text
    assert [p.rule for p in promised] == ["commitment_in_answer"]  # each names a time ahead: a promise


@pytest.mark.parametrize(
    ("text", "template"),
    [
        ("/quiet 25:00-08:00", "usage:quiet"),
        ("/pause abc", "usage:pause"),
        ("/cancel", "usage:cancel"),
        ("/ask", "usage:ask"),
        ("/later soon", "usage:later"),
        ("/did nonsense here", None),
    ],
)
def test_anything_that_starts_as_a_command_is_a_command(text, template):
    [d] = decide(sit(text))
    assert d.kind != "resolve_concern"
    if template:
        assert (d.kind, d.params["template"]) == ("reply", template)


def test_an_unknown_slash_command_says_so():
    [d] = decide(sit("/frobnicate now"))
    assert d.params == {"template": "unknown_command", "command": "/frobnicate"}


@pytest.mark.parametrize("text", ["暂停 3天", "免打扰 22:00-08:00", "取消", "恢复"])
def test_for_someone_waited_on_only_slash_commands_are_commands(text):
    d, *_ = decide(sit(text))
    assert d.kind == "resolve_concern" and d.params["answer"] == text


def test_the_snooze_the_follow_up_suggests_still_snoozes():
    [d] = decide(sit("稍后 2小时"))
    assert d.kind == "snooze_concern" and d.params["duration_s"] == 7200


def test_a_principals_request_about_someone_else_is_that_request_even_while_they_owe_an_answer():
    waiting_on_boss = WaitingConcern("con_20260318_003", "p_zhangsan", "合同怎么办？", (), NOW)
    [d] = decide(sit("问一下张三：周报写了吗？", sender=BOSS, waiting=(waiting_on_boss,)))
    assert d.kind == "raise_concern" and d.params["target_person_id"] == "p_zhangsan"
    [d] = decide(sit("不行", sender=BOSS, waiting=(waiting_on_boss,)))
    assert d.kind == "resolve_concern"


def test_the_escalations_recipient_answers_it_and_their_ok_is_not_an_answer():
    [d] = decide(sit("我来跟进，周五前给结果", sender=WW, waiting=(ESCALATED,)))
    assert (d.kind, d.rule, d.params["concern_id"]) == ("resolve_concern", "escalation_reply", ESCALATED.concern_id)
    [d] = decide(sit("好的", sender=WW, waiting=(ESCALATED,)))
    assert (d.kind, d.rule) == ("ignore", "acknowledgement:escalation")


def test_a_quoted_reply_answers_the_quoted_question_among_several():
    d, *_ = decide(sit("周五", sender=WW, waiting=(ASKED, ESCALATED), reply_to="telegram:41"))
    assert (d.rule, d.params["concern_id"]) == ("quoted_reply", ASKED.concern_id)


def test_unquoted_text_answers_the_most_recently_contacted_loop():
    [d] = decide(sit("周五", sender=WW, waiting=(ASKED, ESCALATED)))
    assert d.params["concern_id"] == ESCALATED.concern_id


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/ask@deputy_bot @zs hi", "ask"),
        ("/later 2h", "later"),
        ("/snooze 2h", "later"),
        ("/foo", "/foo"),
        ("hello /ask", None),
    ],
)
def test_slash_commands_are_named_bot_suffix_and_all(text, expected):
    assert slash_command(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("免打扰 25:00", "quiet"), ("暂停 abc", "pause"), ("取消了吗", None), ("bind", "bind")]
)
def test_keyword_commands_without_a_slash_are_recognised_by_their_head(text, expected):
    assert keyword_command(text) == expected


@pytest.mark.parametrize(
    ("text", "ack"), [("收到！", True), ("?", False), ("", False), ("好的，周五给你", False), ("thanks", True)]
)
def test_acknowledgements_are_bare(text, ack):
    assert is_acknowledgement(text) is ack


@pytest.mark.parametrize(
    ("text", "due", "words"),
    [
        ("明天下午3点给你", "2026-03-19T07:00:00+00:00", "明天下午3点"),
        ("周五前搞定", "2026-03-20T10:00:00+00:00", "周五前"),
        ("I'll send it by Friday 5pm", "2026-03-20T09:00:00+00:00", "by Friday 5pm"),
    ],
)
def test_an_answer_naming_a_time_ahead_also_opens_a_commitment_read_in_the_target_timezone(text, due, words):
    target = PersonView("p_zhangsan", "张三", timezone="Asia/Shanghai")
    asked = WaitingConcern("con_20260318_001", "p_boss", "测试报告什么时候给？", last_contact_at=NOW)
    resolve, promise = decide(sit(text, sender=target, waiting=(asked,)))
    assert resolve.kind == "resolve_concern"
    assert (promise.kind, promise.rule) == ("raise_concern", "commitment_in_answer")
    assert promise.params["parent_id"] == "con_20260318_001"
    assert (promise.params["due_at"], promise.params["words"]) == (due, words)


@pytest.mark.parametrize("text", ["已经发你了", "sent it an hour ago", "好的", "报告在附件里"])
def test_an_answer_about_the_past_or_without_a_time_promises_nothing(text):
    target = PersonView("p_zhangsan", "张三", timezone="Asia/Shanghai")
    asked = WaitingConcern("con_20260318_001", "p_boss", "q", last_contact_at=NOW)
    assert [d.rule for d in decide(sit(text, sender=target, waiting=(asked,)))][1:] == []


def test_a_reply_to_a_commitment_check_in_keeps_it_and_opens_no_new_one():
    target = PersonView("p_zhangsan", "张三", timezone="Asia/Shanghai")
    check_in = WaitingConcern("con_20260318_002", "p_boss", "q", last_contact_at=NOW, kind="commitment")
    assert [d.kind for d in decide(sit("明天下午给你", sender=target, waiting=(check_in,)))] == ["resolve_concern"]


def test_the_managers_answer_to_an_escalation_promises_nothing_for_the_target():
    assert [d.kind for d in decide(sit("我来跟进，周五前给结果", sender=WW, waiting=(ESCALATED,)))] == [
        "resolve_concern"
    ]
