"""One message for many asks: follow-ups to one person falling due within the window go out together."""

import multiprocessing
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from action.ledger import contacts
from action.models import ActionRow
from app.pipeline import tick
from concern.models import Concern
from fact.models import Fact
from tests.integration.action_helpers import add_person
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say
from tests.integration.workers import tick_at

H, M = timedelta(hours=1), timedelta(minutes=1)


def _ask(ctx, clock, *questions, gap=10 * M):
    for n, question in enumerate(questions):
        if n:
            clock.advance(gap)
        say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan P1 {question}")


def _loops(ctx):
    with ctx.reader() as uow:
        rows = list(uow.session.scalars(select(Concern).where(Concern.kind == "question").order_by(Concern.created_at)))
        return [(c.concern_id, c.state, c.follow_up_count, c.step_at) for c in rows]


def _follow_ups(ctx, person_id="p_zhangsan"):
    """The person's send_messages a timer decided (the questions themselves name their loop, not a decision)."""
    with ctx.reader() as uow:
        return list(
            uow.session.scalars(
                select(ActionRow).where(ActionRow.target_person_id == person_id, ActionRow.decision_ref.like("dec_%"))
                .where(ActionRow.action_type == "send_message").order_by(ActionRow.pk)
            )
        )  # fmt: skip


def _results_of(ctx, action_id):
    with ctx.reader() as uow:
        return uow.session.scalar(
            select(func.count()).select_from(Fact).where(Fact.fact_type == "action_result")
            .where(Fact.content["action_id"].as_string() == action_id)
        )  # fmt: skip


def test_follow_ups_falling_due_within_the_window_go_as_one_message_with_a_keyboard_row_per_item(ctx, clock, team):
    _, telegram = team
    _ask(ctx, clock, "提测什么时候能给？", "周报写了吗？")
    clock.advance(4 * H - 10 * M)  # the first's follow-up is due; the second's in ten minutes
    tick(ctx)
    texts = telegram.texts_to("tg_zs")
    assert len(texts) == 3  # two questions, then one message for both follow-ups
    assert "2 件事" in texts[-1] and "[1]" in texts[-1] and "提测" in texts[-1] and "[2]" in texts[-1]
    labels = list(buttons_to(telegram, "tg_zs"))
    assert labels == ["1 稍后 2小时", "1 明天再说", "1 不是我", "2 稍后 2小时", "2 明天再说", "2 不是我"]
    [bundle] = _follow_ups(ctx)
    loops = _loops(ctx)
    assert bundle.result == "success" and bundle.result_detail["concerns"] == [c for c, *_ in loops]
    assert bundle.priority == "P1" and _results_of(ctx, bundle.action_id) == 1
    with ctx.reader() as uow:
        for concern_id, state, count, step_at in loops:  # each loop moved on as if its own follow-up went
            assert state == "waiting_reply" and count == 1 and step_at is not None
            assert len(contacts(uow, concern_id=concern_id, person_id="p_zhangsan")) == 2  # L3: one contact each
        decision = uow.session.scalars(
            select(Fact).where(Fact.fact_type == "decision", Fact.content["rule"].as_string() == "bundle")
        ).one()
        assert decision.content["inputs"] == [c for c, *_ in loops]
        assert bundle.decision_ref == decision.content["decision_id"]


def test_a_press_on_one_items_button_acts_on_that_loop_only(ctx, clock, team):
    _, telegram = team
    _ask(ctx, clock, "提测什么时候能给？", "周报写了吗？")
    clock.advance(4 * H - 10 * M)
    tick(ctx)
    before = {c: step for c, _, _, step in _loops(ctx)}
    press(ctx, channel="telegram", user="tg_zs", token=buttons_to(telegram, "tg_zs")["2 明天再说"])
    after = {c: step for c, _, _, step in _loops(ctx)}
    first, second = list(before)
    assert after[first] == before[first] and after[second] != before[second]
    bundle_message = next(d.message_id for d in telegram.sent if "[2]" in d.message.text)
    _, left = telegram.shown(bundle_message)  # the pressed item's buttons are gone, the other item keeps its own
    assert [b.label for b in left] == ["1 稍后 2小时", "1 明天再说", "1 不是我"]


def test_a_follow_up_due_beyond_the_window_goes_on_its_own(ctx, clock, team):
    _, telegram = team
    _ask(ctx, clock, "提测什么时候能给？", "周报写了吗？", gap=40 * M)
    clock.advance(4 * H - 40 * M)
    tick(ctx)
    assert len(_follow_ups(ctx)) == 1 and "concerns" not in _follow_ups(ctx)[0].result_detail
    clock.advance(40 * M)
    tick(ctx)
    assert len(_follow_ups(ctx)) == 2 and len(telegram.texts_to("tg_zs")) == 4


def test_a_p0_follow_up_never_carries_a_p2_through_quiet_hours(ctx, clock, team):
    _, telegram = team
    add_person(
        ctx, "p_night", display_name="夜猫", policy={"quiet_hours": [{"start": "12:30", "end": "23:00"}]},
        bindings=[{"channel": "telegram", "external_user_id": "tg_night", "chat_id": "tg_night"}],
    )  # fmt: skip
    clock.advance(10 * M)  # 12:10: the P2 question (its follow-up due tomorrow 12:10)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_night P2 周报写了吗？")
    clock.advance(23 * H - 10 * M)  # tomorrow 11:00: a P0 (its follow-up due at 12:00)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_night P0 服务器挂了吗？")
    clock.advance(H + 35 * M)  # 12:35, quiet time: both follow-ups are due
    tick(ctx)
    sends = _follow_ups(ctx, "p_night")
    assert [(s.priority, s.result) for s in sends] == [("P0", "success"), ("P2", "blocked")]
    assert all("concerns" not in s.result_detail for s in sends)  # the P0 went alone; the P2 waits for 23:00
    assert sends[1].result_detail["blocked_by"] == "L1:quiet_hours" and "周报" not in telegram.texts_to("tg_night")[-1]


@pytest.mark.slow
def test_two_processors_firing_at_once_never_ask_a_loop_twice(ctx, clock, team):
    _ask(ctx, clock, "提测什么时候能给？", "周报写了吗？", "会议室订了吗？", gap=5 * M)
    due = clock.advance(4 * H)  # every follow-up is due: either processor may take any of them
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Manager().Barrier(2)
    with spawn.Pool(2) as pool:
        pool.starmap(tick_at, [(ctx.settings.database_url, due.isoformat(), barrier)] * 2)
    sends = _follow_ups(ctx)
    asked = [c for s in sends for c in (s.result_detail.get("concerns") or [s.concern_id])]
    assert sorted(asked) == sorted(c for c, *_ in _loops(ctx))  # each loop in exactly one message
    assert all(s.result == "success" for s in sends) and all(n == 1 for _, _, n, _ in _loops(ctx))


def test_no_loop_a_queued_bundle_carries_counts_as_stuck(ctx, clock, team):
    from concern import metrics, timers
    from person.calendar import with_calendar

    _ask(ctx, clock, "提测什么时候能给？", "周报写了吗？")
    clock.advance(4 * H - 10 * M)
    with_calendar(ctx, lambda: timers.fire_due(ctx))  # the bundle is queued; no drainer has sent it yet
    with ctx.reader() as uow:
        assert metrics.stuck(uow) == []  # its second loop has no timer and no entry of its own, yet waits on it
    tick(ctx)
    with ctx.reader() as uow:
        assert metrics.stuck(uow) == []
