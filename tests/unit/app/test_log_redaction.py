"""Secrets never reach a log line: configured values, bot tokens in URLs, bearer and credential fields."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest

from app.logging import MIN_SECRET_LENGTH, REDACTED, JsonFormatter, Redactor, install_redaction, secret_values
from app.settings import Settings

BOT_TOKEN = "7123456789:AAH-example_token-0123456789abcdefghi"
API_KEY = "sk-live-0123456789"


def test_configured_secret_values_are_redacted_wherever_they_appear():
    redactor = Redactor([API_KEY, "webhook-secret-xyz"])
    assert redactor.text(f"llm said 401 for key {API_KEY}; header=webhook-secret-xyz.") == (
        f"llm said 401 for key {REDACTED}; header={REDACTED}."
    )


def test_a_url_encoded_secret_is_redacted_too():
    line = "GET /v1/facts?q=a%20b%2Fc%2Bd%3De HTTP/1.1"
    assert Redactor(["a b/c+d=e"]).text(line) == f"GET /v1/facts?q={REDACTED} HTTP/1.1"


def test_a_bot_token_in_a_bot_api_url_is_redacted_without_being_configured():
    line = 'HTTP Request: POST https://api.telegram.org/bot123:ABC-def_1/sendMessage "HTTP/1.1 200 OK"'
    expected = f'HTTP Request: POST https://api.telegram.org/bot{REDACTED}/sendMessage "HTTP/1.1 200 OK"'
    assert Redactor().text(line) == expected
    file_url = f"https://api.telegram.org/file/bot{BOT_TOKEN}/photos/1.jpg"
    assert Redactor().text(file_url) == f"https://api.telegram.org/file/bot{REDACTED}/photos/1.jpg"


def test_a_bare_bot_token_is_redacted_without_being_configured():
    assert Redactor().text(f"token {BOT_TOKEN} was revoked") == f"token {REDACTED} was revoked"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Authorization: Bearer t-g1044ab1CDEF", f"Authorization: Bearer {REDACTED}"),
        (
            '{"code": 0, "tenant_access_token": "t-g1044ab1CDEF", "expire": 7200}',
            f'{{"code": 0, "tenant_access_token": "{REDACTED}", "expire": 7200}}',
        ),
        ("{'app_secret': 'Xyz123', 'app_id': 'cli_a1'}", f"{{'app_secret': '{REDACTED}', 'app_id': 'cli_a1'}}"),
        (
            "connected to wss://msg.feishu.cn/ws?device_id=7&access_key=abc123&ticket=tk-9",
            f"connected to wss://msg.feishu.cn/ws?device_id=7&access_key={REDACTED}&ticket={REDACTED}",
        ),
        ("encrypt_key=k3y verification_token: v3r", f"encrypt_key={REDACTED} verification_token: {REDACTED}"),
    ],
)
def test_bearer_credentials_and_credential_named_fields_are_redacted(line: str, expected: str):
    assert Redactor().text(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "telegram rejected the bot token: Unauthorized",
        "InvalidRequest code=invalid_token for chat 5001",
        'GET /v1/facts?person_id=p_zhangsan&limit=50 "HTTP/1.1" 200',
        "robot12:ok and 2026-03-18 10:00:00",
    ],
)
def test_lines_without_secrets_are_left_as_they_are(line: str):
    assert Redactor([API_KEY]).text(line) == line


def test_configured_values_shorter_than_the_minimum_are_not_blanked_everywhere():
    short = "x" * (MIN_SECRET_LENGTH - 1)
    assert Redactor([short]).text(f"{short} in a word") == f"{short} in a word"
    assert Redactor(["x" * MIN_SECRET_LENGTH]).text("x" * MIN_SECRET_LENGTH) == REDACTED


def test_every_secret_setting_is_collected_for_redaction():
    tokens = ("admin_tokens", "viewer_tokens")  # name:token lists, set below
    secret_fields = [
        n for n, f in Settings.model_fields.items() if "SecretStr" in str(f.annotation) and n not in tokens
    ]
    assert {
        "telegram_bot_token",
        "telegram_webhook_secret",
        "feishu_app_secret",
        "feishu_verification_token",
        "feishu_encrypt_key",
        "llm_api_key",
    } <= set(secret_fields)
    values = {name: f"{name}-value" for name in secret_fields}
    settings = Settings(
        _env_file=None,
        **values,
        admin_tokens="ops:admin-value,ci:ci-value",
        viewer_tokens="au:viewer-value",
        database_url="postgresql+psycopg://deputy_app:db-password@db/deputy",
        redis_url="redis://:redis-password@cache:6379/0",
    )
    assert set(secret_values(settings)) == {
        *values.values(),
        "admin-value",
        "ci-value",
        "viewer-value",
        "db-password",
        "redis-password",
    }
    assert secret_values(Settings(_env_file=None, database_url="sqlite:///./var/deputy.db")) == []


def _record(msg: str, *args: object, exc: BaseException | None = None, **extra: object) -> logging.LogRecord:
    exc_info = None
    if exc is not None:
        try:
            raise exc
        except BaseException:
            exc_info = sys.exc_info()
    record = logging.LogRecord("deputy.test", logging.ERROR, __file__, 1, msg, args, exc_info)
    record.__dict__.update(extra)
    return record


def test_the_json_formatter_redacts_message_traceback_and_extra_fields():
    url = f"https://api.telegram.org/bot{BOT_TOKEN}/getMe"
    record = _record(
        "getMe failed for %s",
        url,
        exc=RuntimeError(f"refused {url} with key {API_KEY}"),
        detail={"url": url, "attempts": [API_KEY]},
        authorization="Bearer abc",
        chat_id="5001",
    )
    line = JsonFormatter(Redactor([API_KEY])).format(record)
    out = json.loads(line)
    assert BOT_TOKEN not in line and API_KEY not in line and "abc" not in line
    assert out["msg"] == f"getMe failed for https://api.telegram.org/bot{REDACTED}/getMe"
    assert out["exc"].startswith("Traceback") and f"bot{REDACTED}/getMe with key {REDACTED}" in out["exc"]
    assert out["detail"] == {"url": f"https://api.telegram.org/bot{REDACTED}/getMe", "attempts": [REDACTED]}
    assert (out["authorization"], out["chat_id"]) == (REDACTED, "5001")
    assert (out["level"], out["logger"]) == ("error", "deputy.test")


def test_redaction_reaches_handlers_that_are_not_ours():
    """lark-oapi logs through its own stdout handler; the record factory redacts before any handler sees it."""
    stream = io.StringIO()
    foreign = logging.getLogger("test.foreign_library")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("[lib] %(levelname)s %(message)s"))
    foreign.addHandler(handler)
    foreign.propagate = False
    try:
        install_redaction([API_KEY])
        try:
            raise ValueError(f"key {API_KEY} rejected")
        except ValueError:
            foreign.exception("call to %s failed", f"https://api.telegram.org/bot{BOT_TOKEN}/getMe")
    finally:
        foreign.removeHandler(handler)
    text = stream.getvalue()
    assert API_KEY not in text and BOT_TOKEN not in text
    assert f"[lib] ERROR call to https://api.telegram.org/bot{REDACTED}/getMe failed" in text
    assert f"ValueError: key {REDACTED} rejected" in text


def test_a_malformed_logging_call_is_reported_by_the_handler_not_raised_in_the_caller(capsys):
    stream = io.StringIO()
    logger = logging.getLogger("test.malformed")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        install_redaction([API_KEY])
        logger.error("%d items", "not a number")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == ""
    assert "--- Logging error ---" in capsys.readouterr().err
