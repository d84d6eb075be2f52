"""Every schemathesis check (`--checks all`) over the whole schema, bounded for CI (SQLite only).

The full-length CLI run and its figures are in docs/api.md ("What the OpenAPI document says"). Only the soft
delete the product contract makes (`DELETE` deactivates; `PATCH active` reactivates) may appear; any other fails.
"""

from __future__ import annotations

import json
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
# A request the document admits is never a 422: what only the stored state, the clock or two of its own fields can
# refuse is a 409, which positive_data_acceptance expects. The one failure the contract explains is the soft delete.
SOFT_DELETE = "DELETE /v1/persons/{person_id}"  # deactivates: the person reads back with active false (the contract)


def explained(code: str, operation: str, body: bytes) -> str | None:
    """The named contract reason behind one failure, or None when nothing in the contract explains it."""
    if code == "ST301" and operation == SOFT_DELETE and json.loads(body).get("active") is False:
        return "soft delete"
    return None


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
                reason = explained(failure.code, failure.operation, response.content)
                if reason is None:
                    unexplained.append(
                        f"{failure.code} {failure.operation}: {failure.title} {response.content[:300]!r}"
                    )
                else:
                    reasons[reason] += 1
    return unexplained, reasons, checks


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_every_schemathesis_check_passes_but_for_the_contracts_soft_delete(ctx):
    app = create_app(ctx=ctx, run_migrations=False)
    with TestClient(app):  # the app serving: after its start-up, before its shutdown
        unexplained, reasons, checks = run_all_checks(app)
    assert {"not_a_server_error", "positive_data_acceptance", "negative_data_rejection", "use_after_free"} <= checks
    assert {"response_schema_conformance", "status_code_conformance", "ensure_resource_availability"} <= checks
    assert not unexplained, "\n".join(unexplained)
    print(f"failures the contract explains: {dict(reasons)}")
