"""Composition root: settings, database, the FastAPI app and the `deputy` CLI."""
