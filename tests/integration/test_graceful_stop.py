"""A graceful stop finishes the send in flight and hands back everything else: nothing is left pending, so nothing
is found interrupted by the next process, and the next process sends what was handed back."""

from __future__ import annotations

from sqlalchemy import select

from action.models import ActionRow
from app.pipeline import tick
from channels.base import OutboundMessage, SendReceipt
from concern.models import OutboxEntry
from kernel.context import AppContext
from tests.fakes.memory_channel import MemoryChannel
from tests.integration.story_helpers import say


class StopDuringSend(MemoryChannel):
    """SIGTERM arrives while the first message is on its way."""

    def __init__(self, name: str, ctx: AppContext) -> None:
        super().__init__(name)
        self.ctx = ctx

    def send(self, message: OutboundMessage) -> SendReceipt:
        self.ctx.stopping.set()
        return super().send(message)


def _actions(ctx) -> list[str]:
    with ctx.reader() as uow:
        return [a.result for a in uow.session.scalars(select(ActionRow).order_by(ActionRow.pk))]


def _open_entries(ctx) -> list[str]:
    with ctx.reader() as uow:
        stmt = select(OutboxEntry.purpose).where(OutboxEntry.state.not_in(("done", "failed")))
        return list(uow.session.scalars(stmt))


def test_a_stop_during_a_send_finishes_it_and_hands_back_the_rest(ctx, team):
    feishu, _ = team
    channel = StopDuringSend("telegram", ctx)
    ctx.channels.register(channel)
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    assert channel.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]  # the send in flight went out, recorded
    assert _actions(ctx) == ["success"]  # nothing pending: the next start has nothing to mark interrupted
    assert feishu.texts_to("ou_boss") == [] and _open_entries(ctx)  # the acknowledgement was handed back, queued
    ctx.stopping.clear()  # the next process
    tick(ctx)
    assert _actions(ctx) == ["success", "success"]
    assert feishu.texts_to("ou_boss")[0].startswith("已发给张三：提测什么时候能给？")
    assert _open_entries(ctx) == []
