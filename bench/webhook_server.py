"""The servers of `bench/webhook.py`, each run as `python -m bench.webhook_server deputy|thread|bare PORT`.

All are served the same way: `uvicorn.run(app)` with one worker, uvicorn's default loop and HTTP
implementation (uvloop and httptools when installed, as `deputy serve` gets them), warnings-only logging.
`deputy` is what `deputy serve` runs: migrations in a child, the web process, and the processor in a process of
its own (`python -m bench.webhook_server processor`, which is `deputy process` with the bot's rate lifted);
`thread` is the web process with the processor as a thread in it (`deputy serve --processor-thread`).
"""

from __future__ import annotations

import signal
import sys
from typing import Any

from fastapi import Request  # module level: FastAPI resolves the string annotation here

PERSONS = 500
PRINCIPALS = [7_000_000 + i for i in range(200)]  # the /help senders: 200 chats, so per-chat pacing is no wall
SECRET = "bench-secret"


def redis_url() -> str | None:
    """The Redis the PostgreSQL runs use (DEPUTY_BENCH_REDIS_URL or DEPUTY_TEST_REDIS_URL), as deployed beside it."""
    import os

    return os.environ.get("DEPUTY_BENCH_REDIS_URL") or os.environ.get("DEPUTY_TEST_REDIS_URL")


def deputy_env(url: str, fake: Any) -> dict[str, str]:
    """Deputy's settings for the bench: the database (PostgreSQL with Redis when one is given), the fake Bot API,
    warnings-only logs."""
    redis = redis_url() if url.startswith("postgresql") else None
    return {
        **({"DEPUTY_REDIS_URL": redis} if redis else {}),
        "DEPUTY_DATABASE_URL": url,
        "DEPUTY_TELEGRAM_BOT_TOKEN": fake.token,
        "DEPUTY_TELEGRAM_API_BASE": fake.base_url,
        "DEPUTY_TELEGRAM_WEBHOOK_SECRET": SECRET,
        "DEPUTY_TELEGRAM_BOT_USERNAME": "deputy_bot",
        "DEPUTY_TELEGRAM_MODE": "webhook",
        "DEPUTY_LOG_LEVEL": "WARNING",
    }


def setup_directory(url: str) -> None:
    """Migrate, then 500 people: 200 principals bound on Telegram (the /help senders) and their members."""
    from app import migrate
    from app.settings import Settings
    from app.wiring import build_context
    from person import service as persons
    from person.models import PersonCreate

    migrate.upgrade(url)
    ctx = build_context(Settings(_env_file=None, database_url=url))
    with ctx.uow(actor="bench") as uow:
        for i in range(PERSONS):
            principal = i < len(PRINCIPALS)
            bindings = [{"channel": "telegram", "external_user_id": str(PRINCIPALS[i])}] if principal else []
            persons.create(
                uow,
                data=PersonCreate.model_validate(
                    {
                        "person_id": f"p_bench_{i}",
                        "display_name": f"成员{i}号" if i % 2 else f"Member {i}",
                        "aliases": [f"m{i}"],
                        "role": "principal" if principal else "member",
                        "locale": "en" if i % 2 else "zh",
                        "manager_id": None if principal else f"p_bench_{i % len(PRINCIPALS)}",
                        "channel_bindings": bindings,
                        "interaction_policy": {"quiet_hours": [], "max_proactive_contacts_per_day": 100},
                    }
                ),
            )
    ctx.close()


def lift_bot_rate(ctx: Any) -> None:
    """Telegram's 30 messages/s per bot would cap every /help figure at 30/s: lift it, here only."""
    ctx.channels.get("telegram").pacer.bot_interval = 1e-4


def _bare_app() -> Any:
    from fastapi import FastAPI

    app = FastAPI()

    @app.post("/webhooks/telegram")
    async def webhook(request: Request) -> dict[str, bool]:
        await request.json()
        return {"ok": True, "recorded": True}

    return app


def _deputy_app(*, processor: bool) -> Any:
    from app.main import create_app
    from app.settings import Settings

    app = create_app(Settings(_env_file=None), run_migrations=False, processor=processor)
    lift_bot_rate(app.state.ctx)
    return app


def _processor(parent_pid: int) -> None:
    from app.processes import run_processor
    from app.settings import Settings
    from app.wiring import build_context

    ctx = build_context(Settings(_env_file=None))
    lift_bot_rate(ctx)
    try:
        run_processor(ctx, parent_pid=parent_pid)
    finally:
        ctx.close()


def _list_modules_on_sigusr1() -> None:
    """On SIGUSR1, write this process's imported modules to $DEPUTY_BENCH_MODULES_DIR/<pid> (bench/memory.py)."""
    import os
    from pathlib import Path

    if not (folder := os.environ.get("DEPUTY_BENCH_MODULES_DIR")):
        return

    def dump(*_: Any) -> None:
        target = Path(folder) / str(os.getpid())
        target.with_suffix(".tmp").write_text("\n".join(sorted(sys.modules)))
        target.with_suffix(".tmp").rename(target)  # whole or absent: the reader polls for it

    signal.signal(signal.SIGUSR1, dump)


def main() -> None:
    """Serve one of the apps on 127.0.0.1:PORT (or run the processor process of `deputy`)."""
    import logging
    import os

    import uvicorn

    kind = sys.argv[1]
    logging.basicConfig(level=logging.WARNING)
    _list_modules_on_sigusr1()
    if kind == "processor":
        _processor(int(sys.argv[2]))
        return
    port = int(sys.argv[2])
    supervisor = None
    if kind in ("deputy", "thread"):
        from app import serving

        serving.migrate_in_child(os.environ["DEPUTY_DATABASE_URL"])
        if kind == "deputy":
            command = [sys.executable, "-m", "bench.webhook_server", "processor", str(os.getpid())]
            supervisor = serving.Supervisor(command).start()
    app = _bare_app() if kind == "bare" else _deputy_app(processor=kind == "thread")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # uvicorn raises it again once shut down: exit cleanly
    try:
        # The options of `deputy serve` (app/serving.py) for both kinds: no WebSocket implementation loaded.
        uvicorn.run(app, host="127.0.0.1", port=port, log_config=None, log_level="warning", access_log=False, ws="none")
    finally:
        if supervisor is not None:
            supervisor.stop()


if __name__ == "__main__":
    main()
