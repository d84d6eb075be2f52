"""Phrasings learned from corrections, end to end on both databases: taught by a press or by a request worded again,
confirmed once, then acted on; another principal never reads them."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from cognitive_core import phrasings
from concern.models import Concern
from fact.models import Fact
from tests.integration.action_helpers import add_person
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say

UNSURE = "张三那事怎么说"  # neither the table nor the gist reads it; the classifier offers [去问张三] [张三回复了吗]


def _asked(ctx) -> list[tuple[str, str]]:
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Concern).order_by(Concern.created_at, Concern.concern_id))
        return [(c.target_person_id, c.question) for c in rows]


def _facts(ctx, fact_type: str) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == fact_type).order_by(Fact.pk)))


def _rule(ctx) -> str:
    return _facts(ctx, "decision")[-1].content["rule"]


def _learned(ctx, principal_id: str = "p_boss") -> list[phrasings.Learned]:
    with ctx.reader() as uow:
        return list(phrasings.of(uow, principal_id=principal_id))


def test_a_phrasing_taught_by_a_press_is_understood_at_once_next_time(ctx, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text=UNSURE)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问张三"])
    [taught] = _learned(ctx)
    assert (taught.shape, taught.intent, taught.how, taught.example) == ("{person}那事怎么说", "ask", "press", UNSURE)
    [fact] = _facts(ctx, "phrasing")
    assert fact.person_refs == ["p_boss"] and fact.content["taught_by"] == _facts(ctx, "button_pressed")[-1].fact_id
    say(ctx, channel="feishu", user="ou_boss", text="王五那事怎么说")
    assert _rule(ctx) == "learned:confirm"  # understood at once: no did-you-mean, one question back
    assert feishu.texts_to("ou_boss")[-1] == "要我去问王五：“那事怎么说？”吗？"
    assert list(buttons_to(feishu, "ou_boss")) == ["去问王五"] and [t for t, _ in _asked(ctx)] == ["p_zhangsan"]


def test_the_first_contact_through_a_learned_phrasing_is_confirmed_with_one_tap_then_it_acts_directly(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=UNSURE)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问张三"])
    say(ctx, channel="feishu", user="ou_boss", text="李四那事怎么说")
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问李四"])
    assert _asked(ctx)[-1][0] == "p_lisi" and len(telegram.texts_to("tg_ls")) == 1
    assert [f.content["event"] for f in _facts(ctx, "phrasing")] == [phrasings.LEARNED, phrasings.CONFIRMED]
    say(ctx, channel="feishu", user="ou_boss", text="王五那事怎么说")
    assert _rule(ctx) == "ask:learned:ask" and _asked(ctx)[-1][0] == "p_wangwu"  # directly, no question back
    assert feishu.texts_to("ou_wangwu") and feishu.texts_to("ou_boss")[-1].startswith("已发给王五")


def test_a_missed_request_worded_again_within_ten_minutes_teaches_its_shape_with_the_body(ctx, team, clock):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="张三 看下报价单发了没")
    clock.advance(timedelta(minutes=9))
    say(ctx, channel="feishu", user="ou_boss", text="问下张三报价单发了没")
    [taught] = _learned(ctx)
    assert (taught.shape, taught.intent, taught.how) == ("{person} 看下{body}", "ask", "reword")
    say(ctx, channel="feishu", user="ou_boss", text="王五 看下合同寄出去没有")
    assert feishu.texts_to("ou_boss")[-1] == "要我去问王五：“合同寄出去没有？”吗？"


def test_a_request_worded_again_after_ten_minutes_teaches_nothing(ctx, team, clock):
    say(ctx, channel="feishu", user="ou_boss", text="张三 看下报价单发了没")
    clock.advance(timedelta(minutes=10, seconds=1))
    say(ctx, channel="feishu", user="ou_boss", text="问下张三报价单发了没")
    assert _learned(ctx) == [] and _facts(ctx, "phrasing") == []


def test_a_request_after_a_miss_about_something_else_teaches_nothing(ctx, team, clock):
    say(ctx, channel="feishu", user="ou_boss", text="张三 天气不错")
    say(ctx, channel="feishu", user="ou_boss", text="谢谢")
    clock.advance(timedelta(minutes=1))
    say(ctx, channel="feishu", user="ou_boss", text="问下张三合同签了没")
    say(ctx, channel="feishu", user="ou_boss", text="问下李四合同签了没")
    assert _learned(ctx) == []


def test_a_learned_read_is_answered_at_once_the_first_time(ctx, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi 提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text=UNSURE)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["张三回复了吗"])
    assert [(p.shape, p.intent) for p in _learned(ctx)] == [("{person}那事怎么说", "status")]
    say(ctx, channel="feishu", user="ou_boss", text="李四那事怎么说")
    assert _rule(ctx) == "learned:status"
    assert feishu.texts_to("ou_boss")[-1].startswith("李四还没回你问的“提测什么时候能给？”")


def test_another_principal_does_not_read_this_principals_phrasing(ctx, team):
    feishu, _ = team
    add_person(ctx, "p_chief", display_name="陈总", role="principal",
               bindings=[{"channel": "feishu", "external_user_id": "ou_chief"}])  # fmt: skip
    say(ctx, channel="feishu", user="ou_boss", text=UNSURE)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问张三"])
    say(ctx, channel="feishu", user="ou_chief", text="李四那事怎么说")
    assert _rule(ctx) == "did_you_mean:guess" and _learned(ctx, "p_chief") == []


def test_a_removed_phrasing_no_longer_matches_and_its_tombstone_is_a_fact(ctx, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text=UNSURE)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问张三"])
    [taught] = _learned(ctx)
    with ctx.uow(actor="ops") as uow:
        assert phrasings.remove(uow, principal_id="p_boss", phrasing_id=taught.phrasing_id)
        assert not phrasings.remove(uow, principal_id="p_boss", phrasing_id=taught.phrasing_id)  # once
    tombstone = _facts(ctx, "phrasing")[-1]
    assert tombstone.content == {"event": phrasings.REMOVED, "principal_id": "p_boss",
                                 "phrasing_id": taught.phrasing_id, "actor": "ops"}  # fmt: skip
    assert tombstone.causation_id == taught.phrasing_id
    say(ctx, channel="feishu", user="ou_boss", text="李四那事怎么说")
    assert _rule(ctx) == "did_you_mean:guess" and _learned(ctx) == []


LESSON = {"missed": "fact_missed_1", "shape": "{person}那事怎么说", "intent": "ask", "example": UNSURE}


def test_a_book_read_inside_a_transaction_that_rolled_back_is_not_kept(ctx, team):
    book = phrasings.Book()
    try:
        with ctx.uow(actor="test") as uow:
            phrasings.learn(uow, principal_id="p_boss", lesson=LESSON, how="press", taught_by="f", causation_id="d")
            assert [p.shape for p in phrasings.of(uow, principal_id="p_boss", book=book)] == [LESSON["shape"]]
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    with ctx.uow(actor="test") as uow:
        assert phrasings.of(uow, principal_id="p_boss", book=book) == ()


def test_a_phrasing_learned_elsewhere_is_read_by_every_book_and_its_removal_too(ctx, team):
    mine, theirs = phrasings.Book(), phrasings.Book()
    for book in (mine, theirs):
        with ctx.uow(actor="test") as uow:
            assert phrasings.of(uow, principal_id="p_boss", book=book) == ()
    with ctx.uow(actor="test") as uow:
        phrasing_id = phrasings.learn(
            uow, principal_id="p_boss", lesson=LESSON, how="press", taught_by="f", causation_id="d"
        )
    with ctx.uow(actor="test") as uow:
        assert [p.phrasing_id for p in phrasings.of(uow, principal_id="p_boss", book=theirs)] == [phrasing_id]
        assert phrasings.learn(uow, principal_id="p_boss", lesson={**LESSON, "missed": "fact_missed_2"},
                               how="reword", taught_by="f2", causation_id="d2") is None  # fmt: skip
        phrasings.remove(uow, principal_id="p_boss", phrasing_id=phrasing_id)
    with ctx.uow(actor="test") as uow:
        assert phrasings.of(uow, principal_id="p_boss", book=theirs) == ()
        assert phrasings.of(uow, principal_id="p_boss", book=mine) == ()
