"""Limits hold across OS processes: N simultaneous notifies to a person whose cap is K give exactly K successes."""

import multiprocessing
from collections import Counter

import pytest
from sqlalchemy import select

from fact.models import Fact
from tests.conftest import START
from tests.integration.action_helpers import action_rows, add_person
from tests.integration.workers import notify_burst

PROCESSES, REQUESTS, CAP = 4, 50, 3


@pytest.mark.slow
def test_fifty_concurrent_notifies_from_four_processes_give_exactly_the_cap(ctx):
    add_person(ctx, policy={"max_proactive_contacts_per_day": CAP})
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Manager().Barrier(PROCESSES)
    chunks = [list(range(REQUESTS))[i::PROCESSES] for i in range(PROCESSES)]
    with spawn.Pool(PROCESSES) as pool:
        outcomes = pool.starmap(
            notify_burst, [(ctx.settings.database_url, START.isoformat(), chunk, barrier) for chunk in chunks]
        )
    results = Counter(r for chunk in outcomes for r in chunk)
    assert results == {"success": CAP, "blocked": REQUESTS - CAP}
    rows = action_rows(ctx)
    assert Counter(r.result for r in rows) == {"success": CAP, "blocked": REQUESTS - CAP}
    assert {r.result_detail["blocked_by"] for r in rows if r.result == "blocked"} == {"L1:daily_cap"}
    with ctx.reader() as uow:
        facts = list(uow.session.scalars(select(Fact).where(Fact.fact_type == "action_result")))
    assert len(facts) == REQUESTS
    assert len({f.content["action_id"] for f in facts}) == REQUESTS
