"""Apply Alembic migrations: the only way the schema is created or changed.

Alembic is imported when a migration runs, not with this module: `deputy serve` migrates in a child process,
so the long-lived web and processor processes never hold its modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(database_url: str) -> Config:
    """An Alembic config pointing at the packaged migrations and `database_url`."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    cfg.attributes["database_url"] = database_url
    return cfg


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database at `database_url` to `revision`."""
    from alembic import command

    command.upgrade(alembic_config(database_url), revision)
