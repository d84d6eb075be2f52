"""Settings come from DEPUTY_* variables (SPEC §9): durations, tokens, JSON tables, timezone."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import Settings, parse_duration
from app.wiring import build_context
from kernel import catalogue

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _no_deputy_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Settings see only what each test sets: no DEPUTY_* from the shell, no `.env` from the cwd."""
    for name in list(os.environ):
        if name.startswith("DEPUTY_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("90s", 90), ("15m", 900), ("4h", 14400), ("2d", 172800), (" 45s ", 45), ("0", 0)],
)
def test_durations_are_seconds_or_a_number_with_a_unit(text: str, seconds: int):
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    "text", ["", "h", "4w", "1.5h", "-5m", "4 hours", "4h30m", "P1D", "10ms", "99999999999d", 10**20]
)
def test_malformed_durations_are_rejected(text: str | int):
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


def test_duration_settings_parse_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DEPUTY_SCHEDULER_INTERVAL", "15m")
    monkeypatch.setenv("DEPUTY_CONCERN_CONTACT_WINDOW", "2d")
    settings = Settings(_env_file=None)
    assert settings.scheduler_interval == timedelta(minutes=15)
    assert settings.concern_contact_window == timedelta(days=2)


def test_bad_duration_setting_is_rejected(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DEPUTY_SCHEDULER_INTERVAL", "soon")
    with pytest.raises(ValidationError, match="scheduler_interval"):
        Settings(_env_file=None)


def test_token_lists_parse_as_name_token_pairs(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DEPUTY_ADMIN_TOKENS", "ops:s3cret-one, oncall:s3cret-two")
    monkeypatch.setenv("DEPUTY_VIEWER_TOKENS", "auditor:read-only")
    settings = Settings(_env_file=None)
    assert {n: s.get_secret_value() for n, s in settings.admin_tokens.items()} == {
        "ops": "s3cret-one",
        "oncall": "s3cret-two",
    }
    assert settings.token_roles() == [
        ("admin", "ops", "s3cret-one"),
        ("admin", "oncall", "s3cret-two"),
        ("viewer", "auditor", "read-only"),
    ]
    assert "s3cret-one" not in repr(settings)


def test_no_tokens_configured_means_no_tokens():
    assert Settings(_env_file=None).token_roles() == []


@pytest.mark.parametrize("tokens", ["just-a-token", "ops:", ":secret", "ops:a,broken", "ops:a,,:b"])
def test_malformed_token_list_is_rejected(monkeypatch: pytest.MonkeyPatch, tokens: str):
    monkeypatch.setenv("DEPUTY_ADMIN_TOKENS", tokens)
    with pytest.raises(ValidationError, match="name:token"):
        Settings(_env_file=None)


def test_json_follow_up_schedule_and_cooldowns_parse_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DEPUTY_FOLLOW_UP_SCHEDULE", '{"P0":["30m"],"P1":["2h","1d"],"P2":[3600],"P3":["90"]}')
    monkeypatch.setenv("DEPUTY_NOTIFICATION_COOLDOWNS", '{"task_overdue":"2h","weekly_report":"6d"}')
    settings = Settings(_env_file=None)
    assert settings.follow_up_schedule == {
        "P0": [timedelta(minutes=30)],
        "P1": [timedelta(hours=2), timedelta(days=1)],
        "P2": [timedelta(hours=1)],
        "P3": [timedelta(seconds=90)],
    }
    assert settings.notification_cooldowns == {
        "task_overdue": timedelta(hours=2),
        "weekly_report": timedelta(days=6),
        "default": timedelta(hours=1),
    }


def test_json_settings_default_to_the_spec_values():
    settings = Settings(_env_file=None)
    assert settings.follow_up_schedule["P1"] == [timedelta(hours=4), timedelta(hours=24), timedelta(hours=24)]
    assert settings.follow_up_schedule["P3"] == [timedelta(days=2), timedelta(days=3)]
    assert settings.notification_cooldowns == {
        "task_overdue": timedelta(hours=4),
        "daily_brief": timedelta(hours=20),
        "default": timedelta(hours=1),
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEPUTY_FOLLOW_UP_SCHEDULE", "not json"),
        ("DEPUTY_FOLLOW_UP_SCHEDULE", '{"P0":["1h"],"P1":["1h"],"P2":["1h"]}'),
        ("DEPUTY_FOLLOW_UP_SCHEDULE", '{"P0":[],"P1":["1h"],"P2":["1h"],"P3":["1h"]}'),
        ("DEPUTY_FOLLOW_UP_SCHEDULE", '{"P0":["soon"],"P1":["1h"],"P2":["1h"],"P3":["1h"]}'),
        ("DEPUTY_NOTIFICATION_COOLDOWNS", '{"task_overdue":"forever"}'),
        ("DEPUTY_NOTIFICATION_COOLDOWNS", '["4h"]'),
    ],
)
def test_malformed_json_settings_are_rejected(monkeypatch: pytest.MonkeyPatch, name: str, value: str):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings(_env_file=None)


def test_unknown_timezone_is_rejected(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DEPUTY_TIMEZONE", "Mars/Olympus_Mons")
    with pytest.raises(ValidationError, match="timezone"):
        Settings(_env_file=None)
    monkeypatch.setenv("DEPUTY_TIMEZONE", "America/New_York")
    assert Settings(_env_file=None).tz.key == "America/New_York"


def test_the_default_locale_is_chinese_or_english_and_the_composition_root_installs_it(
    monkeypatch: pytest.MonkeyPatch,
):
    assert Settings(_env_file=None).default_locale == "zh"
    monkeypatch.setenv("DEPUTY_DEFAULT_LOCALE", "fr")
    with pytest.raises(ValidationError, match="default_locale"):
        Settings(_env_file=None)
    monkeypatch.setenv("DEPUTY_DEFAULT_LOCALE", "en")
    monkeypatch.setattr(catalogue, "_default", catalogue._default)
    build_context(Settings(_env_file=None, database_url="sqlite://"))
    assert catalogue.default_locale() == "en"


def test_defaults_match_the_spec():
    settings = Settings(_env_file=None)
    assert (settings.timezone, settings.port, settings.redis_url) == ("Asia/Shanghai", 8000, None)
    assert settings.database_url.startswith("sqlite:///") and "/var/" in settings.database_url
    assert settings.scheduler_interval == timedelta(seconds=10)


def test_dotenv_file_in_the_working_directory_is_read(tmp_path: Path):
    (tmp_path / ".env").write_text("DEPUTY_PORT=9123\nDEPUTY_SCHEDULER_INTERVAL=2m\n")
    settings = Settings()
    assert (settings.port, settings.scheduler_interval) == (9123, timedelta(minutes=2))


def test_importing_app_main_has_no_side_effects(tmp_path: Path):
    # Settings that would fail validation and a `.env` that would too: import must not read either.
    (tmp_path / ".env").write_text("DEPUTY_PORT=not-a-port\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    env.update(
        DEPUTY_TIMEZONE="Not/AZone",
        DEPUTY_DATABASE_URL=f"sqlite:///{tmp_path}/var/should-not-exist.db",
        PYTHONPATH=str(ROOT),
    )
    result = subprocess.run(
        [sys.executable, "-c", "import app.main, app.cli; assert callable(app.main.create_app)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env"]


PLATFORM_ENV = {
    "DEPUTY_TELEGRAM_BOT_TOKEN": ("telegram_bot_token", "123:abc"),
    "DEPUTY_TELEGRAM_WEBHOOK_SECRET": ("telegram_webhook_secret", "s3cret-hook"),
    "DEPUTY_TELEGRAM_API_BASE": ("telegram_api_base", "http://127.0.0.1:9"),
    "DEPUTY_TELEGRAM_MODE": ("telegram_mode", "polling"),
    "DEPUTY_TELEGRAM_POLL_LEASE": ("telegram_poll_lease", timedelta(seconds=30)),
    "DEPUTY_TELEGRAM_BOT_USERNAME": ("telegram_bot_username", "deputy_bot"),
    "DEPUTY_FEISHU_APP_ID": ("feishu_app_id", "cli_a1"),
    "DEPUTY_FEISHU_APP_SECRET": ("feishu_app_secret", "app-secret"),
    "DEPUTY_FEISHU_VERIFICATION_TOKEN": ("feishu_verification_token", "verify-me"),
    "DEPUTY_FEISHU_ENCRYPT_KEY": ("feishu_encrypt_key", "encrypt-key"),
    "DEPUTY_FEISHU_DOMAIN": ("feishu_domain", "https://open.larksuite.com"),
    "DEPUTY_FEISHU_MODE": ("feishu_mode", "websocket"),
    "DEPUTY_FEISHU_BOT_OPEN_ID": ("feishu_bot_open_id", "ou_bot"),
}


@pytest.mark.parametrize("env", sorted(PLATFORM_ENV))
def test_every_platform_setting_keeps_its_deputy_name(monkeypatch: pytest.MonkeyPatch, env: str):
    field, expected = PLATFORM_ENV[env]
    monkeypatch.setenv(env, "30s" if field == "telegram_poll_lease" else str(expected))
    value = getattr(Settings(_env_file=None), field)
    assert (value.get_secret_value() if hasattr(value, "get_secret_value") else value) == expected


def test_platform_settings_come_from_their_plugins_and_read_dotenv(tmp_path: Path):
    from channels.feishu.settings import FeishuSettings
    from channels.telegram.settings import TelegramSettings

    assert issubclass(Settings, TelegramSettings) and issubclass(Settings, FeishuSettings)
    (tmp_path / ".env").write_text("DEPUTY_FEISHU_MODE=off\nDEPUTY_TELEGRAM_POLL_LEASE=1m\n")
    settings = Settings()
    assert (settings.feishu_mode, settings.telegram_poll_lease) == ("off", timedelta(minutes=1))
    assert Settings(_env_file=None, telegram_bot_token="1:x").telegram_bot_token.get_secret_value() == "1:x"


@pytest.mark.parametrize(("name", "value"), [("DEPUTY_TELEGRAM_POLL_LEASE", "0"), ("DEPUTY_FEISHU_MODE", "carrier")])
def test_platform_settings_are_validated_as_before(monkeypatch: pytest.MonkeyPatch, name: str, value: str):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match=name.removeprefix("DEPUTY_").lower()):
        Settings(_env_file=None)
