"""A small process: what only some paths need is imported when first needed, not with the app."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROBE = "import sys, app.main, app.processes; print(' '.join(m for m in ({}) if sys.modules.get(m) is not None))"


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
# and through its start-up: Telegram receiving by webhook, Feishu off, the LLM off; argv[2] adds settings (JSON) and
# argv[3], when given, is a Telegram update the process acknowledges (raw ASGI, as a platform posts it) first.
WEB_PROCESS = """
import asyncio, json, sys
from app.main import create_app
from app.settings import Settings
settings = Settings(
    _env_file=None, database_url=sys.argv[1], telegram_bot_token="123:abc", telegram_mode="webhook",
    telegram_webhook_secret="s", telegram_bot_username="deputy_bot", **json.loads(sys.argv[2]),
)
app = create_app(settings, run_migrations=False, processor=False)
async def post(body):
    scope = {{"type": "http", "asgi": {{"version": "3.0"}}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/webhooks/telegram", "raw_path": b"/webhooks/telegram", "query_string": b"", "root_path": "",
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
        "headers": [(b"content-type", b"application/json"), (b"x-telegram-bot-api-secret-token", b"s")]}}
    sent, messages = [], [{{"type": "http.request", "body": body, "more_body": False}}]
    async def receive():
        return messages.pop(0) if messages else {{"type": "http.disconnect"}}
    async def send(message):
        sent.append(message)
    await app(scope, receive, send)
    return sent[0]["status"]
async def serve():
    async with app.router.lifespan_context(app):
        status = await post(sys.argv[3].encode()) if len(sys.argv) > 3 else None
        print(status, " ".join(m for m in ({}) if sys.modules.get(m) is not None))
asyncio.run(serve())
"""
SDKS = ("lark_oapi", "cognitive_core.llm.client", "httpx", "telegram", "jinja2", "alembic", "Crypto", "yaml")
SDKS += ("sklearn", "numpy", "scipy")  # the intent classifier: only the process that decides trains it
SDKS += ("redis", "pydantic.v1")  # Redis: its client is made by the first use; pydantic.v1: Deputy has no such model


def _loaded_by_a_started_web_process(tmp_path: Path, settings: dict | None = None, update: dict | None = None):
    """What the process has loaded once started (and once it acknowledged `update`), and the ack's status."""
    code = WEB_PROCESS.format(", ".join(repr(m) for m in SDKS) + ",")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}  # only the settings given here
    url = f"sqlite:///{tmp_path / 'web.db'}"
    if update is not None:  # the webhook appends to the inbound queue: the schema must be there
        from app import migrate

        migrate.upgrade(url)
    args = [url, json.dumps(settings or {}), *([json.dumps(update)] if update is not None else [])]
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    status, *loaded = done.stdout.split()
    return set(loaded) if update is None else (int(status), set(loaded))


def test_a_started_web_process_loads_no_sdk_of_a_path_it_does_not_take(tmp_path):
    # Feishu off: no lark_oapi, no pycryptodome; the LLM off: no client (nor httpx); Telegram by webhook: the
    # parsing is ours, the Bot API client loads with the first send; no console page yet: no jinja2; the web
    # process decides nothing: no scikit-learn, numpy or scipy; and FastAPI's pydantic.v1 check is answered without it.
    assert _loaded_by_a_started_web_process(tmp_path) == set()


def test_the_llm_client_loads_when_the_llm_is_configured(tmp_path):
    # The probe sees what is loaded: with an LLM configured, its client (and httpx) is there from the start.
    loaded = _loaded_by_a_started_web_process(tmp_path, {"llm_base_url": "http://127.0.0.1:9"})
    assert {"cognitive_core.llm.client", "httpx"} <= loaded


def test_acknowledging_a_webhook_with_redis_configured_loads_no_redis_client(tmp_path):
    # The ack appends and wakes the processor over its socket (and, on PostgreSQL, NOTIFY): Redis is not on its path.
    update = {
        "update_id": 7,
        "message": {
            "message_id": 1,
            "date": 1700000000,
            "text": "hi",
            "chat": {"id": 5, "type": "private"},
            "from": {"id": 5, "is_bot": False, "first_name": "A"},
        },
    }
    status, loaded = _loaded_by_a_started_web_process(tmp_path, {"redis_url": "redis://127.0.0.1:9/0"}, update)
    assert (status, loaded) == (200, set())


def test_a_migration_still_finds_alembic_when_it_runs(tmp_path):
    from sqlalchemy import create_engine, inspect

    from app import migrate

    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    assert "alembic_version" in inspect(engine).get_table_names()
    engine.dispose()
