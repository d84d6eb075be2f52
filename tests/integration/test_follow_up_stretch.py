"""A person's follow_up_stretch through the real timers: their follow-ups wait longer, the escalation does not."""

from datetime import timedelta

from sqlalchemy import select

from app.pipeline import tick
from concern.models import Concern
from tests.integration.story_helpers import say

H = timedelta(hours=1)
ASK = "/ask @p_zhangsan P1 提测什么时候能给？"


def _loop(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern)).one()


def _stretch(client, value):
    response = client.patch("/v1/persons/p_zhangsan/interaction_policy", json={"follow_up_stretch": value})
    assert response.status_code == 200, response.text


def test_a_stretched_person_gets_the_first_follow_up_later(ctx, clock, client, team):
    _, telegram = team
    _stretch(client, 2.0)
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    assert _loop(ctx).step_at == clock.now() + 8 * H  # P1's 4 h, doubled
    clock.advance(4 * H)
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 1  # the plain schedule's moment passes without a follow-up
    clock.advance(4 * H)
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 2 and _loop(ctx).follow_up_count == 1


def test_the_stretch_never_moves_the_escalation_to_the_manager(ctx, clock, client, team):
    feishu, telegram = team
    _stretch(client, 4.0)
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    asked = clock.now()
    clock.advance(16 * H)  # 4 h × 4: the one follow-up the stretch leaves room for
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 2
    # The plain schedule escalates 52 h after the question (4 h + 24 h + 24 h); a second stretched follow-up would
    # come at 112 h, so there is none and the escalation comes at 52 h.
    assert _loop(ctx).step_at == asked + 52 * H
    clock.set(asked + 52 * H)
    tick(ctx)
    assert _loop(ctx).state == "escalated" and len(telegram.texts_to("tg_zs")) == 2
    assert any("张三" in text for text in feishu.texts_to("ou_wangwu"))
