"""`/concerns` in plain words: numbered loops, no record ids or counters, Nudge n / Cancel n as buttons (issue 21).

Real database and the memory chat channels of the `team` fixture (老板 on Feishu, 张三 and 李四 on Telegram).
"""

from __future__ import annotations

import re

from sqlalchemy import select

from concern.models import Concern
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say


def _states(ctx) -> list[str]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Concern.state).order_by(Concern.created_at, Concern.concern_id)))


def test_open_loops_are_listed_numbered_in_words_with_a_nudge_and_a_cancel_each(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="问一下李四：周报写了吗？")
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    listing = feishu.texts_to("ou_boss")[-1]
    assert listing.splitlines() == [
        "1. 张三：“提测什么时候能给？”，等待回复，下次跟进 明天 12:00",
        "2. 李四：“周报写了吗？”，等待回复，下次跟进 明天 12:00",
    ]
    assert not re.search(r"con_\d", listing)
    assert list(buttons_to(feishu, "ou_boss")) == ["催一下 1", "取消 1", "催一下 2", "取消 2"]
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["取消 2"])
    assert _states(ctx) == ["waiting_reply", "cancelled"]


def test_the_person_asked_sees_what_they_owe_and_gets_no_buttons_for_it(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    say(ctx, channel="telegram", user="tg_zs", text="/concerns")
    assert telegram.texts_to("tg_zs")[-1] == "1. 老板问你：“提测什么时候能给？”，等待回复"
    assert not telegram.sent[-1].message.buttons  # not theirs to nudge or cancel


def test_nudge_n_under_the_listing_nudges_that_loop(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["催一下 1"])
    assert len(telegram.texts_to("tg_zs")) == 2 and telegram.texts_to("tg_zs")[-1].startswith("【跟进】")


def test_a_listing_button_whose_press_changed_nothing_is_shown_again_as_it_was_drawn(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    quiet = {"quiet_hours": [{"start": "12:00", "end": "18:00"}]}  # from now: a nudge now is refused
    client.patch("/v1/persons/p_zhangsan/interaction_policy", json=quiet).raise_for_status()
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    listing = [d for d in feishu.sent if d.message.external_user_id == "ou_boss" and d.message.buttons][-1]
    drawn = [(b.label, b.token) for b in listing.message.buttons]
    press(ctx, channel="feishu", user="ou_boss", token=dict(drawn)["催一下 1"])
    assert len(telegram.texts_to("tg_zs")) == 1  # nobody nudged
    text, shown = feishu.shown(listing.message_id)
    assert "18:00" in text.split("— ")[-1]  # the listing says why nothing happened …
    assert [(b.label, b.token) for b in shown] == drawn  # … under its buttons as drawn, pressable again
    assert _states(ctx) == ["waiting_reply"]
