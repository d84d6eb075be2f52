"""With PostgreSQL any number of processors share the inbox, and one sender's signals are processed in order, one
at a time (an advisory lock per sender): an `/ask` and its cancel never run concurrently, nor the cancel first.

Three processor processes work off ten principals' ask-then-cancel pairs; each signal's processing is held a
moment to widen the window in which another processor could take the same sender's next signal.
"""

from __future__ import annotations

import multiprocessing
from collections import defaultdict

from sqlalchemy import select

from channels.inbound import InboundMessage
from cognitive_core.inbox_order import lock_key, sender_of
from concern.models import Concern
from perception.models import InboxEntry
from perception.service import record_message
from tests.backends import ON_POSTGRES
from tests.integration.action_helpers import add_memory_channels, add_person
from tests.integration.concern_fixtures import NOON
from tests.integration.workers import process_timed

PRINCIPALS = 10
PROCESSORS = 3
TARGETS = ("张三", "李四", "王五", "赵六", "钱七")


def _say(ctx, user: str, n: int, text: str) -> None:
    record_message(
        ctx,
        message=InboundMessage(
            channel="telegram",
            event_id=f"{user}-{n}",
            message_id=f"{user}-{n}",
            chat_id=user,
            chat_type="p2p",
            external_user_id=user,
            text=text,
            occurred_at=NOON,
        ),
    )


@ON_POSTGRES
def test_three_processors_never_run_one_senders_ask_and_cancel_together_or_out_of_order(ctx, clock):
    clock.set(NOON)
    add_memory_channels(ctx)
    for n, name in enumerate(TARGETS):  # two principals per target: a person has only so many open asks
        add_person(ctx, f"p_target{n}", display_name=name)
    for i in range(PRINCIPALS):
        add_person(ctx, f"p_boss{i}", display_name=f"Boss {i}", role="principal", locale="en")
    for i in range(PRINCIPALS):
        _say(ctx, f"tg_p_boss{i}", 1, f"ask {TARGETS[i % len(TARGETS)]} when build {i} is ready")
    for i in range(PRINCIPALS):  # after every ask: the first processors to start find asks, the others cancels
        _say(ctx, f"tg_p_boss{i}", 2, f"cancel the question to {TARGETS[i % len(TARGETS)]}")
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Manager().Barrier(PROCESSORS)
    url = ctx.db.engine.url.render_as_string(hide_password=False)
    with spawn.Pool(PROCESSORS) as pool:
        runs = pool.starmap(process_timed, [(url, NOON.isoformat(), barrier, 0.05)] * PROCESSORS)
    spans = [span for run in runs for span in run]
    with ctx.reader() as uow:
        assert uow.session.scalars(select(InboxEntry).where(InboxEntry.state != "done")).all() == []
        senders = {
            entry.fact_pk: sender_of(entry_fact.content)
            for entry in uow.session.scalars(select(InboxEntry))
            for entry_fact in [_fact(uow, entry.fact_pk)]
        }
        states = {c.originator_id: c.state for c in uow.session.scalars(select(Concern))}
    assert len(spans) == 2 * PRINCIPALS and len({pid for *_, pid in spans}) > 1, "the processors shared the work"
    by_sender = defaultdict(list)
    for pk, start, end, pid in spans:
        by_sender[senders[pk]].append((start, end, pk, pid))
    for sender, runs_of_sender in by_sender.items():
        (ask_start, ask_end, ask_pk, _), (cancel_start, _, cancel_pk, _) = sorted(runs_of_sender)
        assert ask_pk < cancel_pk, f"{sender}: the cancel was processed before the ask"
        assert ask_end <= cancel_start, f"{sender}: the ask and the cancel ran at the same time"
    assert states == {f"p_boss{i}": "cancelled" for i in range(PRINCIPALS)}


def _fact(uow, pk: int):
    from fact.models import Fact

    return uow.session.get(Fact, pk)


def test_a_senders_lock_key_is_the_same_in_every_process_and_differs_between_senders():
    assert lock_key("person:p_a") == lock_key("person:p_a")
    assert lock_key("person:p_a") != lock_key("person:p_b")
    assert -(2**63) <= lock_key("telegram:42") < 2**63
    assert sender_of({"person_id": "p_a", "channel": "telegram", "external_user_id": "1"}) == "person:p_a"
    assert sender_of({"person_id": None, "channel": "telegram", "external_user_id": "1"}) == "telegram:1"
    assert sender_of({"event": "ci"}) is None
