"""Markers that run a test on one backend only (the `database_url` fixture is parametrized over both)."""

import pytest

ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
ON_SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
