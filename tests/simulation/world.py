"""The people of a simulated world, drawn from a seed: roles, managers, timezones, policies, bindings."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

TIMEZONES = ("Asia/Shanghai", "Asia/Shanghai", "Europe/London", "America/New_York", "UTC")
# Start instants next to the DST changes of 2026 (EU 03-29 and 10-25, US 03-08 and 11-01) and ordinary days.
STARTS = (
    datetime(2026, 3, 18, 2, 0, tzinfo=UTC),
    datetime(2026, 3, 28, 14, 0, tzinfo=UTC),
    datetime(2026, 3, 7, 20, 0, tzinfo=UTC),
    datetime(2026, 10, 24, 12, 0, tzinfo=UTC),
    datetime(2026, 10, 31, 23, 0, tzinfo=UTC),
    datetime(2026, 6, 1, 15, 30, tzinfo=UTC),
)
QUIET_HOURS = (
    [],
    [],
    [{"start": "22:00", "end": "08:00"}],
    [{"start": "23:00", "end": "07:30"}],
    [{"start": "12:00", "end": "13:30"}],
    [{"start": "21:00", "end": "09:00"}, {"start": "12:00", "end": "13:00"}],
)
ZH_NAMES = ("张三", "李四", "赵六", "钱七", "孙八", "周九")
EN_NAMES = ("Zhang San", "Li Si", "Zhao Liu", "Qian Qi", "Sun Ba", "Zhou Jiu")


@dataclass
class Binding:
    """One platform identity of a simulated person."""

    channel: str
    user: str
    reachable: bool = True


@dataclass
class PersonSpec:
    """A simulated person as it is created through the person layer."""

    person_id: str
    display_name: str
    role: str
    locale: str
    timezone: str
    manager_id: str | None
    aliases: list[str]
    bindings: list[Binding]
    policy: dict[str, Any] = field(default_factory=dict)

    def create_body(self) -> dict[str, Any]:
        """The `POST /v1/persons` body."""
        return {
            "person_id": self.person_id,
            "display_name": self.display_name,
            "aliases": self.aliases,
            "role": self.role,
            "manager_id": self.manager_id,
            "timezone": self.timezone,
            "locale": self.locale,
            "interaction_policy": self.policy,
            "channel_bindings": [
                {"channel": b.channel, "external_user_id": b.user, "chat_id": b.user, "reachable": b.reachable}
                for b in self.bindings
            ],
        }


def _policy(rng: random.Random, start: datetime, *, gentle: bool) -> dict[str, Any]:
    policy: dict[str, Any] = {
        "quiet_hours": rng.choice(QUIET_HOURS),
        "quiet_days": rng.choice(([], [], [], [6, 7], [7])),
        "max_proactive_contacts_per_day": rng.choice((1, 2, 3, 5, 5, 5) if gentle else (0, 1, 2, 3, 5, 5)),
        "allow_proactive_ping": gentle or rng.random() > 0.12,
    }
    if rng.random() < (0.05 if gentle else 0.15):
        policy["paused_until"] = (
            start + rng.choice((timedelta(hours=2), timedelta(hours=20), timedelta(days=3)))
        ).isoformat()
    # The principal's day: a brief at various local times (inside quiet hours too), sometimes none; a review.
    policy["daily_brief_at"] = rng.choice(("09:00", "07:30", "18:00", "23:30", None))
    if rng.random() < 0.3:
        policy["weekly_review_at"] = rng.choice(("MON 09:00", "FRI 17:30", "SUN 23:00"))
    return policy


def _bindings(rng: random.Random, slug: str) -> list[Binding]:
    channels = rng.choice((("telegram",), ("feishu",), ("telegram", "feishu"), ("feishu", "telegram")))
    bindings = [
        Binding(c, f"{'tg' if c == 'telegram' else 'ou'}_{slug}", reachable=rng.random() > 0.08) for c in channels
    ]
    if not any(b.reachable for b in bindings):
        bindings[0].reachable = True
    return bindings


def people(rng: random.Random, start: datetime) -> list[PersonSpec]:
    """Principals, managers (one reporting to the other) and members, with random policies."""
    cast: list[PersonSpec] = [
        PersonSpec(
            "p_boss",
            "老板",
            "principal",
            "zh",
            rng.choice(TIMEZONES),
            None,
            ["boss"],
            _bindings(rng, "boss"),
            _policy(rng, start, gentle=True),
        ),
    ]
    if rng.random() < 0.5:
        cast.append(
            PersonSpec(
                "p_chief",
                "Chief",
                "principal",
                "en",
                rng.choice(TIMEZONES),
                None,
                ["chief"],
                _bindings(rng, "chief"),
                _policy(rng, start, gentle=True),
            )
        )
    cast.append(
        PersonSpec(
            "p_mgr_b",
            "王总",
            "member",
            rng.choice(("zh", "en")),
            rng.choice(TIMEZONES),
            None,
            ["Wang Zong"],
            _bindings(rng, "mgr_b"),
            _policy(rng, start, gentle=False),
        )
    )
    cast.append(
        PersonSpec(
            "p_mgr_a",
            "王五",
            "member",
            rng.choice(("zh", "zh", "en")),
            rng.choice(TIMEZONES),
            "p_mgr_b" if rng.random() < 0.7 else None,
            ["Wang Wu"],
            _bindings(rng, "mgr_a"),
            _policy(rng, start, gentle=False),
        )
    )
    for index in range(rng.randint(2, 4)):
        manager = rng.choice(("p_mgr_a", "p_mgr_a", "p_mgr_b", None))
        locale = rng.choice(("zh", "zh", "en"))
        slug = f"m{index + 1}"
        cast.append(
            PersonSpec(
                f"p_{slug}",
                ZH_NAMES[index],
                "member",
                locale,
                rng.choice(TIMEZONES),
                manager,
                [EN_NAMES[index]],
                _bindings(rng, slug),
                _policy(rng, start, gentle=False),
            )
        )
    return cast
