"""`GET /metrics` for on-call: loops by state and kind, stuck loops, backlogs (read from the database at scrape
time, the same on every replica), time to answer and channel sends (observed where they happen)."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update

from app.main import create_app
from app.metrics import DatabaseGauges
from app.wiring import build_context
from channels.errors import Unreachable
from concern.models import Concern, OutboxEntry
from perception.models import InboxEntry
from tests.conftest import make_settings
from tests.integration.story_helpers import say

ASK = "/ask @p_zhangsan P1 提测什么时候能给？"


def scrape(client) -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted labels): value} of one scrape."""
    text = client.get("/metrics", headers={"Authorization": ""}).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def fresh_gauges(client) -> None:
    """Drop the gauges' few-seconds cache, as the next scrape after the TTL would."""
    for collector in list(client.app.state.metrics.registry._collector_to_names):
        if isinstance(collector, DatabaseGauges):
            collector._read_at = None


def test_concerns_are_counted_by_state_and_kind_with_every_state_present(ctx, client, team):
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi P1 周报写了吗？")
    say(ctx, channel="telegram", user="tg_ls", text="写了")
    samples = scrape(client)
    assert value(samples, "deputy_concerns", state="waiting_reply", kind="question") == 1
    assert value(samples, "deputy_concerns", state="resolved", kind="question") == 1
    # A state no loop is in is 0, not missing: an alert on it never sees the series vanish.
    assert ("deputy_concerns", (("kind", "question"), ("state", "expired"))) in samples
    assert value(samples, "deputy_stuck_concerns") == 0


def test_a_risk_escalation_is_a_question_and_every_kind_is_reported(ctx, client, team):
    say(ctx, channel="telegram", user="tg_zs", text="这个合同的付款条款能改吗？")
    samples = scrape(client)
    assert value(samples, "deputy_concerns", state="waiting_reply", kind="question") == 1
    assert value(samples, "deputy_concerns", state="waiting_reply", kind="commitment") == 0
    assert value(samples, "deputy_concerns", state="waiting_reply", kind="reminder") == 0


def test_a_loop_without_timer_held_delivery_or_queued_send_counts_as_stuck(ctx, client, team):
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    assert value(scrape(client), "deputy_stuck_concerns") == 0
    with ctx.uow() as uow:  # what a bug would leave behind: the loop waits and nothing will ever wake it
        uow.session.execute(update(Concern).values(step_at=None, next_follow_up_at=None, pending_deliveries=[]))
    fresh_gauges(client)
    assert value(scrape(client), "deputy_stuck_concerns") == 1
    with ctx.uow() as uow:  # a send still queued for it will move it on: not stuck
        uow.session.execute(update(OutboxEntry).values(state="open"))
    fresh_gauges(client)
    assert value(scrape(client), "deputy_stuck_concerns") == 0


def test_backlogs_count_pending_entries_and_the_age_of_the_oldest(ctx, clock, client, team):
    samples = scrape(client)
    assert value(samples, "deputy_inbox_backlog") == 0 and value(samples, "deputy_inbox_backlog_age_seconds") == 0
    assert value(samples, "deputy_outbox_backlog") == 0 and value(samples, "deputy_outbox_backlog_age_seconds") == 0
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    with ctx.uow() as uow:  # as if the processor had stopped: a signal and a queued send wait
        uow.session.execute(update(InboxEntry).values(state="pending"))
        uow.session.execute(update(OutboxEntry).values(state="open", available_at=uow.now))
    clock.advance(timedelta(seconds=90))
    fresh_gauges(client)
    samples = scrape(client)
    assert value(samples, "deputy_inbox_backlog") == 1 and value(samples, "deputy_inbox_backlog_age_seconds") == 90
    assert value(samples, "deputy_outbox_backlog") >= 1 and value(samples, "deputy_outbox_backlog_age_seconds") == 90


def test_a_send_waiting_for_a_later_slot_is_backlog_but_not_late(ctx, clock, client, team):
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    with ctx.uow() as uow:
        uow.session.execute(update(OutboxEntry).values(state="open", available_at=uow.now + timedelta(hours=8)))
    clock.advance(timedelta(minutes=5))
    fresh_gauges(client)
    samples = scrape(client)
    assert value(samples, "deputy_outbox_backlog") >= 1 and value(samples, "deputy_outbox_backlog_age_seconds") == 0


def test_every_replica_reports_what_another_one_wrote(ctx, clock, client, team, database_url):
    other = build_context(make_settings(database_url), clock=clock)
    try:
        with TestClient(create_app(ctx=other, run_migrations=False)) as replica:
            before = value(scrape(replica), "deputy_concerns", state="waiting_reply", kind="question")
            say(ctx, channel="feishu", user="ou_boss", text=ASK)  # handled by the first replica's context
            fresh_gauges(replica)
            assert value(scrape(replica), "deputy_concerns", state="waiting_reply", kind="question") == before + 1
    finally:
        other.close()


def test_gauges_are_read_once_per_ttl_not_on_every_scrape(ctx, team):
    ticks = [100.0]
    gauges = DatabaseGauges(ctx, ttl=5.0, monotonic=lambda: ticks[0])
    stuck = {m.name: m for m in gauges.collect()}["deputy_concerns"]
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    ticks[0] += 4.9
    assert {m.name: m for m in gauges.collect()}["deputy_concerns"] is stuck  # the cached read
    ticks[0] += 0.1
    fresh = {m.name: m for m in gauges.collect()}["deputy_concerns"]
    assert any(s.value == 1 for s in fresh.samples if s.labels["state"] == "waiting_reply")


def test_time_to_answer_is_observed_once_when_the_loop_is_answered(ctx, clock, client, team):
    before = scrape(client)
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    clock.advance(timedelta(hours=2))
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    say(ctx, channel="telegram", user="tg_zs", text="明天下午，确定")  # no loop left to answer: nothing observed
    after = scrape(client)
    name = "deputy_time_to_answer_seconds"
    assert value(after, f"{name}_count", priority="P1") - value(before, f"{name}_count", priority="P1") == 1
    assert value(after, f"{name}_sum", priority="P1") - value(before, f"{name}_sum", priority="P1") == 7200


def test_channel_sends_are_timed_by_channel_and_result(ctx, client, team):
    _, telegram = team
    count = "deputy_channel_send_seconds_count"
    before = scrape(client)
    telegram.fail_with("tg_zs", Unreachable("chat not found"))
    say(ctx, channel="feishu", user="ou_boss", text=ASK)  # telegram fails for 张三; feishu confirms to the boss
    after = scrape(client)

    def delta(**labels):
        return value(after, count, **labels) - value(before, count, **labels)

    assert delta(channel="telegram", result="unreachable") == 1
    assert delta(channel="feishu", result="success") >= 1


def test_metrics_still_answer_when_the_database_gauges_cannot_be_read(ctx, client, team):
    ctx.db.dispose()
    ctx.db.read_engine = ctx.db.engine = _broken_engine()
    fresh_gauges(client)
    response = client.get("/metrics", headers={"Authorization": ""})
    assert response.status_code == 200
    names = {f.name for f in text_string_to_metric_families(response.text)}
    assert "deputy_http_requests" in names and "deputy_concerns" not in names


def _broken_engine():
    from sqlalchemy import create_engine

    return create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 1})
