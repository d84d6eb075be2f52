"""`/docs` (Swagger UI) and `/redoc` served with their assets from this process: they work with no Internet.

The assets come from the `fastapi-offline` package (MIT; it ships Swagger UI, Apache-2.0, and ReDoc, MIT, as
released upstream), pinned in pyproject.toml, so an upgrade is a version bump rather than files to copy by hand.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"


def assets_dir() -> str:
    """Where the installed package keeps swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js, favicon.png."""
    return str(files("fastapi_offline") / "static")


def install(app: FastAPI) -> None:
    """Serve /docs, its OAuth2 redirect page and /redoc from local assets (create the app with docs_url=None)."""
    app.mount(ASSETS, StaticFiles(directory=assets_dir()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - API",
            oauth2_redirect_url=OAUTH2_REDIRECT,
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
            swagger_ui_parameters={"persistAuthorization": True},
        )

    @app.get(OAUTH2_REDIRECT, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - API reference",
            redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
