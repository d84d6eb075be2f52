"""Every schemathesis check (`--checks all`) over the whole schema, bounded for CI (SQLite only).

The full-length CLI run and its figures are in docs/api.md ("What the OpenAPI document says"). Only the refusals
the product contract makes and JSON Schema cannot state (listed there) may appear; any other failure fails.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
import schemathesis
from fastapi.testclient import TestClient
from schemathesis import engine
from schemathesis.engine import Status, events

from app.main import create_app
from tests.conftest import ADMIN_TOKEN

EXAMPLES_PER_OPERATION = 10
# The coverage phase is left to the full-length run: --max-examples does not bound it (it alone takes longer
# than this whole test); examples, fuzzing and the stateful phase are bounded by the count above.
CONFIG = {
    "seed": 1,
    "headers": {"Authorization": f"Bearer {ADMIN_TOKEN}"},
    "generation": {"max-examples": EXAMPLES_PER_OPERATION},
    "checks": {"enabled": True},
    "phases": {"coverage": {"enabled": False}},
}
# A schema-valid request the contract refuses with a 422 for a reason no JSON Schema can state: two fields that
# must differ, a list's entries that must differ in two of their fields, the stored state, or the clock.
CONTRACT_REFUSALS = {
    "differ": r"someone other than the originator|cannot be their own manager|cannot stand in for themselves",
    "listed twice": r"^channel_bindings: Value error, binding \S+ is listed twice$",
    "stored state": r"does not exist$|is deactivated$|would form a cycle$|not one of the person's bound channels$",
    "layers": r"^refused: L[1-4]:",
    "clock": r"^deadline must be (in the future|within 366 days from now)$",
}
SOFT_DELETE = "DELETE /v1/persons/{person_id}"  # deactivates: the person reads back with active false (the contract)


def explained(code: str, operation: str, status: int, body: bytes) -> str | None:
    """The named contract reason behind one failure, or None when nothing in the contract explains it."""
    if code == "ST301":
        return "soft delete" if operation == SOFT_DELETE and json.loads(body).get("active") is False else None
    if code != "ST202" or status != 422:
        return None
    message = json.loads(body)["error"]["message"]
    return next((reason for reason, rule in CONTRACT_REFUSALS.items() if re.search(rule, message)), None)


def run_all_checks(app) -> tuple[list[str], Counter, set[str]]:
    """Run the engine; the failures nothing explains, the explained ones by reason, and every check that ran."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=schemathesis.Config.from_dict(CONFIG))
    unexplained, reasons, checks = [], Counter(), set()
    for event in engine.from_schema(schema).execute():
        if isinstance(event, (events.NonFatalError, events.FatalError)):
            unexplained.append(f"engine error: {event.info.title if hasattr(event, 'info') else event}")
        if not isinstance(event, (events.ScenarioFinished, events.FuzzScenarioFinished)):
            continue
        recorder = event.recorder
        for case_id, nodes in recorder.checks.items():
            for node in nodes:
                checks.add(node.name)
                if node.status != Status.FAILURE or node.failure_info is None:
                    continue
                failure, response = node.failure_info.failure, recorder.interactions[case_id].response
                reason = explained(failure.code, failure.operation, response.status_code, response.content)
                if reason is None:
                    unexplained.append(
                        f"{failure.code} {failure.operation}: {failure.title} {response.content[:300]!r}"
                    )
                else:
                    reasons[reason] += 1
    return unexplained, reasons, checks


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_every_schemathesis_check_passes_but_for_the_contracts_named_refusals(ctx):
    app = create_app(ctx=ctx, run_migrations=False)
    with TestClient(app):  # the app serving: after its start-up, before its shutdown
        unexplained, reasons, checks = run_all_checks(app)
    assert {"not_a_server_error", "positive_data_acceptance", "negative_data_rejection", "use_after_free"} <= checks
    assert {"response_schema_conformance", "status_code_conformance", "ensure_resource_availability"} <= checks
    assert not unexplained, "\n".join(unexplained)
    print(f"failures the contract explains: {dict(reasons)}")
