"""The simulation's politeness invariant reads `/v1/facts` alone, and it catches what it is meant to catch."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from action import service
from app.main import create_app
from app.wiring import build_context
from fact import service as facts
from tests.conftest import make_settings
from tests.integration.action_helpers import action_facts, add_memory_channels, add_person, notify
from tests.simulation.politeness import PolitenessFromFacts


@pytest.fixture
def sim_ctx(database_url, clock):
    ctx = build_context(make_settings(database_url, admin_tokens="sim:sim-admin-token"), clock=clock)
    add_memory_channels(ctx)
    yield ctx
    ctx.close()


@pytest.fixture
def checker(sim_ctx):
    with TestClient(create_app(ctx=sim_ctx, run_migrations=False), raise_server_exceptions=False) as client:
        yield PolitenessFromFacts(SimpleNamespace(replicas={"r1": SimpleNamespace(client=client)}))


def _forged(ctx, **detail) -> None:
    """An action_result like the real one, with its detail changed (as a faulty version would have written it)."""
    real = action_facts(ctx)[0].content
    content = {**real, "action_id": f"{real['action_id']}x", "result_detail": {**real["result_detail"], **detail}}
    with ctx.uow(actor="test") as uow:
        facts.append(uow, fact_type="action_result", source="action_layer", content=content)


def test_real_deliveries_keep_politeness(sim_ctx, checker):
    add_person(sim_ctx, policy={"max_proactive_contacts_per_day": 2})
    for n in range(3):
        service.execute(sim_ctx, request=notify(request_key=f"k{n}"))  # the third is held by the cap
    assert checker.violations() == []


def test_a_proactive_p2_in_quiet_time_is_found(sim_ctx, checker):
    add_person(sim_ctx, policy={"quiet_hours": [{"start": "22:00", "end": "08:00"}]})
    service.execute(sim_ctx, request=notify())
    _forged(sim_ctx, target_local_time="2026-03-18T23:30:00+08:00")
    [violation] = checker.violations()
    assert "in quiet time Wed 23:30" in violation


def test_a_p0_or_a_reactive_reply_in_quiet_time_is_not_a_violation(sim_ctx, checker):
    add_person(sim_ctx, policy={"quiet_hours": [{"start": "22:00", "end": "08:00"}]})
    service.execute(sim_ctx, request=notify())
    _forged(sim_ctx, target_local_time="2026-03-18T23:30:00+08:00", priority="P0")
    _forged(sim_ctx, target_local_time="2026-03-18T23:31:00+08:00", proactive=False, reactive=True)
    assert checker.violations() == []


def test_more_contacts_on_one_local_day_than_the_cap_is_found(sim_ctx, checker):
    add_person(sim_ctx, policy={"max_proactive_contacts_per_day": 1})
    service.execute(sim_ctx, request=notify())
    _forged(sim_ctx)
    [violation] = checker.violations()
    assert "got 2 proactive contacts on 2026-03-18" in violation


def test_an_action_result_without_the_keys_is_found(sim_ctx, checker):
    add_person(sim_ctx)
    service.execute(sim_ctx, request=notify())
    real = action_facts(sim_ctx)[0].content
    detail = {k: v for k, v in real["result_detail"].items() if k != "target_local_time"}
    with sim_ctx.uow(actor="test") as uow:
        facts.append(uow, fact_type="action_result", source="action_layer", content={**real, "result_detail": detail})
    [violation] = checker.violations()
    assert "lacks ['target_local_time']" in violation
