"""Composition root: settings, database, the FastAPI app and the `deputy` CLI."""

import sys

# FastAPI asks of every route's types, and of every value it encodes, whether it is a pydantic.v1 model, importing
# pydantic.v1 (2 MB resident) to find out. Deputy has none and no dependency uses it: the import is refused, and
# FastAPI's check (which treats a failed import as "no") answers no without it.
sys.modules.setdefault("pydantic.v1", None)  # type: ignore[assignment]
