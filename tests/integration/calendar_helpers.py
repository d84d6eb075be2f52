"""Helpers for the calendar tests: a context reading the fake Feishu's calendar, Zhang San on either platform.

Messages go to memory channels; only the calendar talks to the fake, so its requests are the calendar's reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.wiring import build_context
from kernel.context import AppContext
from tests.conftest import make_settings
from tests.fakes import feishu_server as fs
from tests.fakes.memory_channel import MemoryChannel
from tests.integration.action_helpers import add_memory_channels, add_person

NOON = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)  # Wednesday 12:00 Asia/Shanghai
H, M = timedelta(hours=1), timedelta(minutes=1)
OPEN_ID = "ou_zs"  # Zhang San's Feishu open_id, whichever platform he is asked on
# Zhang San's bindings and policy per platform: on Telegram he prefers Telegram, his calendar is still Feishu's.
PLATFORMS = {
    "feishu": ([{"channel": "feishu", "external_user_id": OPEN_ID}], {}),
    "telegram": (
        [
            {"channel": "telegram", "external_user_id": "tg_zs", "chat_id": "tg_zs"},
            {"channel": "feishu", "external_user_id": OPEN_ID},
        ],
        {"preferred_channel": "telegram"},
    ),
}


@dataclass
class Target:
    """Where Zhang San reads what Deputy sends him."""

    channel: MemoryChannel
    user: str

    def texts(self) -> list[str]:
        return self.channel.texts_to(self.user)


def calendar_context(database_url: str, clock, fake: fs.FakeFeishu) -> AppContext:
    """The service's context with DEPUTY_FEISHU_CALENDAR on, the app's credentials and the fake's domain."""
    settings = make_settings(
        database_url,
        feishu_app_id=fs.APP_ID,
        feishu_app_secret=fs.APP_SECRET,
        feishu_domain=fake.domain,
        feishu_calendar=True,
    )
    return build_context(settings, clock=clock)


def add_people(ctx: AppContext, clock, fake: fs.FakeFeishu, platform: str) -> Target:
    """The principal on Feishu and Zhang San on `platform`, known to the fake; the clock at Wednesday noon."""
    clock.set(NOON)
    feishu, telegram = add_memory_channels(ctx)
    add_person(ctx, "p_boss", display_name="老板", role="principal",
               bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}])  # fmt: skip
    bindings, policy = PLATFORMS[platform]
    add_person(ctx, "p_zhangsan", display_name="张三", bindings=bindings, policy=policy)
    fake.add_user(OPEN_ID, "张三")
    return Target(feishu, OPEN_ID) if platform == "feishu" else Target(telegram, "tg_zs")
