"""Loops the console's sandbox raised: marked so, closed without a word once a channel is live, and never listed
in what people read on a live channel (briefs, /did, status replies) nor counted in their answering rhythm."""

from __future__ import annotations

import threading
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from app.inbound import PerceptionInbound
from app.pipeline import tick
from channels.dryrun import DryRunChannel
from channels.inbound import InboundMessage
from cognitive_core.reports import briefs, summaries
from concern import sandbox
from concern.models import Concern
from fact.models import Fact
from person import service as persons
from tests.integration.action_helpers import action_rows, add_memory_channels, add_person

BOTH = ["feishu", "telegram"]


def _say(ctx, who: str, text: str, *, event: str, in_sandbox: bool = True) -> None:
    """`who` (p_boss, p_zhangsan) writes `text` privately on Telegram, in the sandbox unless told otherwise."""
    message = InboundMessage(
        channel="telegram",
        event_id=event,
        message_id=event,
        chat_id=f"tg_{who}",
        chat_type="p2p",
        external_user_id=f"tg_{who}",
        text=text,
        occurred_at=ctx.clock.now(),
        sandbox=in_sandbox,
    )
    PerceptionInbound(ctx).record(message)
    tick(ctx)


@pytest.fixture
def trial(ctx):
    """Every channel dry-run (the sandbox is on); 老板 (principal) and 张三 on Telegram."""
    ctx.settings.dry_run_channels = list(BOTH)
    for name in BOTH:
        ctx.channels.register(DryRunChannel(name))
    add_person(ctx, "p_boss", role="principal", bindings=[{"channel": "telegram", "external_user_id": "tg_p_boss"}])
    add_person(ctx, bindings=[{"channel": "telegram", "external_user_id": "tg_p_zhangsan"}])
    return ctx


def _go_live(ctx):
    """The operator connects both platforms for real (the sandbox turns off); the live stand-ins record sends."""
    ctx.settings.dry_run_channels = []
    return add_memory_channels(ctx)


def _loops(ctx) -> list[Concern]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Concern).order_by(Concern.created_at, Concern.concern_id)))


def test_a_loop_raised_in_the_sandbox_is_marked_and_one_from_a_platform_is_not(trial):
    _say(trial, "p_boss", "/ask @p_zhangsan 周报呢？", event="sandbox-1")
    _say(trial, "p_boss", "/ask @p_zhangsan 预算呢？", event="42", in_sandbox=False)
    assert [(c.question, c.sandbox) for c in _loops(trial)] == [("周报呢？", True), ("预算呢？", False)]


def test_a_sandbox_loop_is_closed_without_a_word_once_a_channel_is_live(trial, clock):
    _say(trial, "p_boss", "/ask @p_zhangsan 周报呢？", event="sandbox-1")
    assert [r.result for r in action_rows(trial) if r.target_person_id == "p_zhangsan"] == ["success"]
    before = len(action_rows(trial))
    feishu, telegram = _go_live(trial)
    for _ in range(12):  # a day and a half of what would have been follow-ups and escalations
        clock.advance(timedelta(hours=3))
        tick(trial)
    [loop] = _loops(trial)
    assert loop.state == "cancelled" and loop.next_follow_up_at is None
    with trial.reader() as uow:
        changes = [
            f.content["change"] for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed"))
        ]
    assert changes.count("sandbox_closed") == 1
    assert telegram.sent == [] and feishu.sent == [] and len(action_rows(trial)) == before


def test_a_loop_from_a_platform_message_stays_open_when_the_channel_goes_live(trial):
    _say(trial, "p_boss", "/ask @p_zhangsan 预算呢？", event="42", in_sandbox=False)
    _go_live(trial)
    tick(trial)
    assert [c.state for c in _loops(trial)] == ["waiting_reply"]


def test_while_the_sandbox_is_on_its_loops_stay_open(trial):
    _say(trial, "p_boss", "/ask @p_zhangsan 周报呢？", event="sandbox-1")
    assert sandbox.close_if_live(trial) == 0
    assert [c.state for c in _loops(trial)] == ["waiting_reply"]


def test_a_live_brief_and_did_leave_out_what_the_sandbox_did(trial):
    _say(trial, "p_boss", "/ask @p_zhangsan 周报呢？", event="sandbox-1")
    _say(trial, "p_zhangsan", "周报下午发", event="sandbox-2")
    _say(trial, "p_boss", "/ask @p_zhangsan 沙盒里的第二个问题", event="sandbox-3")
    assert [c.state for c in _loops(trial)] == ["resolved", "waiting_reply"]
    with trial.reader() as uow:
        boss = persons.get(uow, person_id="p_boss")
        tried = briefs.compose(uow, person=boss, key="brief:try")[0]
    assert "周报下午发" in tried, "while the sandbox is on, its brief shows the trial"
    _go_live(trial)
    _say(trial, "p_boss", "/ask @p_zhangsan 预算呢？", event="42", in_sandbox=False)
    with trial.reader() as uow:
        boss = persons.get(uow, person_id="p_boss")
        brief = briefs.compose(uow, person=boss, key="brief:live", everything=True)[0]
        did = summaries.did(
            uow, viewer_id="p_boss", viewer_role="principal", locale="zh", tz=ZoneInfo("Asia/Shanghai"),
            window=timedelta(days=1), today=False, person_id=None,
        )  # fmt: skip
        status = summaries.status_of(
            uow, viewer_id="p_boss", person_id="p_zhangsan", locale="zh", tz=ZoneInfo("Asia/Shanghai")
        )
    assert "预算呢" in brief and "周报" not in brief and "沙盒" not in brief
    assert "预算呢" in did and "周报" not in did and "沙盒" not in did
    assert "预算呢" in status and "周报" not in status


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_two_replicas_closing_at_once_close_each_loop_once(trial):
    for n in range(3):
        _say(trial, "p_boss", f"/ask @p_zhangsan 周报{n}呢？", event=f"sandbox-{n}")
    _go_live(trial)
    start = threading.Barrier(2)
    closed: list[int] = []

    def close(c):
        start.wait()
        closed.append(sandbox.close_if_live(c))

    # Two passes over one database, each in its own transactions (as two processes' would be).
    threads = [threading.Thread(target=close, args=(trial,)) for _ in range(2)]
    [t.start() for t in threads]
    [t.join(30) for t in threads]
    assert sum(closed) == 3 and {c.state for c in _loops(trial)} == {"cancelled"}
    with trial.reader() as uow:
        changes = [
            f.content["change"] for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed"))
        ]
    assert changes.count("sandbox_closed") == 3
