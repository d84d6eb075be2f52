"""`/docs` (Swagger UI) and `/redoc` served with their assets from this process: they work with no Internet.

The assets come from the `fastapi-offline` package (MIT; it ships Swagger UI, Apache-2.0, and ReDoc, MIT, as
released upstream), pinned in pyproject.toml, so an upgrade is a version bump rather than files to copy by hand.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"
# ReDoc's footer ("API docs by Redocly") draws a logo from Redocly's CDN: with no Internet it is a failed request, so
# the bundle is served with that one address replaced by an empty inline image.
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = "data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A//www.w3.org/2000/svg%22/%3E"


def assets_dir() -> str:
    """Where the installed package keeps swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js, favicon.png."""
    return str(files("fastapi_offline") / "static")


@cache
def redoc_bundle() -> bytes:
    """redoc.standalone.js as shipped, but for its one address off this host (the footer logo)."""
    bundle = (files("fastapi_offline") / "static" / "redoc.standalone.js").read_text(encoding="utf-8")
    return bundle.replace(REDOC_LOGO, EMPTY_IMAGE).encode()


def install(app: FastAPI) -> None:
    """Serve /docs, its OAuth2 redirect page and /redoc from local assets (create the app with docs_url=None)."""

    # Declared before the mount: a route matches ahead of the static folder for this one file.
    @app.get(f"{ASSETS}/redoc.standalone.js", include_in_schema=False)
    def redoc_js() -> Response:
        return Response(redoc_bundle(), media_type="text/javascript", headers={"Cache-Control": "max-age=86400"})

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
