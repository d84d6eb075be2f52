"""The recipient's side (issue 23): "why am I getting this?" and "too many messages" under proactive messages,
through the real press path (perception's inbound port, the inbox, the handler table), on both databases."""

from datetime import timedelta

from sqlalchemy import select

from app.pipeline import tick
from concern.models import Concern
from fact.models import Fact
from tests.integration.press_helpers import buttons_to, outcomes_to, press
from tests.integration.story_helpers import say

ASK = "/ask @p_zhangsan P1 提测什么时候能给？"
H = timedelta(hours=1)
WHY, FEWER = "为什么收到这条？", "消息太多"


def _loop(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern).order_by(Concern.created_at, Concern.concern_id)).first()


def _policy(client, person_id):
    return client.get(f"/v1/persons/{person_id}").json()["interaction_policy"]


def _set(client, person_id, **policy):
    response = client.patch(f"/v1/persons/{person_id}/interaction_policy", json=policy)
    assert response.status_code == 200, response.text


def _eased(ctx, person_id):
    """The person's own "too many messages" changes, oldest first."""
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Fact).where(Fact.fact_type == "person_changed").order_by(Fact.pk))
        return [f for f in rows if f.content["person_id"] == person_id and f.content.get("reason")]


def _rules(ctx):
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision").order_by(Fact.pk))
        return [f.content["rule"] for f in rows]


def test_why_on_a_follow_up_says_who_asked_when_which_follow_up_and_when_the_next_comes(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    clock.advance(4 * H)
    tick(ctx)  # the first follow-up, 16:00
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[WHY])
    assert telegram.texts_to("tg_zs")[-1] == (
        "老板在 今天 12:00 请我问你：“提测什么时候能给？”，这是第1次跟进。还没回复的话，下一次提醒在 明天 16:00。"
    )
    clock.advance(24 * H)
    tick(ctx)  # the second and last follow-up; then the escalation to 张三's manager, 王五
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[WHY])
    assert telegram.texts_to("tg_zs")[-1] == (
        "老板在 03-18（周三）12:00 请我问你：“提测什么时候能给？”，这是第2次跟进。"
        "之后不会再提醒你；到 明天 16:00 还没有回复的话，会请王五跟进。"
    )


def test_why_reads_the_times_in_the_readers_timezone_and_language(ctx, clock, client, team):
    _, telegram = team
    response = client.patch("/v1/persons/p_lisi", json={"timezone": "Europe/Berlin"})
    assert response.status_code == 200, response.text
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi P1 weekly report done?")
    press(ctx, channel="telegram", user="tg_ls", token=buttons_to(telegram, "tg_ls")["Why this?"])
    # 12:00 in Shanghai is 05:00 in Berlin; 李四 has no manager, so no escalation is promised.
    assert telegram.texts_to("tg_ls")[-1] == (
        "老板 asked me today 05:00 to ask you: “weekly report done?”. If there's no answer, the next reminder comes "
        "today 09:00."
    )


def test_why_changes_nothing_and_leaves_the_message_and_its_buttons_as_they_were(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    before = _loop(ctx)
    labels = buttons_to(telegram, "tg_zs")
    [asked] = [d for d in telegram.sent if d.message.buttons]
    for _ in range(2):  # a second press is a second question: answered again
        press(ctx, channel="telegram", user="tg_zs", token=labels[WHY])
    after = _loop(ctx)
    assert (after.version, after.step_at, after.follow_up_count) == (before.version, before.step_at, 0)
    assert _eased(ctx, "p_zhangsan") == [] and _policy(client, "p_zhangsan")["max_proactive_contacts_per_day"] == 5
    assert telegram.texts_to("tg_zs")[-1] == telegram.texts_to("tg_zs")[-2]
    assert telegram.shown(asked.message_id) == (asked.message.text, asked.message.buttons)  # never edited
    press(ctx, channel="telegram", user="tg_zs", token=labels["稍后 2小时"])  # the question's own buttons still work
    assert _loop(ctx).step_at == clock.now() + 2 * H


def test_too_many_lowers_the_persons_own_cap_by_one_as_their_change_and_tells_the_principal_in_the_brief(
    ctx, clock, client, team
):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[FEWER], event_id="cb_once")
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[FEWER], event_id="cb_once")
    assert _policy(client, "p_zhangsan")["max_proactive_contacts_per_day"] == 4  # the platform's retry: once
    [change] = _eased(ctx, "p_zhangsan")
    assert (change.content["actor"], change.source, change.content["tell"]) == ("p_zhangsan", "person", "p_boss")
    assert change.person_refs == ["p_zhangsan", "p_boss"]
    assert outcomes_to(ctx, "p_zhangsan")[-1].endswith(
        "— 好的，以后每天最多给你发 4 条主动消息。我会在老板的简报里说一声。"
    )
    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    assert "• 张三觉得消息有点多，已把每天最多提醒调到 4 条" in feishu.texts_to("ou_boss")[-1]


