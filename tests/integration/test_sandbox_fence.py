"""Nothing born in the console's sandbox is sent on a live channel, whatever asks for the send and whenever."""

from __future__ import annotations

from action import service as actions
from app.inbound import PerceptionInbound
from channels.dryrun import DryRunChannel
from channels.inbound import InboundMessage
from fact import decisions
from fact import service as facts
from fact.decisions import DecisionKind
from tests.integration.action_helpers import add_memory_channels, add_person, notify


def _typed(ctx, text: str, *, event: str, sandbox: bool = True) -> str:
    """张三 says `text` on Telegram (in the sandbox unless told otherwise); the message fact's id."""
    message = InboundMessage(
        channel="telegram",
        event_id=event,
        message_id=event,
        chat_id="tg_p_zhangsan",
        chat_type="p2p",
        external_user_id="tg_p_zhangsan",
        text=text,
        occurred_at=ctx.clock.now(),
        sandbox=sandbox,
    )
    PerceptionInbound(ctx).record(message)
    with ctx.reader() as uow:
        return facts.get_by_dedup_key(uow, dedup_key=f"telegram:event:{event}").fact_id


def _decided(ctx, fact_id: str) -> str:
    with ctx.uow(actor="test") as uow:
        return decisions.record(uow, kind=DecisionKind.direct_action, rule="test", inputs=[fact_id])


def test_a_notice_caused_by_a_sandbox_message_is_refused_on_a_live_channel(ctx):
    _, telegram = add_memory_channels(ctx)
    add_person(ctx, bindings=[{"channel": "telegram", "external_user_id": "tg_p_zhangsan"}])
    decision = _decided(ctx, _typed(ctx, "明早开会", event="sandbox-1"))
    record = actions.execute(ctx, request=notify(decision_ref=decision))
    assert record.result == "failed"
    assert [a["error"] for a in record.result_detail["attempts"]] == ["sandbox_only"]
    assert telegram.sent == []


def test_the_same_notice_from_a_platform_message_goes_out(ctx):
    _, telegram = add_memory_channels(ctx)
    add_person(ctx, bindings=[{"channel": "telegram", "external_user_id": "tg_p_zhangsan"}])
    decision = _decided(ctx, _typed(ctx, "明早开会", event="42", sandbox=False))
    assert actions.execute(ctx, request=notify(decision_ref=decision)).result == "success"
    assert len(telegram.sent) == 1


def test_a_sandbox_notice_goes_out_on_a_dry_run_channel(ctx):
    ctx.channels.register(DryRunChannel("telegram"))
    add_person(ctx, bindings=[{"channel": "telegram", "external_user_id": "tg_p_zhangsan"}])
    decision = _decided(ctx, _typed(ctx, "明早开会", event="sandbox-1"))
    assert actions.execute(ctx, request=notify(decision_ref=decision)).result == "success"


def _readers(ctx, monkeypatch) -> list[int]:
    """Counts the read transactions the context opens from now on."""
    opened: list[int] = []
    reader = ctx.reader

    def counted(*args, **kwargs):
        opened.append(1)
        return reader(*args, **kwargs)

    monkeypatch.setattr(ctx, "reader", counted)
    return opened


def test_the_fence_reads_the_chain_in_the_reservations_transaction(ctx, monkeypatch):
    _, telegram = add_memory_channels(ctx)
    add_person(ctx, bindings=[{"channel": "telegram", "external_user_id": "tg_p_zhangsan"}])
    born_there = _decided(ctx, _typed(ctx, "明早开会", event="sandbox-1"))
    born_here = _decided(ctx, _typed(ctx, "明早开会", event="43", sandbox=False))
    opened = _readers(ctx, monkeypatch)
    refused = actions.execute(ctx, request=notify(decision_ref=born_there, notification_type="a"))
    sent = actions.execute(ctx, request=notify(decision_ref=born_here, notification_type="b"))
    assert (refused.result, sent.result) == ("failed", "success")
    assert [a["error"] for a in refused.result_detail["attempts"]] == ["sandbox_only"]
    assert opened == [], "no read transaction of its own beside the reservation's"
    assert len(telegram.sent) == 1


def test_a_send_reserved_without_the_read_still_reads_the_chain_before_going_out(ctx):
    from action import sandbox

    _, telegram = add_memory_channels(ctx)
    decision = _decided(ctx, _typed(ctx, "明早开会", event="sandbox-1"))
    request = notify(decision_ref=decision)
    assert sandbox.refused(ctx, request, telegram) is True  # a resumed send: nothing read when it was reserved
    assert sandbox.refused(ctx, request, telegram, born=False) is False
    assert sandbox.refused(ctx, request, DryRunChannel("telegram")) is False
