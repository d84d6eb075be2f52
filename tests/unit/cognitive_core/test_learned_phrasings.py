"""Phrasings learned from corrections, read without a database: shapes and their slots, matching, what teaches."""

from datetime import UTC, datetime, timedelta

import pytest

from cognitive_core import phrasings
from cognitive_core.language import learned, shapes
from cognitive_core.rules import decide
from cognitive_core.situation import Missed, OpenAsk, PersonView, Phrasing, SignalView, Situation
from concern import commands as c

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
BOSS = PersonView("p_boss", "老板", role="principal", timezone="Asia/Shanghai")
ZS = PersonView("p_zhangsan", "张三", aliases=("Zhang San",), external_ids=(("feishu", "ou_zs"),))
LS = PersonView("p_lisi", "李四")
LY = PersonView("p_liuyang", "刘洋")
WL = PersonView("p_wanglei", "王磊")
PRIYA = PersonView("p_priya", "Priya")
PEOPLE = (BOSS, ZS, LS, LY, WL, PRIYA)
ASK_ABOUT = Phrasing("fact_20260318_010", "{person}那事怎么说", "ask")
CHECK = Phrasing("fact_20260318_011", "{person} 看下{body}", "ask", confirmed=True)


def _shape(text: str, intent: str = "ask", body: str | None = None, mentions: tuple = ()) -> str | None:
    return shapes.shape_of(text, intent=intent, people=PEOPLE, speaker_id="p_boss", mentions=mentions, body=body)


def _match(text: str, shape: str, mentions: tuple = ()) -> shapes.Found | None:
    return shapes.match(text, shape, people=PEOPLE, speaker_id="p_boss", mentions=mentions)


def _sit(text: str, *, taught=(), missed=(), open_asks=(), now=NOW) -> Situation:
    signal = SignalView("fact_20260318_100", "feishu", text)
    return Situation(
        signal, BOSS, PEOPLE, (), now, open_asks=tuple(open_asks), phrasings=tuple(taught), missed=tuple(missed)
    )


def test_the_cue_words_stay_fixed_and_the_person_named_is_a_slot():
    assert _shape("张三那事怎么说？") == "{person}那事怎么说"
    found = _match("李四那事怎么说", "{person}那事怎么说")
    assert found.person == LS and found.body == "那事怎么说"


def test_the_body_a_reworded_request_carried_is_the_body_slot_and_a_new_body_fills_it():
    assert _shape("刘洋 看下报价单发了没", body="报价单发了没") == "{person} 看下{body}"
    found = _match("王磊 看下合同寄出去没有", "{person} 看下{body}")
    assert (found.person, found.body) == (WL, "合同寄出去没有")


def test_a_short_cue_next_to_the_person_marks_where_the_body_starts_when_nothing_said_it():
    assert _shape("刘洋 看下报价单发了没") == "{person} 看下{body}"
    assert _shape("瞄一眼刘洋 报价单发了没") == "瞄一眼{person} {body}"
    assert _shape("Priya eta on the deck?") == "{person} eta on {body}"
    assert _match("Priya ETA on the Q3 deck?", "{person} eta on {body}").body == "the Q3 deck"


def test_anyone_known_fills_the_person_slot_by_name_alias_or_mention():
    assert _match("Zhang San那事怎么说", "{person}那事怎么说").person == ZS
    assert _match("@Sam 那事怎么说", "{person}那事怎么说", mentions=(("ou_zs", "@Sam"),)).person == ZS


def test_urgency_words_are_lifted_and_a_deadline_stays_in_the_body_for_the_deadline_reader():
    assert _shape("紧急！刘洋 看下报价单发了没") == "{person} 看下{body}"
    found = _match("急 王磊 看下合同周五前寄出去没有", "{person} 看下{body}")
    assert (found.priority, found.body) == ("P0", "合同周五前寄出去没有")


def test_a_shape_keeps_two_fixed_characters_and_a_slot_never_swallows_every_word():
    assert _shape("刘洋 报价单发了没", body="报价单发了没") == "{person} 报价单发了没"  # not "{person} {body}"
    assert _shape("张三") is None and _shape("张三？") is None
    assert _shape("报价单发了没") is None  # an ask with nobody named has no one to ask
    assert _shape("x" * 200 + " 张三") is None