def test_too_many_acts_once_per_message_and_again_on_another_message(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    question = buttons_to(telegram, "tg_zs")
    press(ctx, channel="telegram", user="tg_zs", token=question[FEWER])
    assert press(ctx, channel="telegram", user="tg_zs", token=question[FEWER]) == "已经处理过了"  # a double tap
    assert _policy(client, "p_zhangsan")["max_proactive_contacts_per_day"] == 4
    clock.advance(4 * H)
    tick(ctx)  # a follow-up: a new message, a new request
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[FEWER])
    assert _policy(client, "p_zhangsan")["max_proactive_contacts_per_day"] == 3
    assert "press:used" in _rules(ctx) and _rules(ctx).count("press:fewer") == 2


def test_too_many_at_the_cap_floor_spaces_the_follow_ups_and_at_the_limit_suggests_a_pause(ctx, clock, client, team):
    _, telegram = team
    _set(client, "p_zhangsan", max_proactive_contacts_per_day=1)
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    asked = clock.now()
    assert _loop(ctx).step_at == asked + 4 * H
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[FEWER])
    policy = _policy(client, "p_zhangsan")
    assert (policy["max_proactive_contacts_per_day"], policy["follow_up_stretch"]) == (1, 1.5)
    assert _loop(ctx).step_at == asked + 6 * H  # the waiting loop takes its longer wait at once
    assert outcomes_to(ctx, "p_zhangsan")[-1].endswith(
        "— 好的，以后跟进会隔得更久一些（间隔为原来的 1.5 倍）。我会在老板的简报里说一声。"
    )
    _set(client, "p_zhangsan", follow_up_stretch=4.0)
    clock.advance(24 * H)
    tick(ctx)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")[FEWER])
    assert outcomes_to(ctx, "p_zhangsan")[-1].endswith(
        "已经调到最少了：每天最多 1 条，跟进间隔也已最长。想暂停一段时间的话，发“/pause 3d”即可。"
    )
    assert len(_eased(ctx, "p_zhangsan")) == 1  # nothing changed the second time: no fact


def test_a_press_by_anyone_but_the_addressee_does_nothing_and_says_so(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    labels = buttons_to(telegram, "tg_zs")
    assert press(ctx, channel="telegram", user="tg_ls", token=labels[FEWER]) == "This button is not for you"
    assert press(ctx, channel="telegram", user="tg_ls", token=labels[WHY]) == "This button is not for you"
    assert _policy(client, "p_zhangsan")["max_proactive_contacts_per_day"] == 5 and _eased(ctx, "p_zhangsan") == []
    assert telegram.texts_to("tg_ls") == [] and _rules(ctx).count("press:not_yours") == 2
    assert press(ctx, channel="telegram", user="tg_zs", token=labels[FEWER]) == "收到"  # still the addressee's


def test_a_message_passed_on_says_who_asked_and_that_nothing_follows(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="告诉张三明早10点开会")
    labels = buttons_to(telegram, "tg_zs")
    assert list(labels) == [WHY, FEWER]
    press(ctx, channel="telegram", user="tg_zs", token=labels[WHY])
    assert telegram.texts_to("tg_zs")[-1] == "老板在 今天 12:00 请我把这条消息转告你。之后不会再为这件事提醒你。"
    press(ctx, channel="telegram", user="tg_zs", token=labels[FEWER])
    assert [f.content["tell"] for f in _eased(ctx, "p_zhangsan")] == ["p_boss"]


def test_an_escalation_tells_its_manager_why_and_when_it_would_come_again(ctx, clock, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    for wait in (4, 24, 24):  # two follow-ups, then the escalation to 王五
        clock.advance(wait * H)
        tick(ctx)
    assert _loop(ctx).state == "escalated"
    labels = buttons_to(feishu, "ou_wangwu")
    assert list(labels) == ["我来处理", "提醒他", WHY, FEWER]
    press(ctx, channel="feishu", user="ou_wangwu", token=labels[WHY])
    assert feishu.texts_to("ou_wangwu")[-1] == (
        "老板在 03-18（周三）12:00 请我问张三：“提测什么时候能给？”，张三一直没有回复，所以请你帮忙跟进。"
        "没有人接手的话，明天 16:00 会再提醒你一次。"
    )


def test_the_loops_own_people_get_no_recipient_buttons(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    assert list(buttons_to(feishu, "ou_boss")) == ["催一下", "取消"]  # the principal's own confirmation
    say(ctx, channel="telegram", user="tg_zs", text="提醒我1分钟后提交周报")
    assert all(WHY not in d.message.buttons for d in telegram.sent)
