"""The OpenAPI document as the API behaves: the bearer scheme, and the `{"error": …}` envelope on every error response.

FastAPI documents a `{"detail": …}` 422 that the API never sends and no other error; here every operation gets
the statuses it can answer, each with the one envelope schema (SPEC §8), so `/docs` can authorise and read errors.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field
from starlette.routing import Match, Mount

WRITES = {"post", "put", "patch", "delete"}
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
DESCRIPTIONS = {
    400: "Malformed JSON, JSON nested too deep, or an invalid cursor",
    401: "Missing or unknown bearer token",
    403: "The token may only read",
    404: "No such resource",
    409: (
        "Admitted by this document but refused by the current state: an existing id, a bound chat, a closed loop, a"
        " person or manager that does not exist or is deactivated, a passed deadline, L1-L4, two ids that must differ"
    ),
    413: "The request body is larger than DEPUTY_MAX_BODY_BYTES",
    422: "A field is not what this document says; `field` names it",
}
FAKE_FASTAPI_SCHEMAS = ("HTTPValidationError", "ValidationError")
# One example body per status, each exactly what the service answers to the request named beside it
# (tests/api/test_openapi_examples.py sends those requests and compares).
EXAMPLES: dict[int, dict[str, Any]] = {
    400: {"code": "malformed_json", "message": "request body is not valid JSON"},  # POST /v1/persons `{bad`
    401: {"code": "unauthorized", "message": "missing bearer token"},  # any /v1 request without Authorization
    403: {"code": "forbidden", "message": "this token may only read"},  # a viewer's POST /v1/persons
    404: {"code": "not_found", "message": "person p_unknown does not exist", "field": "person_id"},
    409: {"code": "conflict", "message": "person p_zhangsan already exists", "field": "person_id"},
    413: {"code": "payload_too_large", "message": "request body exceeds 1048576 bytes"},
    422: {
        "code": "validation_error",
        "message": "quiet_hours.0.start: Value error, '25:00' is not a time of day HH:MM (00:00-23:59)",
        "field": "quiet_hours.0.start",
        "details": [
            {
                "field": "quiet_hours.0.start",
                "message": "Value error, '25:00' is not a time of day HH:MM (00:00-23:59)",
            }
        ],
    },
}


class ErrorDetail(BaseModel):
    """What went wrong: a stable code, a message, the field at fault and, for validation, every problem."""

    code: str = Field(examples=["not_found"])
    message: str = Field(examples=["person p_unknown does not exist"])
    field: str | None = Field(None, examples=["person_id"])
    details: Any = None


class ErrorBody(BaseModel):
    """The error envelope every 4xx answer carries."""

    error: ErrorDetail


def statuses(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    """The error statuses an operation can answer, read from the operation itself."""
    found = [400, 422]
    requirements = operation.get("security", [])
    if requirements:
        found.append(401)
    if any("admin" in roles for requirement in requirements for roles in requirement.values()):
        found.append(403)
    names_something, body = "{" in path, "requestBody" in operation
    if names_something or body:  # a path id, or ids in the body (a person, a loop) that may not exist
        found.append(404)
    if method in WRITES and (names_something or body):
        found.append(409)
    if body:
        found.append(413)
    return sorted(found)


# The input guard (app/api/guards.py) refuses U+0000 in every text of a request: the document says so on every
# string left free, query and body (a lone surrogate is refused too; a portable pattern cannot name one).
STORABLE = {"pattern": "^[^\\x00]*$"}
SHAPED = ("pattern", "enum", "const", "format")
# Free-form JSON (a signal's `content`): any value whose texts, keys too, hold no U+0000.
STORABLE_JSON = {
    "anyOf": [
        {"type": ["null", "boolean", "number"]},
        {"type": "string", **STORABLE},
        {"type": "array", "items": {"$ref": "#/components/schemas/StorableJson"}},
        {
            "type": "object",
            "propertyNames": STORABLE,
            "additionalProperties": {"$ref": "#/components/schemas/StorableJson"},
        },
    ]
}


def _storable(node: Any, components: dict[str, Any], seen: set[str]) -> None:
    """Add STORABLE to every free string under `node`, following references into components once each."""
    if isinstance(node, list):
        for item in node:
            _storable(item, components, seen)
        return
    if not isinstance(node, dict):
        return
    if (ref := node.get("$ref", "")).startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] not in seen:
        seen.add(name := ref.rsplit("/", 1)[1])
        _storable(components[name], components, seen)
    if node.get("type") == "string" and not any(key in node for key in SHAPED):
        node.update(STORABLE)
    if node.get("type") == "object" and node.get("additionalProperties") is True and "properties" not in node:
        node.update(propertyNames=STORABLE, additionalProperties={"$ref": "#/components/schemas/StorableJson"})
    for key, value in node.items():
        if key not in ("$ref", "examples", "example", "default"):
            _storable(value, components, seen)


def _requests_storable(schema: dict[str, Any], components: dict[str, Any]) -> None:
    components["StorableJson"] = STORABLE_JSON
    seen: set[str] = set()
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query":
                    _storable(parameter.get("schema"), components, seen)
            _storable(operation.get("requestBody"), components, seen)


def _schema(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, routes=app.routes, description=app.description)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for model in (ErrorDetail, ErrorBody):
        components[model.__name__] = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components[model.__name__].pop("$defs", None)
    envelope = {"$ref": "#/components/schemas/ErrorBody"}
    for path, item in schema.get("paths", {}).items():
        for method, operation in item.items():
            if method not in {"get", *WRITES}:
                continue
            responses = operation.setdefault("responses", {})
            for status in statuses(path, method, operation):
                content = {"application/json": {"schema": envelope, "example": {"error": EXAMPLES[status]}}}
                responses[str(status)] = {"description": DESCRIPTIONS[status], "content": content}
    for name in FAKE_FASTAPI_SCHEMAS:
        components.pop(name, None)
    _requests_storable(schema, components)
    return schema


def install(app: FastAPI) -> None:
    """Serve the corrected document at /openapi.json (built once)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _schema(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def allowed_methods(app: Any, scope: dict[str, Any]) -> list[str]:
    """Every method some route serves at this path (the `Allow` header of a 405), not just the first route's."""
    routes = [r for r in app.router.routes if not isinstance(r, Mount)]  # a mount takes any method
    return [m for m in METHODS if any(r.matches({**scope, "method": m})[0] == Match.FULL for r in routes)]
