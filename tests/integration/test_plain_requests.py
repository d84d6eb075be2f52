"""Requests in plain words, end to end: asks and tells, who was meant, ask or tell, nudges, quiet hours and pauses."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from concern.models import Concern
from fact.models import Fact
from tests.integration.action_helpers import add_person
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say


def _concerns(ctx) -> list[Concern]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Concern).order_by(Concern.created_at, Concern.concern_id)))


def _last_decision(ctx) -> dict:
    with ctx.reader() as uow:
        facts = list(uow.session.scalars(select(Fact).where(Fact.fact_type == "decision").order_by(Fact.pk)))
    return facts[-1].content


def test_a_plain_chinese_ask_lifts_priority_and_deadline_and_records_the_rule_and_words(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="紧急！帮我问问张三周五前能不能提测")
    [concern] = _concerns(ctx)
    assert (concern.target_person_id, concern.question, concern.priority) == ("p_zhangsan", "周五前能不能提测？", "P0")
    friday = concern.deadline.astimezone(ZoneInfo("Asia/Shanghai"))
    assert (friday.weekday(), friday.hour) == (4, 18)
    assert any("周五前能不能提测" in text for text in telegram.texts_to("tg_zs"))
    matched = _last_decision(ctx)["requested"][0]["matched"]
    assert matched == {"rule": "ask:zh:verb_first", "words": "帮我问问张三…"}


def test_a_plain_english_tell_is_passed_on(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="let Zhang San know the demo moved to Thursday")
    assert _concerns(ctx) == []
    assert any("the demo moved to Thursday" in text for text in telegram.texts_to("tg_zs"))


def test_an_unknown_name_is_answered_with_the_close_names_and_a_press_completes_the_request(ctx, team):
    feishu, telegram = team
    add_person(ctx, "p_zhangwei", display_name="张伟", bindings=[{"channel": "feishu", "external_user_id": "ou_zw"}])
    say(ctx, channel="feishu", user="ou_boss", text="问一下小张：提测好了没")
    assert feishu.texts_to("ou_boss")[-1] == '我不认识"小张"，你是指 张三 / 张伟 吗？'
    choices = buttons_to(feishu, "ou_boss")
    assert list(choices) == ["张三", "张伟"] and _concerns(ctx) == []
    press(ctx, channel="feishu", user="ou_boss", token=choices["张三"])
    [concern] = _concerns(ctx)
    asked = (concern.target_person_id, concern.question, concern.originator_id)
    assert asked == ("p_zhangsan", "提测好了没？", "p_boss")
    assert any("提测好了没" in text for text in telegram.texts_to("tg_zs"))


def test_a_request_that_may_be_an_ask_or_a_tell_asks_which_and_just_tell_passes_it_on(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="跟张三说一下明天能不能早点来？")
    choices = buttons_to(feishu, "ou_boss")
    assert list(choices) == ["去问（等回复）", "只转告"] and telegram.texts_to("tg_zs") == []
    press(ctx, channel="feishu", user="ou_boss", token=choices["只转告"])
    assert _concerns(ctx) == []
    assert any("明天能不能早点来" in text for text in telegram.texts_to("tg_zs"))


def test_choosing_ask_on_an_ask_or_tell_question_opens_the_loop(ctx, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="跟张三说一下明天能不能早点来？")
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问（等回复）"])
    [concern] = _concerns(ctx)
    assert concern.question == "明天能不能早点来？" and concern.state == "waiting_reply"


def test_nudging_someone_with_one_open_question_nudges_it(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="帮我问问张三提测什么时候能给")
    before = len(telegram.texts_to("tg_zs"))
    clock.advance(timedelta(hours=1))
    say(ctx, channel="feishu", user="ou_boss", text="催一下张三")
    assert len(telegram.texts_to("tg_zs")) == before + 1
    assert feishu.texts_to("ou_boss")[-1] == "好的，马上再催张三一次。"


def test_nudging_someone_with_several_open_questions_asks_which_and_the_press_nudges_that_one(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三提测什么时候能给")
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三周报写了吗")
    before = len(telegram.texts_to("tg_zs"))
    clock.advance(timedelta(hours=1))
    say(ctx, channel="feishu", user="ou_boss", text="催一下张三")
    assert feishu.texts_to("ou_boss")[-1] == "你在等张三回复的有好几件，催哪一件？"
    choices = buttons_to(feishu, "ou_boss")
    assert list(choices) == ["提测什么时候能给？", "周报写了吗？"] and len(telegram.texts_to("tg_zs")) == before
    press(ctx, channel="feishu", user="ou_boss", token=choices["周报写了吗？"])
    assert len(telegram.texts_to("tg_zs")) == before + 1 and "周报写了吗" in telegram.texts_to("tg_zs")[-1]


def test_nudging_someone_with_nothing_open_asks_what_to_ask(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="催一下张三")
    assert feishu.texts_to("ou_boss")[-1].startswith("现在没有在等张三回复的事。要问张三什么？")
    assert telegram.texts_to("tg_zs") == [] and _concerns(ctx) == []


def test_this_week_dont_disturb_me_pauses_until_next_monday_midnight(ctx, client, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="这周别打扰我")
    policy = client.get("/v1/persons/p_boss").json()["interaction_policy"]
    until = datetime.fromisoformat(policy["paused_until"]).astimezone(ZoneInfo("Asia/Shanghai"))
    assert (until.date().isoformat(), until.hour, until.minute) == ("2026-03-23", 0, 0)
    assert "暂停到 03-23 00:00（周一）" in feishu.texts_to("ou_boss")[-1]


def test_quiet_hours_in_words_replace_the_windows_and_the_confirmation_echoes_them(ctx, client, team):
    feishu, _ = team
    client.put("/v1/persons/p_boss/interaction_policy", json={"quiet_hours": [{"start": "12:00", "end": "13:00"}]})
    say(ctx, channel="feishu", user="ou_boss", text="晚上10点到早上8点别给我发消息")
    policy = client.get("/v1/persons/p_boss").json()["interaction_policy"]
    assert policy["quiet_hours"] == [{"start": "22:00", "end": "08:00"}]
    assert "免打扰时段改为每天 22:00–08:00" in feishu.texts_to("ou_boss")[-1]


def test_a_principal_who_owes_an_answer_still_gets_their_plain_request_to_someone_else_done(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
    say(ctx, channel="telegram", user="tg_zs", text="/ask @p_boss 周会几点？")  # members may not ask: refused
    say(ctx, channel="feishu", user="ou_boss", text="告诉张三明早10点开会")
    assert any("明早10点开会" in text for text in telegram.texts_to("tg_zs"))


def test_a_principals_message_that_means_nothing_gets_one_line_not_the_help(ctx, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="那个事你看着办吧")
    [line] = feishu.texts_to("ou_boss")
    assert line.startswith("没看懂；你是想") and "\n" not in line


def test_an_unsure_reading_offers_its_likely_readings_as_buttons_and_one_press_carries_it_out(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="张三那事怎么说")
    assert feishu.texts_to("ou_boss")[-1] == "我不太确定你的意思，是下面哪一个？"
    choices = buttons_to(feishu, "ou_boss")
    assert list(choices) == ["去问张三", "张三回复了吗"]
    assert telegram.texts_to("tg_zs") == [] and _concerns(ctx) == []  # a guess contacts nobody by itself
    assert _last_decision(ctx)["rule"] == "did_you_mean:guess"
    press(ctx, channel="feishu", user="ou_boss", token=choices["去问张三"])
    [concern] = _concerns(ctx)
    assert (concern.target_person_id, concern.originator_id) == ("p_zhangsan", "p_boss")
    assert concern.question in telegram.texts_to("tg_zs")[-1]


def test_a_pressed_harmless_reading_is_answered_in_the_chat_and_a_sure_one_at_once(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="张三那事怎么说")
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["张三回复了吗"])
    status = feishu.texts_to("ou_boss")[-1]  # 张三's status in a message of its own; the pressed one says "done"
    assert status.startswith("张三还没回你问的“提测什么时候能给？”") and len(_concerns(ctx)) == 1
    assert feishu.edits[-1].text == "我不太确定你的意思，是下面哪一个？\n\n— 好的"
    say(ctx, channel="feishu", user="ou_boss", text="有什么在等着")  # the classifier is sure: a status, at once
    assert _last_decision(ctx)["rule"] == "guess:status"
    assert "提测什么时候能给" in feishu.texts_to("ou_boss")[-1] and len(telegram.texts_to("tg_zs")) == 1
