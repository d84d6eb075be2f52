"""No secret in any record: a platform's or proxy's error text is redacted before an action, a fact or the CLI
keeps it; `deputy leaks` finds records written before that and says what to rotate."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from action import service
from app.cli import cli
from channels.telegram import TelegramChannel
from fact import service as facts
from kernel.db import dumps
from tests.fakes.telegram_server import FakeTelegram, error
from tests.integration.action_helpers import add_person, notify

# Shaped like a real token (digits, colon, 35 characters), so only the patterns can know it is one.
REAL_LOOKING = "7412345678:AAHd8kQ2vN5xR0bT7yLmW3cZpE1sU9jFgKo"
CHAT = "5001"
runner = CliRunner()


@pytest.fixture
def fake():
    server = FakeTelegram(token=REAL_LOOKING).start()
    server.echo_url = True
    yield server
    server.stop()


@pytest.fixture
def telegram_only(ctx, fake):
    channel = TelegramChannel(REAL_LOOKING, api_base=fake.base_url, chat_interval=0.01, timeout=5.0)
    ctx.channels.register(channel)
    add_person(ctx, bindings=[{"channel": "telegram", "external_user_id": CHAT, "chat_id": CHAT}])
    yield channel
    channel.close()


def test_an_error_echoing_the_request_url_is_stored_without_the_bot_token(ctx, client, fake, telegram_only):
    fake.script("sendMessage", error(400, "Bad Request: message text is empty"))
    record = service.execute(ctx, request=notify())
    assert record.result == "failed"
    stored = dumps(record.result_detail).lower()  # python-telegram-bot rewrites the description's case
    assert "message text is empty" in stored and "/bot<redacted>/sendmessage" in stored  # the echo did arrive
    assert REAL_LOOKING.split(":")[1].lower() not in stored
    with ctx.reader() as uow:
        rows, _ = facts.list_(uow, filters=facts.FactFilter(fact_type="action_result"), limit=10)
    assert rows and all(REAL_LOOKING.split(":")[1] not in dumps(f.content) for f in rows)
    for path in ("/v1/actions", "/v1/facts"):
        answer = client.get(path)
        assert answer.status_code == 200 and "message text is empty" in answer.text.lower()
        assert REAL_LOOKING.split(":")[1] not in answer.text


def test_an_error_echoing_a_signed_link_keeps_the_link_but_not_its_signature(ctx, fake, telegram_only):
    link = "https://files.example/doc.pdf?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=9f8e7d6c5b4a&page=2"
    fake.script("sendMessage", error(400, f"Bad Request: wrong file identifier/HTTP URL specified: {link}"))
    stored = dumps(service.execute(ctx, request=notify()).result_detail).lower()
    assert "https://files.example/doc.pdf?x-amz-credential=<redacted>&x-amz-signature=<redacted>&page=2" in stored
    assert "akiaexample" not in stored and "9f8e7d6c5b4a" not in stored


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database_url: str) -> None:
    for name in list(os.environ):
        if name.startswith("DEPUTY_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEPUTY_DATABASE_URL", database_url)
    monkeypatch.setenv("DEPUTY_TELEGRAM_BOT_TOKEN", "999001:configured-token-value")


def _older_fact(ctx, text: str) -> str:
    """A fact as a version before redaction wrote it (facts cannot be changed afterwards)."""
    with ctx.uow(actor="test") as uow:
        fact, _ = facts.append(uow, fact_type="system", source="perception", content={"event": "x", "reason": text})
    return fact.fact_id


def test_deputy_leaks_names_the_records_holding_a_token_and_what_to_rotate(ctx, cli_env):
    clean = _older_fact(ctx, "nothing secret here")
    leaked = _older_fact(ctx, f"Not Found (https://api.telegram.org/bot{REAL_LOOKING}/sendMessage)")
    configured = _older_fact(ctx, "proxy said 999001:configured-token-value is wrong")
    result = runner.invoke(cli, ["leaks", "--json"], catch_exceptions=False)
    assert result.exit_code == 1
    findings = {f["id"]: f for f in map(json.loads, result.stdout.splitlines())}
    assert set(findings) == {leaked, configured} and clean not in findings
    assert findings[leaked]["kinds"] == ["telegram_bot_token"]
    assert any("@BotFather" in advice for advice in findings[leaked]["rotate"])
    assert findings[configured]["settings"] == ["DEPUTY_TELEGRAM_BOT_TOKEN"]
    assert "rotate DEPUTY_TELEGRAM_BOT_TOKEN" in findings[configured]["rotate"]
    assert REAL_LOOKING not in result.output and "configured-token-value" not in result.output
    assert "records cannot be changed" in result.stderr


def test_deputy_leaks_on_clean_records_says_so_and_exits_0(ctx, cli_env):
    _older_fact(ctx, "Bad Request: chat not found (https://api.telegram.org/bot<redacted>/sendMessage)")
    result = runner.invoke(cli, ["leaks"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "no record holds a token, secret or signed URL" in result.stdout
