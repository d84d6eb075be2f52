"""In Chromium with every request off this host refused (as with no Internet), /docs and /redoc still render the
API, and "Authorize" in Swagger UI takes a token and sends it."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.conftest import ADMIN_TOKEN

pytestmark = pytest.mark.browser


def _offline(page) -> list[str]:
    """Refuse every request that does not go to the service itself; the refused URLs are returned as they come."""
    refused: list[str] = []

    def route(r):
        if urlsplit(r.request.url).hostname in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return refused


def test_swagger_ui_renders_every_operation_with_no_internet_and_authorizes(page):
    refused = _offline(page)
    page.goto("/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=15_000)
    paths = set(page.locator(".opblock-summary-path").all_inner_texts())
    assert {"/v1/facts", "/v1/persons", "/v1/concerns"} <= {p.replace("\u200b", "") for p in paths}
    page.click("button.authorize")
    page.fill(".auth-container input", ADMIN_TOKEN)
    page.click(".auth-btn-wrapper button.authorize")
    page.click("button.btn-done")
    page.locator("#operations-facts-list_facts_v1_facts_get, .opblock-get").first.click()
    assert refused == [] and page.problems == []


def test_redoc_renders_the_reference_with_no_internet(page):
    refused = _offline(page)
    page.goto("/redoc")
    page.wait_for_selector("[data-section-id]", timeout=15_000)
    assert page.locator("[data-section-id]").count() > 10
    assert "/v1/facts" in page.inner_text("body")
    assert refused == [] and page.problems == []
