"""Plain-words requests: who is named, what is lifted out, the fixed readings, and what stays an answer."""

from datetime import UTC, datetime, timedelta

from cognitive_core.language import names
from cognitive_core.language.intents import read
from cognitive_core.presses.rules import PressView, decide_press
from cognitive_core.rules import OpenAsk, PersonView, SignalView, Situation, WaitingConcern, decide

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # Wednesday 10:00 in Shanghai
BOSS = PersonView("p_boss", "老板", role="principal", timezone="Asia/Shanghai")
ZS = PersonView("p_zhangsan", "张三", aliases=("Zhang San",), external_ids=(("telegram", "tg_zs"),))
ZSF = PersonView("p_zhangsanfeng", "张三丰")
ZW = PersonView("p_zhangwei", "张伟")
LI = PersonView("p_li", "Li", aliases=("Li",))
PEOPLE = (BOSS, ZS, ZSF, ZW, LI)


def _read(text, **kw):
    return read(text, people=PEOPLE, sender_id="p_boss", now=NOW, tz="Asia/Shanghai", **kw)


def _decide(text, sender=BOSS, *, waiting=(), open_asks=(), mentions=()):
    signal = SignalView("fact_20260318_001", "feishu", text, mentions=mentions)
    return decide(Situation(signal, sender, PEOPLE, tuple(waiting), NOW, open_asks=tuple(open_asks)))


def test_remind_me_is_never_a_tell_to_someone_called_me():
    assert _read("提醒我明天给张三打电话") is None
    assert _read("remind me to call Zhang San") is None
    assert _read("提醒张三明天交周报").intent == "tell"


def test_the_longest_name_wins_and_english_names_need_word_boundaries():
    assert _read("问一下张三丰：太极练了吗").person is ZSF
    assert _read("ask Lisa about the slides") is None or _read("ask Lisa about the slides").person is not LI
    assert _read("ask Li about the slides").person is LI


def test_traditional_characters_and_platform_mentions_name_the_person():
    assert _read("問一下張三提測好了沒").person is ZS
    reading = _read("问一下@zs_tg 提测好了没", mentions=(("tg_zs", "@zs_tg"),))
    assert reading.person is ZS and reading.args["text"] == "提测好了没"


def test_priority_words_are_lifted_out_of_the_text():
    [d] = _decide("紧急！帮我问问张三线上是不是挂了")
    assert (d.params["priority"], d.params["question"]) == ("P0", "线上是不是挂了？")
    [d] = _decide("不急，告诉张三下周再交也行")
    assert (d.params["priority"], d.params["text"]) == ("P3", "下周再交也行。")


def test_a_deadline_becomes_the_loops_deadline_and_the_words_stay_in_the_question():
    [d] = _decide("问一下张三周五前能不能把方案给我")
    assert d.params["question"] == "周五前能不能把方案给老板？" and d.params["deadline_words"] == "周五前"
    assert datetime.fromisoformat(d.params["deadline"]) == datetime(2026, 3, 20, 10, 0, tzinfo=UTC)  # Fri 18:00


def test_the_decision_records_the_rule_and_the_words_that_matched():
    [d] = _decide("跟张三确认一下周五能不能上线")
    assert d.params["matched"] == {"rule": "ask:zh:confirm_with", "words": "跟张三确认一下…"}


def test_this_week_dont_disturb_me_pauses_until_next_monday_local_midnight():
    [d] = _decide("这周别打扰我")
    assert d.params["patch"] == {"paused_until": "2026-03-22T16:00:00+00:00"}  # Monday 00:00 in Shanghai


def test_quiet_hours_in_words_replace_every_window_said():
    [d] = _decide("晚上10点到早上8点、中午12点到1点半别给我发消息")
    assert d.params["patch"] == {
        "quiet_hours": [{"start": "22:00", "end": "08:00"}, {"start": "12:00", "end": "13:30"}]
    }


def test_an_unknown_name_suggests_the_close_names_and_carries_the_request():
    [d] = _decide("问一下小张：提测好了没")
    assert d.params["template"] == "did_you_mean_person" and d.params["who"] == "小张"
    assert d.params["choices"][:2] == ["p_zhangsan", "p_zhangsanfeng"] and "p_zhangwei" in d.params["choices"]
    assert d.params["request"]["text"] == "提测好了没？" and d.params["request"]["intent"] == "ask"


def test_a_name_with_a_slip_is_guessed():
    assert names.suggest("张叁", PEOPLE)[0] is ZS
    assert names.suggest("Zhnag San", PEOPLE)[0] is ZS


def test_nudge_acts_on_the_one_open_question_asks_which_of_several_and_what_to_ask_of_none():
    one = [OpenAsk("con_20260318_001", "p_zhangsan", "提测？")]
    two = [*one, OpenAsk("con_20260318_002", "p_zhangsan", "周报？")]
    [d] = _decide("催一下张三", open_asks=one)
    assert (d.kind, d.params["action"], d.params["concern_id"]) == ("direct_action", "nudge", "con_20260318_001")
    [d] = _decide("催一下张三", open_asks=two)
    assert d.params["template"] == "nudge_which" and [c for c, _ in d.params["choices"]] == [
        "con_20260318_001",
        "con_20260318_002",
    ]
    assert _decide("催一下张三")[0].params["template"] == "nudge_what"


def test_a_soft_tell_with_a_question_asks_whether_to_ask_or_tell():
    [d] = _decide("跟张三说一下明天能不能早点来？")
    assert d.rule == "ask_or_tell" and d.params["request"]["text"] == "明天能不能早点来？"
    assert _decide("跟张三说一声我晚点到")[0].params["action"] == "notify"


def test_someone_waited_on_answers_with_plain_text_even_when_it_reads_like_a_request():
    waiting = [WaitingConcern("con_20260318_001", "p_boss", "提测？", last_contact_at=NOW - timedelta(hours=1))]
    [d, *_] = _decide("告诉张伟明天开会", sender=ZS, waiting=waiting)
    assert d.kind == "resolve_concern" and d.params["answer"] == "告诉张伟明天开会"


def test_a_principal_who_owes_an_answer_still_asks_someone_else_in_plain_words():
    waiting = [WaitingConcern("con_20260318_001", "p_wangwu", "预算？", last_contact_at=NOW)]
    [d] = _decide("帮我问问张三提测什么时候能给", waiting=waiting)
    assert d.kind == "raise_concern" and d.params["target_person_id"] == "p_zhangsan"


def test_members_may_not_ask_in_plain_words_either():
    assert _decide("帮我问问张伟提测什么时候能给", sender=ZS)[0].rule == "ask:not_principal"


def test_picking_a_person_completes_the_pending_request():
    request = {"intent": "ask", "text": "提测好了没", "priority": "P0", "matched": {"rule": "r", "words": "w"}}
    view = PressView("pick_person", {"person_id": "p_zhangsan", **request}, addressee_id="p_boss", presser_id="p_boss")
    d = decide_press(view)
    assert d.kind == "raise_concern" and d.params["target_person_id"] == "p_zhangsan"
    assert (d.params["question"], d.params["priority"]) == ("提测好了没", "P0")
    tell = PressView("ask_or_tell", {"person_id": "p_zhangsan", "as": "tell", **request}, "p_boss", "p_boss")
    assert decide_press(tell).params["action"] == "notify"
