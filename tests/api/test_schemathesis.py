"""Property-based fuzzing of the whole OpenAPI schema: no input may cause a 5xx (SQLite only, bounded)."""

from __future__ import annotations

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from app.main import create_app
from tests.conftest import ADMIN_TOKEN

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
EXAMPLES_PER_OPERATION = 100  # ~15 s for the whole schema on SQLite
SEEDED = {
    "person_id": "p_seed",
    "display_name": "Seed",
    "channel_bindings": [
        {"channel": "feishu", "external_user_id": "ou_seed"},
        {"channel": "telegram", "external_user_id": "1"},
    ],
    "interaction_policy": {"preferred_channel": "feishu"},
}
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    database=None,
    derandomize=True,  # the same inputs on every run: a failure here is reproducible
    phases=[Phase.explicit, Phase.generate],  # no shrinking: the failure message already shows the request
    suppress_health_check=list(HealthCheck),
)


def check_response(case, response) -> None:
    """Never a 5xx; every 4xx is the SPEC §8 envelope; every 2xx matches the documented schema."""
    request = f"{case.method} {case.formatted_path} query={case.query!r} body={getattr(case, 'body', None)!r}"
    assert response.status_code < 500, f"{response.status_code} for {request}: {response.text[:500]}"
    if response.status_code >= 400:
        error = response.json().get("error")
        assert (
            isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str)
        ), (request, response.text)
    else:
        case.validate_response(response, checks=[response_schema_conformance])


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_no_generated_request_causes_a_server_error(ctx):
    app = create_app(ctx=ctx, run_migrations=False)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    with TestClient(app, headers=AUTH) as seeding:  # fuzz the app serving: after its start-up, before shutdown
        assert seeding.post("/v1/persons", json=SEEDED).status_code == 201
        operations = [result.ok() for result in schema.get_all_operations()]
        assert any(op.path == "/v1/persons" and op.method.upper() == "POST" for op in operations)
        for operation in operations:
            pinned = {"person_id": "p_seed"} if "{person_id}" in operation.path else None
            strategies = [
                operation.as_strategy(mode, headers=AUTH) for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
            ]
            if pinned:
                strategies += [
                    operation.as_strategy(mode, headers=AUTH, path_parameters=pinned) for mode in GenerationMode
                ]

            @FUZZ_SETTINGS
            @given(case=st.one_of(strategies))
            def fuzz(case):
                check_response(case, case.call(headers=AUTH))

            fuzz()