def test_a_shape_matches_only_its_own_words():
    for text in ("张三今天请假了", "谢谢张三", "王磊 看下", "看下合同寄出去没有", "李四那事怎么说了吗"):
        assert _match(text, "{person} 看下{body}") is None and _match(text, "{person}那事怎么说") is None


def test_chatter_and_thanks_never_teach():
    assert not learned.teachable("谢谢张三") and not learned.teachable("好的") and not learned.teachable("你好")
    assert learned.teachable("张三那事怎么说")
    assert (
        learned.pressed("谢谢张三", verb="ask_or_tell", args={"as": "ask"}, people=PEOPLE, speaker_id="p_boss") is None
    )


def test_a_pressed_reading_teaches_its_intent_and_one_that_only_asked_back_teaches_nothing():
    status = learned.pressed(
        "张三那边最近咋样", verb="guess", args={"intent": "status"}, people=PEOPLE, speaker_id="p_boss"
    )
    assert status == {"shape": "{person}那边最近咋样", "intent": "status", "example": "张三那边最近咋样"}
    assert (
        learned.pressed("张三最近咋样", verb="guess", args={"intent": "pause"}, people=PEOPLE, speaker_id="p_boss")
        is None
    )
    nudge = learned.pressed("张三那个再说说", verb="nudge_pick", args={}, people=PEOPLE, speaker_id="p_boss")
    assert nudge["intent"] == "nudge" and nudge["shape"] == "{person}那个再说说"


def test_the_first_contact_through_a_learned_phrasing_is_one_button_that_carries_exactly_it():
    [d] = decide(_sit("李四那事怎么说", taught=[ASK_ABOUT]))
    assert d.rule == "learned:confirm" and d.command.template == "learned_confirm"
    button = d.command.values["button"]
    assert (button["verb"], button["person_id"], button["args"]["as"]) == ("ask_or_tell", "p_lisi", "ask")
    assert button["args"]["phrasing_id"] == ASK_ABOUT.phrasing_id and d.notes["learned"] == ASK_ABOUT.phrasing_id
    assert d.command.values["text"] == button["args"]["text"] and "那事怎么说" in button["args"]["text"]


def test_once_confirmed_a_learned_contact_acts_directly():
    [d] = decide(_sit("王磊 看下合同寄出去没有", taught=[CHECK]))
    assert isinstance(d.command, c.Ask) and d.rule == "ask:learned:ask"
    assert (d.command.target_person_id, d.command.question) == ("p_wanglei", "合同寄出去没有？")
    [urgent] = decide(_sit("紧急 王磊 看下合同寄出去没有", taught=[CHECK]))
    assert urgent.command.priority == "P0"


def test_a_learned_nudge_is_confirmed_on_the_one_open_question_first():
    taught = Phrasing("fact_20260318_012", "{person}那个再说说", "nudge")
    [d] = decide(_sit("张三那个再说说", taught=[taught], open_asks=[OpenAsk("con_1", "p_zhangsan", "提测？")]))
    assert d.rule == "learned:confirm" and d.command.values["button"]["verb"] == "nudge_pick"
    assert d.command.values["button"]["args"] == {"concern_id": "con_1", "phrasing_id": taught.phrasing_id}
    [direct] = decide(_sit("张三那个再说说", taught=[Phrasing(**{**taught.__dict__, "confirmed": True})],
                             open_asks=[OpenAsk("con_1", "p_zhangsan", "提测？")]))  # fmt: skip
    assert direct.command == c.Nudge("con_1")


def test_a_learned_read_is_answered_at_once_even_the_first_time():
    taught = Phrasing("fact_20260318_013", "{person}那边最近咋样", "status")
    [d] = decide(_sit("李四那边最近咋样", taught=[taught]))
    assert d.rule == "learned:status" and d.command == c.Reply("concerns", {"target_person_id": "p_lisi"})


def test_what_the_table_reads_is_never_read_through_a_learned_phrasing():
    taught = Phrasing("fact_20260318_014", "问问{person}{body}", "tell", confirmed=True)
    [d] = decide(_sit("问问张三提测好了没", taught=[taught]))
    assert isinstance(d.command, c.Ask) and "learned" not in d.notes


