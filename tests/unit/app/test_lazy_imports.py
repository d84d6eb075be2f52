"""A small process: what only some paths need is imported when first needed, not with the app."""

from __future__ import annotations

import os
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


def test_the_app_loads_no_intent_classifier_until_a_process_decides():
    # scikit-learn and what it stands on (about 125 MB and 2.5 s): the processor trains the model, the web never.
    assert _loaded_after_importing_the_app("sklearn", "numpy", "scipy", "threadpoolctl") == set()


# The web process as `deputy serve` runs it (migrations in a child, the processor in a process of its own), built
# and through its start-up: Telegram receiving by webhook, Feishu off, the LLM off unless LLM_URL is given.
WEB_PROCESS = """
import asyncio, sys
from app.main import create_app
from app.settings import Settings
llm = {{"llm_base_url": sys.argv[2]}} if len(sys.argv) > 2 else {{}}
settings = Settings(
    _env_file=None, database_url=sys.argv[1], telegram_bot_token="123:abc", telegram_mode="webhook",
    telegram_webhook_secret="s", telegram_bot_username="deputy_bot", **llm,
)
app = create_app(settings, run_migrations=False, processor=False)
async def serve():
    async with app.router.lifespan_context(app):
        print(" ".join(m for m in ({}) if m in sys.modules))
asyncio.run(serve())
"""
SDKS = ("lark_oapi", "cognitive_core.llm.client", "httpx", "telegram", "jinja2", "alembic", "Crypto", "yaml")
SDKS += ("sklearn", "numpy", "scipy")  # the intent classifier: only the process that decides trains it


def _loaded_by_a_started_web_process(tmp_path: Path, *extra: str) -> set[str]:
    code = WEB_PROCESS.format(", ".join(repr(m) for m in SDKS) + ",")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}  # only the settings given here
    url = f"sqlite:///{tmp_path / 'web.db'}"
    done = subprocess.run(
        [sys.executable, "-c", code, url, *extra], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_a_started_web_process_loads_no_sdk_of_a_path_it_does_not_take(tmp_path):
    # Feishu off: no lark_oapi, no pycryptodome; the LLM off: no client (nor httpx); Telegram by webhook: the
    # parsing is ours, the Bot API client loads with the first send; no console page yet: no jinja2; the web
    # process decides nothing: no scikit-learn, numpy or scipy.
    assert _loaded_by_a_started_web_process(tmp_path) == set()


def test_the_llm_client_loads_when_the_llm_is_configured(tmp_path):
    # The probe sees what is loaded: with an LLM configured, its client (and httpx) is there from the start.
    assert {"cognitive_core.llm.client", "httpx"} <= _loaded_by_a_started_web_process(tmp_path, "http://127.0.0.1:9")


def test_a_migration_still_finds_alembic_when_it_runs(tmp_path):
    from sqlalchemy import create_engine, inspect

    from app import migrate

    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    assert "alembic_version" in inspect(engine).get_table_names()
    engine.dispose()
