"""A batch's entries for different people are sent side by side (their channels' round trips overlap); one
person's go out one at a time, in the order they were queued."""

from __future__ import annotations

import threading
import time

from channels.base import OutboundMessage, SendReceipt
from concern.outbox import drain as outbox
from tests.fakes.memory_channel import MemoryChannel
from tests.integration.concern_fixtures import ask


class _Meeting(MemoryChannel):
    """Each send waits until `parties` sends are in flight together; one that waits in vain says so."""

    def __init__(self, name: str, parties: int) -> None:
        super().__init__(name)
        self.barrier = threading.Barrier(parties, timeout=5)
        self.met: list[bool] = []

    def send(self, message: OutboundMessage) -> SendReceipt:
        try:
            self.barrier.wait()
            self.met.append(True)
        except threading.BrokenBarrierError:
            self.met.append(False)
        return super().send(message)


def test_a_batchs_questions_to_different_people_are_sent_side_by_side(ctx, team):
    meeting = _Meeting("telegram", 2)
    ctx.channels.register(meeting)
    ask(ctx, "p_zhangsan", "提测什么时候能给？")
    ask(ctx, "p_lisi", "周报写完了吗？")
    outbox.drain(ctx)
    assert meeting.met == [True, True]  # each send was in flight while the other was
    assert sorted(m.message.chat_id for m in meeting.sent) == ["tg_ls", "tg_zs"]
    pool = ctx.shared["concern.outbox.lanes"]
    ctx.close()  # the lanes' threads go with the context
    assert "concern.outbox.lanes" not in ctx.shared and pool._shutdown


class _Overlaps(MemoryChannel):
    """Records, per chat, the most sends in flight at once, and the order they began in."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._lock = threading.Lock()
        self.in_flight: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.began: list[tuple[str, str]] = []

    def send(self, message: OutboundMessage) -> SendReceipt:
        chat = message.chat_id
        with self._lock:
            self.in_flight[chat] = self.in_flight.get(chat, 0) + 1
            self.most[chat] = max(self.most.get(chat, 0), self.in_flight[chat])
            self.began.append((chat, message.text))
        time.sleep(0.05)  # long enough for a second send to the same chat to begin, were it allowed to
        with self._lock:
            self.in_flight[chat] -= 1
        return super().send(message)


def test_one_persons_entries_go_out_one_at_a_time_in_the_order_they_were_queued(ctx, team):
    overlaps = _Overlaps("telegram")
    ctx.channels.register(overlaps)
    ask(ctx, "p_zhangsan", "提测什么时候能给？")
    ask(ctx, "p_lisi", "周报写完了吗？")
    ask(ctx, "p_zhangsan", "评审约在几点？")
    outbox.drain(ctx)
    assert overlaps.most == {"tg_zs": 1, "tg_ls": 1}
    to_zhangsan = [text for chat, text in overlaps.began if chat == "tg_zs"]
    assert len(to_zhangsan) == 2 and "提测" in to_zhangsan[0] and "评审" in to_zhangsan[1]


def test_entries_sharing_a_person_or_a_chat_share_a_lane_in_claim_order():
    class Entry:
        def __init__(self, key: str, request: dict) -> None:
            self.request_key, self.request = key, request

    a1 = Entry("a1", {"target_person_id": "p_a"})
    group = Entry("g", {"destination": {"chat_id": "oc_group"}})
    b = Entry("b", {"target_person_id": "p_b", "destination": {"chat_id": "oc_group"}})
    a2 = Entry("a2", {"target_person_id": "p_a", "destination": {"chat_id": "tg_a"}})
    internal = Entry("internal", {})
    assert outbox.lanes([a1, group, b, a2, internal]) == [[a1, a2], [group, b], [internal]]
    bridge = Entry("bridge", {"target_person_id": "p_b", "destination": {"chat_id": "tg_a"}})  # joins both lanes
    assert outbox.lanes([a1, group, b, a2, bridge]) == [[a1, group, b, a2, bridge]]
