"""`/docs` and `/redoc` work with no Internet: every asset they load is served by the service itself, and the error
examples in the OpenAPI document are exactly what the service answers."""

from __future__ import annotations

import re

import pytest

from app.api.openapi import EXAMPLES
from tests.conftest import VIEWER_TOKEN

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']|url:\s*'([^']+)'""")
TYPES = {".js": "javascript", ".css": "text/css", ".png": "image/png"}


def _loaded(html: str) -> set[str]:
    return {a or b for a, b in ASSET.findall(html)}


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_page_loads_every_asset_from_the_service(client, page):
    html = client.get(page, headers={"Authorization": ""})
    assert html.status_code == 200
    assets = {url for url in _loaded(html.text) if not url.endswith("openapi.json")}
    assert assets and all(url.startswith("/docs-assets/") for url in assets), assets
    assert "cdn" not in html.text and "googleapis" not in html.text
    for url in assets:
        served = client.get(url, headers={"Authorization": ""})
        kind = TYPES[url[url.rindex(".") :]]
        assert served.status_code == 200 and len(served.content) > 1000 and kind in served.headers["content-type"]
    assert "/openapi.json" in html.text


def test_the_redoc_bundle_names_no_address_off_this_host(client):
    bundle = client.get("/docs-assets/redoc.standalone.js", headers={"Authorization": ""})
    assert bundle.status_code == 200 and "javascript" in bundle.headers["content-type"]
    assert len(bundle.content) > 100_000 and b"cdn.redoc.ly" not in bundle.content


def test_swagger_ui_has_its_oauth2_redirect_page(client):
    assert client.get("/docs/oauth2-redirect", headers={"Authorization": ""}).status_code == 200


def _answers(client) -> dict[int, dict]:
    """The service's own answer to the request each example names."""
    person = {"person_id": "p_zhangsan", "display_name": "张三"}
    assert client.post("/v1/persons", json=person).status_code == 201
    json_type = {"Content-Type": "application/json"}
    return {
        400: client.post("/v1/persons", content=b"{bad", headers=json_type).json(),
        401: client.get("/v1/facts", headers={"Authorization": ""}).json(),
        403: client.post("/v1/persons", json=person, headers={"Authorization": f"Bearer {VIEWER_TOKEN}"}).json(),
        404: client.get("/v1/persons/p_unknown").json(),
        409: client.post("/v1/persons", json=person).json(),
        413: client.post("/v1/persons", content=b"[" + b" " * (1024 * 1024) + b"]", headers=json_type).json(),
        422: client.patch(
            "/v1/persons/p_zhangsan/interaction_policy", json={"quiet_hours": [{"start": "25:00", "end": "08:00"}]}
        ).json(),
    }


def test_every_error_example_in_the_document_is_what_the_service_answers(client):
    answers = _answers(client)
    assert set(answers) == set(EXAMPLES)
    for status, body in answers.items():
        assert body == {"error": EXAMPLES[status]}, status
    spec = client.get("/openapi.json").json()
    seen = set()
    for item in spec["paths"].values():
        for operation in item.values():
            for status, response in operation.get("responses", {}).items():
                if status.isdigit() and int(status) in EXAMPLES:
                    example = response["content"]["application/json"]["example"]
                    assert example == {"error": EXAMPLES[int(status)]}, status
                    seen.add(int(status))
    assert seen == set(EXAMPLES)
    assert spec["paths"]["/v1/facts"]["get"]["responses"]["401"]["content"]["application/json"]["example"] == {
        "error": {"code": "unauthorized", "message": "missing bearer token"}
    }
