"""`decide` is pure: the same situation always gives the same decisions, no database needed."""

from datetime import UTC, datetime, timedelta

import pytest

from cognitive_core.language.parsing import parse
from cognitive_core.rules import PersonView, SignalView, Situation, WaitingConcern, decide, find_person

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
BOSS = PersonView("p_boss", "老板", role="principal")
ZS = PersonView(
    "p_zhangsan", "张三", aliases=("Zhang San", "老张"), manager_id="p_wangwu", external_ids=(("telegram", "tg_zs"),)
)
WW = PersonView("p_wangwu", "王五")
PEOPLE = (BOSS, ZS, WW)


def sit(text, sender=BOSS, *, waiting=(), chat_type="p2p", mentions_bot=False, reply_to=None, mentions=()):
    return Situation(
        SignalView("fact_20260318_001", "feishu", text, chat_type, mentions_bot, mentions, reply_to),
        sender,
        PEOPLE,
        tuple(waiting),
        NOW,
    )


@pytest.mark.parametrize(
    "text",
    [
        "/ask @zhangsan 提测什么时候能给？",
        "问一下张三：提测什么时候能给？",
        "ask Zhang San: 提测什么时候能给？",
        "/ask 老张 提测什么时候能给？",
    ],
)
def test_ask_commands_raise_a_p2_concern_on_the_named_person_in_words_ending_as_a_question(text):
    [d] = decide(sit(text))
    assert d.kind == "raise_concern" and d.params == {
        "target_person_id": "p_zhangsan",
        "question": "提测什么时候能给？",
        "priority": "P2",
    }


@pytest.mark.parametrize(
    ("text", "priority"),
    [
        ("问一下张三：提测什么时候能给？尽快", "P1"),
        ("问一下张三：服务器挂了吗，急", "P0"),
        ("/ask @zhangsan 不急，周报写了吗", "P3"),
        ("/ask @zhangsan P0 周报写了吗", "P0"),
        ("/ask @zhangsan is the P1 bug fixed?", "P2"),  # a priority named inside the question is its words
    ],
)
def test_urgency_words_anywhere_in_a_command_ask_set_its_priority(text, priority):
    [d] = decide(sit(text))
    assert d.kind == "raise_concern" and d.params["priority"] == priority


@pytest.mark.parametrize(
    ("text", "priority"),
    [
        ("/ask @zhangsan [urgent] 服务器怎么样？", "P0"),
        ("问一下张三：【急】服务器怎么样", "P0"),
        ("/ask @zhangsan (ASAP) 服务器怎么样？", "P1"),
    ],
)
def test_an_urgency_tag_in_brackets_sets_the_priority_and_leaves_with_its_brackets(text, priority):
    [d] = decide(sit(text))
    assert d.params["priority"] == priority and d.params["question"] == "服务器怎么样？"


def test_ask_with_a_priority_keeps_it():
    [d] = decide(sit("/ask @p_zhangsan P0 线上挂了，能看下吗"))
    assert d.params["priority"] == "P0" and d.params["question"] == "线上挂了，能看下吗？"


@pytest.mark.parametrize(
    "text", ["/tell @zhangsan 明早10点开会", "告诉张三：明早10点开会", "tell Zhang San: 明早10点开会"]
)
def test_tell_commands_notify_the_person(text):
    [d] = decide(sit(text))
    assert d.kind == "direct_action" and d.params["action"] == "notify" and d.params["text"] == "明早10点开会。"


def test_only_principals_may_ask_or_tell():
    [d] = decide(sit("/ask @p_wangwu 在吗", sender=ZS))
    assert d.kind == "reply" and d.rule == "ask:not_principal"


def test_unknown_person_gets_a_reply_naming_them():
    [d] = decide(sit("问一下赵六：在吗"))
    assert (d.params["template"], d.params["who"]) == ("unknown_person", "赵六")


def test_unknown_sender_is_ignored():
    assert decide(sit("/ask @zhangsan hi", sender=None))[0].rule == "unknown_sender"
    assert decide(sit("你好", sender=None))[0].rule == "unknown_sender"


@pytest.mark.parametrize("text", ["/help", "/start", "帮助"])
def test_an_unknown_senders_help_is_answered_with_how_to_get_linked(text):
    [d] = decide(sit(text, sender=None))
    assert (d.kind, d.rule, d.params) == ("reply", "unknown_sender:help", {"template": "stranger_help"})


def test_group_messages_count_only_when_the_bot_is_mentioned():
    assert decide(sit("问一下张三：在吗", chat_type="group"))[0].rule == "group_without_mention"
    assert decide(sit("@Deputy 问一下张三：在吗", chat_type="group", mentions_bot=True))[0].kind == "raise_concern"


