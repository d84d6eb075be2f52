"""The real app served by uvicorn on a free local port, with Telegram pointed at the fake Bot API, and a story.

The story is driven as the platforms would drive it: the principal asks through the Telegram webhook, the
follow-up comes from a scheduler tick after the clock moved, the answer comes through the webhook again.
"""

from __future__ import annotations

import socket
import threading
import time
from datetime import timedelta
from pathlib import Path

import httpx
import uvicorn

from app import migrate
from app.main import create_app
from app.wiring import build_context
from kernel.clock import FrozenClock
from tests.conftest import ADMIN_TOKEN, START, make_settings
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person

SECRET = "browser-tg-secret"
QUESTION = "提测什么时候能给？"
ANSWER = "明天下午"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ConsoleServer:
    """Serve Deputy on 127.0.0.1 in a thread; `stop()` ends the server, the fake Telegram and the context."""

    def __init__(self, tmp: Path, *, database_url: str | None = None, dry_run: bool = False) -> None:
        self.telegram = FakeTelegram().start()
        url = database_url or f"sqlite:///{tmp / 'console.db'}"
        migrate.upgrade(url)
        settings = make_settings(
            url,
            telegram_bot_token=TOKEN,
            telegram_api_base=self.telegram.base_url,
            telegram_webhook_secret=SECRET,
            telegram_bot_username="deputy_bot",
            console_secret="browser-console-secret",
            dry_run_channels="feishu,telegram" if dry_run else "",  # every channel dry-run: the sandbox is on
        )
        self.clock = FrozenClock(START)
        self.ctx = build_context(settings, clock=self.clock)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        app = create_app(ctx=self.ctx, run_migrations=False)
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", log_config=None)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="console-uvicorn", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        self.api = httpx.Client(base_url=self.base, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=20)

    def stop(self) -> None:
        """Shut everything down."""
        self.api.close()
        self.server.should_exit = True
        self.thread.join(10)
        self.telegram.stop()
        self.ctx.close()

    def tick(self) -> None:
        """Run a pipeline pass now (after any a webhook started)."""
        self.api.post("/v1/scheduler/tick").raise_for_status()

    def telegram_says(self, *, update_id: int, user_id: int, text: str) -> None:
        """A private message as Telegram delivers it to the webhook, then a pass."""
        update = {
            "update_id": update_id,
            "message": {
                "message_id": update_id,
                "date": int(self.clock.now().timestamp()),
                "text": text,
                "from": {"id": user_id, "is_bot": False, "first_name": "User"},
                "chat": {"id": user_id, "type": "private"},
            },
        }
        response = self.api.post("/webhooks/telegram", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
        response.raise_for_status()
        self.tick()

    def seed_people(self) -> None:
        """The principal, Zhang San, his manager Wang Wu, and Li Si who is always quiet, all on Telegram."""
        for pid, name, extra in (
            ("p_boss", "老板", {"role": "principal"}),
            ("p_wangwu", "王五", {}),
            ("p_zhangsan", "张三", {"manager_id": "p_wangwu", "aliases": ["Zhang San"]}),
            ("p_lisi", "李四", {"policy": {"quiet_hours": [{"start": "00:00", "end": "23:59"}]}}),
        ):
            user = {"p_boss": "2001", "p_wangwu": "3001", "p_zhangsan": "1001", "p_lisi": "4001"}[pid]
            add_person(
                self.ctx,
                pid,
                display_name=name,
                bindings=[{"channel": "telegram", "external_user_id": user, "chat_id": user}],
                **extra,
            )

    def run_story(self) -> str:
        """Ask Zhang San, follow up a day later (a plain ask is P2), get the answer; returns the loop's id."""
        self.telegram_says(update_id=1, user_id=2001, text=f"问一下张三：{QUESTION}")
        concern_id = self.api.get("/v1/concerns").json()["items"][0]["concern_id"]
        self.clock.advance(timedelta(days=1))
        self.tick()
        self.telegram_says(update_id=2, user_id=1001, text=ANSWER)
        note = {"target_person_id": "p_lisi", "text": "明早10点开会", "notification_type": "meeting"}
        self.api.post("/v1/notifications", json=note)  # held back: Li Si is always in quiet hours
        return concern_id