def test_a_removed_phrasing_no_longer_matches():
    at = NOW - timedelta(hours=1)
    learned_fact = ("fact_1", at, {"event": phrasings.LEARNED, "principal_id": "p_boss", "shape": ASK_ABOUT.shape,
                                   "intent": "ask", "example": "张三那事怎么说", "how": "press"})  # fmt: skip
    removed = ("fact_2", NOW, {"event": phrasings.REMOVED, "principal_id": "p_boss", "phrasing_id": "fact_1"})
    assert [p.shape for p in phrasings.current((learned_fact,))["p_boss"]] == [ASK_ABOUT.shape]
    assert phrasings.current((learned_fact, removed)) == {}
    [d] = decide(_sit("李四那事怎么说", taught=[]))
    assert not d.rule.startswith("learned")


def test_a_confirmation_fact_makes_the_phrasing_act_directly_and_another_principal_has_none():
    at = NOW - timedelta(hours=1)
    learned_fact = ("fact_1", at, {"event": phrasings.LEARNED, "principal_id": "p_boss", "shape": ASK_ABOUT.shape,
                                   "intent": "ask", "example": "张三那事怎么说", "how": "press"})  # fmt: skip
    confirmed = ("fact_2", NOW, {"event": phrasings.CONFIRMED, "principal_id": "p_boss", "phrasing_id": "fact_1"})
    found = phrasings.current((learned_fact, confirmed))
    assert [p.view.confirmed for p in found["p_boss"]] == [True] and "p_chief" not in found


def _lesson(text: str, miss: Missed, now=NOW) -> dict | None:
    [d] = decide(_sit(text, missed=[miss], now=now))
    return d.notes.get("taught")


def test_a_missed_request_worded_again_within_ten_minutes_teaches_its_shape():
    miss = Missed("fact_m", "刘洋 看下报价单发了没", NOW - timedelta(minutes=3), hint="ask")
    lesson = _lesson("问下刘洋报价单发了没", miss)
    assert lesson == {"missed": "fact_m", "shape": "{person} 看下{body}", "intent": "ask", "example": miss.text}
    assert _lesson("/ask @p_liuyang 报价单发了没", miss)["shape"] == "{person} 看下{body}"  # a typed command too


def test_after_ten_minutes_a_reworded_request_teaches_nothing():
    miss = Missed("fact_m", "刘洋 看下报价单发了没", NOW - learned.WINDOW - timedelta(seconds=1), hint="ask")
    assert _lesson("问下刘洋报价单发了没", miss) is None
    assert _lesson("问下刘洋报价单发了没", Missed(**{**miss.__dict__, "at": NOW - learned.WINDOW})) is not None


def test_an_unrelated_request_after_a_miss_teaches_nothing():
    other_person = Missed("fact_m", "李四 看下报价单发了没", NOW - timedelta(minutes=1), hint="ask")
    assert _lesson("问下刘洋报价单发了没", other_person) is None
    no_shared_words = Missed("fact_m", "张三 天气不错", NOW - timedelta(minutes=1), hint=None)
    assert _lesson("问下张三合同签了没", no_shared_words) is None
    nobody_named = Missed("fact_m", "报价单那个事怎么说", NOW - timedelta(minutes=1), hint="ask")
    assert _lesson("问下刘洋报价单发了没", nobody_named) is None


@pytest.mark.parametrize("thanks", ["谢谢刘洋", "刘洋辛苦了"])
def test_thanks_missed_before_a_request_teach_nothing(thanks):
    assert _lesson("问下刘洋报价单发了没", Missed("fact_m", thanks, NOW - timedelta(minutes=1), hint="ask")) is None


def test_the_closest_reading_of_the_miss_relates_it_when_no_words_are_shared():
    miss = Missed("fact_m", "张三那事怎么说", NOW - timedelta(minutes=2), hint="ask")
    assert _lesson("问下张三合同签了没", miss)["shape"] == "{person}那事怎么说"
    assert _lesson("告诉张三合同签了", miss) is None  # closest to an ask, worded again as a tell: not the same


def test_by_default_a_situation_has_no_phrasings_so_the_evaluation_runs_without_them():
    situation = Situation(SignalView("f", "feishu", "李四那事怎么说"), BOSS, PEOPLE)
    assert situation.phrasings == () and situation.missed == ()


def test_the_heldout_scoring_decides_without_learned_phrasings(monkeypatch):
    from tests.heldout import scoring

    seen: list[Situation] = []
    monkeypatch.setattr(scoring, "decide", lambda situation: seen.append(situation) or decide(situation))
    cast = scoring.cast()
    for row in scoring.rows()[:5]:
        scoring.verdict(row, cast)
    assert seen and all(s.phrasings == () and s.missed == () for s in seen)
