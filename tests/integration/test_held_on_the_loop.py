"""A held delivery is visible: `/v1/concerns` says until when and why (SPEC §3.5), the console counts and marks it."""

from __future__ import annotations

from datetime import UTC, datetime

from action import service as actions
from app.pipeline import tick
from tests.conftest import VIEWER_TOKEN
from tests.integration.action_helpers import notify
from tests.integration.story_helpers import say

MIDNIGHT = datetime(2026, 3, 18, 16, 0, 30, tzinfo=UTC)  # 00:00:30 on the 19th in Asia/Shanghai
EVENING = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)  # 23:00 in Asia/Shanghai


def _only_loop(client) -> dict:
    (item,) = client.get("/v1/concerns").json()["items"]
    return item


def _console(client, path: str) -> str:
    client.post("/console/login", data={"token": VIEWER_TOKEN})
    return client.get(path).text


def _cap_one_and_use_it(client, ctx) -> None:
    client.patch("/v1/persons/p_zhangsan/interaction_policy", json={"max_proactive_contacts_per_day": 1})
    assert actions.execute(ctx, request=notify("p_zhangsan")).result == "success"


def test_a_question_held_by_the_daily_cap_shows_held_until_midnight_and_is_cleared_once_it_goes_out(
    ctx, clock, client, team
):
    _cap_one_and_use_it(client, ctx)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报写了吗？")
    loop = _only_loop(client)
    assert (loop["held_by"], loop["held_until"], loop["read_at"]) == ("cap", "2026-03-19T00:00:00+08:00", None)
    assert client.get(f"/v1/concerns/{loop['concern_id']}").json()["held_by"] == "cap"
    clock.set(MIDNIGHT)
    tick(ctx)
    after = _only_loop(client)
    assert after["state"] == "waiting_reply" and after["held_by"] is None and after["held_until"] is None
    assert after["next_follow_up_at"] is not None  # the follow-up schedule goes on, it is no hold


def test_an_answer_held_by_the_principals_quiet_hours_is_held_on_its_loop_until_they_end(ctx, clock, client, team):
    client.patch("/v1/persons/p_boss/interaction_policy", json={"quiet_hours": [{"start": "22:00", "end": "08:00"}]})
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
    clock.set(EVENING)
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    loop = next(c for c in client.get("/v1/concerns").json()["items"] if c["kind"] == "question")
    assert loop["state"] == "resolved"
    assert (loop["held_by"], loop["held_until"]) == ("quiet_hours", "2026-03-19T08:00:00+08:00")


def test_the_overview_counts_a_held_question_and_the_loop_list_marks_when_it_goes_out(ctx, clock, client, team):
    _cap_one_and_use_it(client, ctx)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报写了吗？")
    concern_id = _only_loop(client)["concern_id"]
    overview = _console(client, "/console")
    tile = overview[overview.index('id="held-tile"') :][:300]
    assert '<span class="tile-n">1</span>' in tile
    held = overview[overview.index('id="held"') : overview.index('id="unhandled-signals"')]
    assert concern_id in held and "today&#39;s limit reached" in held and "2026-03-19 00:00" in held
    rows = _console(client, "/console/concerns")
    row = rows[rows.index(concern_id) :][:1500]
    assert 'class="pill held-pill"' in row and "Held until 2026-03-19 00:00: today&#39;s limit reached" in row
