"""Fresh migrated databases for simulation runs outside pytest (SQLite files, PostgreSQL from a template)."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path
from typing import Any

from app import migrate
from tests.conftest import PostgresDatabases

_names = itertools.count(1)


class Databases:
    """SQLite copies of one migrated file; PostgreSQL copies of one migrated template (DEPUTY_TEST_POSTGRES_URL)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._template = folder / "template.db"
        self._postgres: PostgresDatabases | None = None

    def __enter__(self) -> Databases:
        migrate.upgrade(f"sqlite:///{self._template}")
        return self

    def __exit__(self, *_: Any) -> None:
        if self._postgres is not None:
            self._postgres.close()

    def fresh(self, backend: str) -> str:
        """A new empty, migrated database URL."""
        if backend == "sqlite":
            target = self.folder / f"sim_{next(_names)}.db"
            shutil.copy(self._template, target)
            return f"sqlite:///{target}"
        if self._postgres is None:
            url = os.environ.get("DEPUTY_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
            self._postgres = PostgresDatabases(url)
            self._postgres.setup_template()
        return self._postgres.fresh()

    def drop(self, url: str) -> None:
        """Remove a database made by `fresh`."""
        if url.startswith("sqlite:///"):
            for suffix in ("", "-wal", "-shm"):
                Path(url.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)
        elif self._postgres is not None:
            self._postgres.drop(url)
