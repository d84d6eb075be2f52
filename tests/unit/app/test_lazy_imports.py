"""A small process: what only some paths need is imported when first needed, not with the app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROBE = "import sys, app.main, app.processes; print(' '.join(m for m in ({}) if m in sys.modules))"


def _loaded_after_importing_the_app(*modules: str) -> set[str]:
    code = PROBE.format(", ".join(repr(m) for m in modules) + ",")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_app_loads_neither_alembic_nor_the_console_templates_nor_the_feishu_sdk_until_used():
    assert _loaded_after_importing_the_app("alembic", "jinja2", "lark_oapi") == set()


def test_a_migration_still_finds_alembic_when_it_runs(tmp_path):
    from sqlalchemy import create_engine, inspect

    from app import migrate

    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    assert "alembic_version" in inspect(engine).get_table_names()
    engine.dispose()
