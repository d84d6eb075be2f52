"""Buttons: who may press, one effect per message, closed loops, and what each press does to its loop."""

from datetime import timedelta

from sqlalchemy import select

from action.models import ButtonRow
from app.pipeline import tick
from concern.models import Concern
from fact.models import Fact
from tests.integration.press_helpers import buttons_to, outcomes_to, press
from tests.integration.story_helpers import say

ASK = "/ask @p_zhangsan 提测什么时候能给？"
H = timedelta(hours=1)


def _concern(ctx, concern_id=None) -> Concern:
    with ctx.reader() as uow:
        stmt = select(Concern).order_by(Concern.created_at, Concern.concern_id)  # ids ascend within an instant
        rows = list(uow.session.scalars(stmt))
        return next(c for c in rows if c.concern_id == concern_id) if concern_id else rows[0]


def _decisions(ctx) -> list[str]:
    with ctx.reader() as uow:
        facts = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision").order_by(Fact.pk))
        return [f.content["rule"] for f in facts]


def test_each_actionable_message_carries_its_buttons_in_the_readers_language(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    assert list(buttons_to(telegram, "tg_zs")) == ["稍后 2小时", "明天再说", "不是我", "为什么收到这条？", "消息太多"]
    assert list(buttons_to(feishu, "ou_boss")) == ["催一下", "取消"]  # the confirmation that it went out
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi weekly report done?")
    assert list(buttons_to(telegram, "tg_ls")) == ["Later 2h", "Tomorrow", "Not me", "Why this?", "Too many"]
    tokens = [b.token for d in telegram.sent for b in d.message.buttons]
    assert len(set(tokens)) == len(tokens) and all(len(t.encode()) <= 64 for t in tokens)


def test_later_puts_the_follow_up_off_two_hours_and_says_until_when(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    clock.advance(H)
    toast = press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["稍后 2小时"])
    assert toast == "收到"
    concern = _concern(ctx)
    assert concern.state == "waiting_reply" and concern.step_at == clock.now() + 2 * H
    assert outcomes_to(ctx, "p_zhangsan")[-1].endswith("— 已推迟到 今天 15:00")
    [asked] = [d for d in telegram.sent if d.message.buttons]
    text, still = telegram.shown(asked.message_id)  # the question itself now shows the outcome, and only the
    assert text == f"{asked.message.text}\n\n— 已推迟到 今天 15:00"  # recipient's own buttons are left
    assert [b.label for b in still] == ["为什么收到这条？", "消息太多"]
    assert len(telegram.texts_to("tg_zs")) == 1  # an edit, not a new message


def test_pressing_twice_has_one_effect(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    token = buttons_to(telegram, "tg_zs")["稍后 2小时"]
    press(ctx, channel="telegram", user="tg_zs", token=token, event_id="cb_same")
    press(ctx, channel="telegram", user="tg_zs", token=token, event_id="cb_same")  # the platform's retry
    clock.advance(H)
    toast = press(ctx, channel="telegram", user="tg_zs", token=token)  # a second tap
    assert toast == "已经处理过了"
    with ctx.reader() as uow:
        presses = uow.session.scalars(select(Fact).where(Fact.fact_type == "button_pressed")).all()
    assert len(presses) == 2
    assert _decisions(ctx).count("press:later") == 1 and "press:used" in _decisions(ctx)
    assert len(outcomes_to(ctx, "p_zhangsan")) == 1


def test_two_buttons_of_one_message_pressed_together_act_once(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    labels = buttons_to(telegram, "tg_zs")
    press(ctx, channel="telegram", user="tg_zs", token=labels["稍后 2小时"], process=False)
    press(ctx, channel="telegram", user="tg_zs", token=labels["不是我"], process=False)
    tick(ctx)
    rules = _decisions(ctx)
    assert "press:later" in rules and "press:used" in rules and "press:not_me" not in rules


def test_only_the_addressee_may_press_and_nothing_changes_for_anyone_else(ctx, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    before = _concern(ctx)
    toast = press(ctx, channel="telegram", user="tg_ls", token=buttons_to(telegram, "tg_zs")["不是我"])
    assert toast == "This button is not for you"  # 李四 reads English
    after = _concern(ctx)
    assert (after.version, after.step_at) == (before.version, before.step_at)
    assert "press:not_yours" in _decisions(ctx) and outcomes_to(ctx, "p_lisi") == []
    stranger = press(ctx, channel="telegram", user="tg_nobody", token=buttons_to(telegram, "tg_zs")["不是我"])
    assert stranger == "这个按钮不是给你的"


def test_a_button_on_a_closed_loop_answers_already_closed(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    say(ctx, channel="telegram", user="tg_zs", text="周五可以")
    toast = press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["明天再说"])
    assert toast == "已结束" and "press:closed" in _decisions(ctx)
    assert _concern(ctx).state == "resolved"


def test_a_forged_token_answers_that_the_button_no_longer_works(ctx, team):
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    assert press(ctx, channel="telegram", user="tg_zs", token="forged-token-123") == "这个按钮已失效"
    assert "press:unknown" in _decisions(ctx)


def test_tomorrow_waits_for_the_next_local_nine_or_the_end_of_quiet_hours(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["明天再说"])
    concern = _concern(ctx)
    assert concern.step_at.isoformat() == "2026-03-19T01:00:00+00:00"  # 09:00 Asia/Shanghai
    assert outcomes_to(ctx, "p_zhangsan")[-1].endswith("好的，明天 09:00 再提醒你")
    # Quiet until 10:00: "tomorrow" is then 10:00.
    client.patch(
        "/v1/persons/p_lisi/interaction_policy", json={"quiet_hours": [{"start": "22:00", "end": "10:00"}]}
    ).raise_for_status()
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi report?")
    press(ctx, channel="telegram", user="tg_ls", token=buttons_to(telegram, "tg_ls")["Tomorrow"])
    lisi = max((_concern(ctx, c.concern_id) for c in [_latest(ctx)]), key=lambda c: c.created_at)
    assert lisi.step_at.isoformat() == "2026-03-19T02:00:00+00:00"


def _latest(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(
            select(Concern).order_by(Concern.created_at.desc(), Concern.concern_id.desc())
        ).first()


def test_not_me_stops_follow_ups_and_the_originator_can_ask_someone_else(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["不是我"])
    assert "张三说“提测什么时候能给？”不是他负责的" in feishu.texts_to("ou_boss")[-1]
    first = _concern(ctx)
    assert first.step_at == clock.now() + ctx.settings.concern_expire_after  # no follow-up; it still expires
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["问别人"])
    assert outcomes_to(ctx, "p_boss")[-1].endswith("要改问谁？直接回复名字即可，例如“李四”。")
    say(ctx, channel="feishu", user="ou_boss", text="李四")
    assert _concern(ctx, first.concern_id).state == "cancelled"
    second = _latest(ctx)
    assert (second.target_person_id, second.question, second.state) == ("p_lisi", "提测什么时候能给？", "waiting_reply")
    assert telegram.texts_to("tg_ls")[-1].endswith("提测什么时候能给？")
    assert "reassign" in _decisions(ctx)


def test_cancel_on_the_confirmation_closes_the_loop(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["取消"])
    assert _concern(ctx).state == "cancelled"
    assert outcomes_to(ctx, "p_boss")[-1].endswith("已取消，不会再联系张三")
    clock.advance(24 * H)
    tick(ctx)
    # The question, then once that it is off: no follow-up.
    assert telegram.texts_to("tg_zs")[1:] == ["老板取消了问你的问题“提测什么时候能给？”，不用再回复了。"]


def test_approve_on_a_decision_request_flows_back_to_the_member(ctx, team):
    feishu, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="客户要求把合同付款周期改成90天，可以吗？")
    assert list(buttons_to(feishu, "ou_wangwu")) == ["同意", "不同意", "为什么收到这条？", "消息太多"]
    press(ctx, channel="feishu", user="ou_wangwu", token=buttons_to(feishu, "ou_wangwu")["同意"])
    concern = _concern(ctx)
    assert concern.state == "resolved" and concern.answer == "同意" and concern.answered_by == "p_wangwu"
    assert any("同意" in text for text in telegram.texts_to("tg_zs")[1:])
    assert outcomes_to(ctx, "p_wangwu")[-1].endswith("已把你的决定告诉张三：同意")


def test_a_sent_button_knows_its_message_and_text(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(ButtonRow).where(ButtonRow.addressee_id == "p_zhangsan")).all()
    [delivered] = [d for d in telegram.sent if d.message.buttons]
    assert {(r.channel, r.message_id, r.text) for r in rows} == {
        ("telegram", delivered.message_id, delivered.message.text)
    }


def test_two_replicas_claiming_one_message_have_one_winner(ctx, team):
    """The claim is a conditional update: the second writer waits for the first and then finds it taken."""
    import threading

    from action import buttons

    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    tokens = list(buttons_to(telegram, "tg_zs").values())
    results: dict[str, bool] = {}
    first = ctx.uow(actor="replica_a")
    uow_a = first.__enter__()
    results["a"] = buttons.claim_press(uow_a, button=buttons.get(uow_a, token=tokens[0]), fact_id="fct_a")

    def replica_b():
        with ctx.uow(actor="replica_b") as uow_b:
            results["b"] = buttons.claim_press(uow_b, button=buttons.get(uow_b, token=tokens[1]), fact_id="fct_b")

    other = threading.Thread(target=replica_b)
    other.start()
    other.join(timeout=0.5)
    assert other.is_alive()  # B waits for A's transaction
    first.__exit__(None, None, None)
    other.join(timeout=10)
    assert results == {"a": True, "b": False}


def test_a_press_is_found_by_its_loops_id_like_the_loops_other_facts(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["稍后 2小时"])
    concern_id = _concern(ctx).concern_id
    found = client.get("/v1/facts", params={"q": concern_id}).json()["items"]
    [pressed] = [f for f in found if f["fact_type"] == "button_pressed"]
    assert pressed["content"]["verb"] == "later" and pressed["person_refs"] == ["p_zhangsan"]


def test_nudge_now_sends_one_follow_up_at_once(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    clock.advance(H / 2)  # long before the schedule's first follow-up
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["催一下"])
    assert len(telegram.texts_to("tg_zs")) == 2 and telegram.texts_to("tg_zs")[-1].startswith("【跟进】")
    assert outcomes_to(ctx, "p_boss")[-1].endswith("— 好的，马上再催张三一次。")


def test_a_nudge_quiet_hours_hold_back_says_when_and_keeps_the_buttons(ctx, clock, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy", json={"quiet_hours": [{"start": "12:00", "end": "18:00"}]}
    ).raise_for_status()
    [confirmation] = [d for d in feishu.sent if d.message.buttons]
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["催一下"])
    assert len(telegram.texts_to("tg_zs")) == 1  # nothing more reached 张三
    text, still = feishu.shown(confirmation.message_id)
    assert "18:00" in text.split("— ")[-1]
    assert [b.label for b in still] == ["催一下", "取消"]  # pressable again later
    with ctx.reader() as uow:
        released = [f for f in uow.session.scalars(select(Fact)) if f.content.get("event") == "press_released"]
    assert len(released) == 1 and "18:00" in released[0].content["reason"]  # the log says why it was given back
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["取消"])
    assert _concern(ctx).state == "cancelled"


def test_ill_handle_it_takes_the_escalation_and_tells_the_originator(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 提测什么时候能给？")
    for _ in range(2):  # P0: a follow-up after an hour, the escalation after another
        clock.advance(H)
        tick(ctx)
    assert _concern(ctx).state == "escalated"
    press(ctx, channel="feishu", user="ou_wangwu", token=buttons_to(feishu, "ou_wangwu")["我来处理"])
    concern = _concern(ctx)
    assert concern.acknowledged_by == "p_wangwu" and concern.acknowledged_at == clock.now()
    assert any("王五" in t for t in feishu.texts_to("ou_boss")[-2:])


def test_after_not_me_a_text_answer_goes_to_the_question_still_waiting_not_the_declined_one(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    clock.advance(H)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报什么时候发？")
    first, second = _concern(ctx), _latest(ctx)
    clock.advance(H)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["不是我"])  # the newer one
    clock.advance(H)
    say(ctx, channel="telegram", user="tg_zs", text="周五下午能提测")
    assert _concern(ctx, first.concern_id).answer == "周五下午能提测"
    declined = _concern(ctx, second.concern_id)
    assert declined.answer is None and declined.state == "waiting_reply"


def test_a_later_pressed_on_a_question_leaves_it_answerable_by_text(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["稍后 2小时"])
    clock.advance(H)
    say(ctx, channel="telegram", user="tg_zs", text="周五下午能提测")
    assert _concern(ctx).answer == "周五下午能提测"


def test_later_on_an_escalated_question_says_who_has_it_and_moves_nothing(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 提测什么时候能给？")
    for _ in range(2):  # P0: a follow-up after an hour, the escalation to 王五 after another
        clock.advance(H)
        tick(ctx)
    before = _concern(ctx)
    assert before.state == "escalated"
    toast = press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["稍后 2小时"])
    after = _concern(ctx)
    assert (after.state, after.step_at, after.version) == ("escalated", before.step_at, before.version)
    assert "已经升级处理了" in toast and "已结束" not in toast and "press:escalated" in _decisions(ctx)


def test_saying_later_to_an_escalated_question_is_answered_in_words(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 提测什么时候能给？")
    for _ in range(2):
        clock.advance(H)
        tick(ctx)
    step_at = _concern(ctx).step_at
    say(ctx, channel="telegram", user="tg_zs", text="稍后再说")
    assert "已经交给王五跟进了" in telegram.texts_to("tg_zs")[-1]
    assert _concern(ctx).state == "escalated" and _concern(ctx).step_at == step_at