def test_free_text_from_the_target_resolves_the_most_recently_contacted_concern():
    older = WaitingConcern("con_20260318_001", "p_boss", "a", last_contact_at=NOW - timedelta(hours=5))
    newer = WaitingConcern("con_20260318_002", "p_boss", "提测什么时候能给", last_contact_at=NOW - timedelta(hours=1))
    [d, promise] = decide(sit("明天下午", sender=ZS, waiting=[older, newer]))  # a time, to "when can you deliver"
    assert d.kind == "resolve_concern" and d.params == {"concern_id": "con_20260318_002", "answer": "明天下午"}
    assert promise.rule == "commitment_in_answer" and promise.params["parent_id"] == "con_20260318_002"


def test_a_quoted_bot_message_picks_its_concern():
    older = WaitingConcern(
        "con_20260318_001", "p_boss", "a", message_refs=("feishu:om_1",), last_contact_at=NOW - timedelta(hours=5)
    )
    newer = WaitingConcern("con_20260318_002", "p_boss", "b", last_contact_at=NOW)
    assert (
        decide(sit("好的", sender=ZS, waiting=[older, newer], reply_to="feishu:om_1"))[0].params["concern_id"]
        == "con_20260318_001"
    )


def test_snooze_needs_a_waiting_concern():
    waiting = [WaitingConcern("con_20260318_001", "p_boss", "a", last_contact_at=NOW)]
    [d] = decide(sit("稍后 2小时", sender=ZS, waiting=waiting))
    assert d.kind == "snooze_concern" and d.params["duration_s"] == 7200
    assert decide(sit("later 2h", sender=ZS))[0].params["template"] == "nothing_to_snooze"


@pytest.mark.parametrize("text", ["这个合同能不能先签？", "Can you approve the budget?", "报销单需要批准"])
def test_risky_member_messages_escalate_to_their_manager(text):
    [d] = decide(sit(text, sender=ZS))
    assert d.kind == "escalate" and d.params["decision_maker_id"] == "p_wangwu"


def test_risk_without_a_manager_goes_to_a_principal_and_principals_are_not_escalated():
    lonely = PersonView("p_lisi", "李四")
    assert (
        decide(Situation(SignalView("f", "feishu", "contract?"), lonely, (*PEOPLE, lonely), (), NOW))[0].params[
            "decision_maker_id"
        ]
        == "p_boss"
    )
    assert decide(sit("合同怎么样了"))[0].kind == "reply"  # a principal's risky words are only answered


def test_a_reply_beats_risk_keywords():
    waiting = [WaitingConcern("con_20260318_001", "p_boss", "合同呢？", last_contact_at=NOW)]
    assert decide(sit("合同明天签", sender=ZS, waiting=waiting))[0].kind == "resolve_concern"


def test_a_principals_message_that_matches_nothing_gets_one_did_you_mean_line_not_the_help():
    assert decide(sit("合同那个事你看着办"))[0].params == {"template": "not_understood", "hint": "ask"}
    guessed = decide(sit("别烦我了行吗"))[0].params  # the classifier's readings as buttons, or the one hint line
    assert guessed["template"] in ("did_you_mean", "not_understood") and guessed["hint"] != "help"


def test_a_members_message_that_matches_nothing_gets_the_member_help():
    assert decide(sit("这个怎么弄", sender=WW))[0].params == {"template": "help"}


def test_a_greeting_is_greeted_thanks_get_a_social_reply_and_an_ack_a_nod():
    assert decide(sit("你好"))[0].params == {"template": "greeting"}
    for thanks in ("谢谢", "辛苦了", "ok thanks", "thx 辛苦", "谢啦 👍"):
        assert decide(sit(thanks))[0].params == {"template": "social_thanks"}, thanks
    for ack in ("好的收到", "👍", "知道了", "got it 👍", "sounds good"):
        assert decide(sit(ack))[0].params == {"template": "social_ack"}, ack


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("/concerns", "concerns"),
        ("在等谁", "concerns"),
        ("/cancel con_20260318_001", "cancel"),
        ("取消 con_20260318_001", "cancel"),
        ("/did", "did"),
        ("今天做了什么", "did"),
        ("/quiet 22:00-08:00", "quiet"),
        ("免打扰 22:00-08:00", "quiet"),
        ("/pause 3d", "pause"),
        ("暂停 3天", "pause"),
        ("/resume", "resume"),
        ("恢复", "resume"),
        ("/help", "help"),
        ("帮助", "help"),
        ("/start ABCD2345", "bind"),
        ("bind abcd2345", "bind"),
    ],
)
def test_command_table_in_both_languages(text, name):
    assert parse(text).name == name


def test_did_arguments():
    intent = parse("/did 48h @zhangsan")
    assert intent.args == {"window": timedelta(hours=48), "who": "@zhangsan"}
    assert parse("/did all 7d").args == {"window": timedelta(days=7), "all": True}


def test_person_matching_by_id_name_alias_and_mention():
    assert find_person("p_zhangsan", PEOPLE) is ZS
    assert find_person("@zhangsan", PEOPLE) is ZS
    assert find_person("ZHANG SAN", PEOPLE) is ZS
    assert find_person("@张三同学", PEOPLE, mentions=(("tg_zs", "@张三同学"),)) is ZS
    assert find_person("nobody", PEOPLE) is None
