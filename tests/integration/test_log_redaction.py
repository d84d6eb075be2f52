"""The service's JSON logs carry no secret: Bot API request lines, tracebacks, uvicorn's access log."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.logging import configure, secret_values
from app.settings import Settings
from channels.base import OutboundMessage
from channels.telegram import TelegramChannel
from tests.fakes.telegram_server import TOKEN, FakeTelegram

LLM_KEY = "sk-test-llm-key-0123456789"
ADMIN_TOKEN = "admin-secret-0123456789"
SETTINGS = Settings(_env_file=None, telegram_bot_token=TOKEN, llm_api_key=LLM_KEY, admin_tokens=f"ops:{ADMIN_TOKEN}")
SECRETS = (TOKEN, TOKEN.partition(":")[2], LLM_KEY, ADMIN_TOKEN)


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


def configure_into_buffer(monkeypatch: pytest.MonkeyPatch, secrets: tuple[str, ...] | list[str]) -> io.StringIO:
    """The project's configure() at INFO, its handler writing to a buffer (it takes sys.stderr when called)."""
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    configure("INFO", secrets=secrets)
    monkeypatch.undo()
    return buffer


def json_lines(text: str) -> list[dict]:
    """Every line of the log as JSON (a line that is not JSON fails the test)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def assert_no_secret(text: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"{leaked} leaked into:\n{text}"


@pytest.mark.parametrize("configured", [True, False], ids=["token-configured", "token-unknown-to-the-redactor"])
def test_bot_api_request_lines_are_logged_without_the_bot_token(fake: FakeTelegram, monkeypatch, configured: bool):
    stderr = configure_into_buffer(monkeypatch, secret_values(SETTINGS) if configured else ())
    channel = TelegramChannel(TOKEN, api_base=fake.base_url, chat_interval=0.01, timeout=5.0)
    try:
        receipt = channel.send(
            OutboundMessage(idempotency_key="a1", external_user_id="5001", chat_id="5001", text="明早10点开会")
        )
    finally:
        channel.close()
    assert receipt.message_id == "1" and len(fake.calls("sendMessage")) == 1
    output = stderr.getvalue()
    assert_no_secret(output)
    requests = [line["msg"] for line in json_lines(output) if line["logger"] == "httpx"]
    assert len(requests) == 1
    request_line = rf'HTTP Request: POST {re.escape(fake.base_url)}/bot<redacted>/sendMessage "HTTP/1\.[01] 200 OK"'
    assert re.fullmatch(request_line, requests[0]), requests


def test_an_exception_carrying_secrets_is_logged_with_them_redacted(fake: FakeTelegram, monkeypatch):
    stderr = configure_into_buffer(monkeypatch, secret_values(SETTINGS))
    url = f"{fake.base_url}/bot{TOKEN}/noSuchMethod"
    try:
        try:
            httpx.post(url).raise_for_status()  # httpx puts the whole URL into the exception text
        except httpx.HTTPStatusError as exc:
            raise RuntimeError(f"gave up; the classifier key {LLM_KEY} was not used") from exc
    except RuntimeError:
        logging.getLogger("deputy.test").exception("call to %s failed", url, extra={"detail": {"url": url}})
    output = stderr.getvalue()
    assert_no_secret(output)
    [failure] = [line for line in json_lines(output) if line["logger"] == "deputy.test"]
    redacted_url = f"{fake.base_url}/bot<redacted>/noSuchMethod"
    assert failure["msg"] == f"call to {redacted_url} failed" and failure["detail"] == {"url": redacted_url}
    assert f"HTTPStatusError: Client error '404 Not Found' for url '{redacted_url}'" in failure["exc"]
    assert "RuntimeError: gave up; the classifier key <redacted> was not used" in failure["exc"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(predicate, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _serving(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def test_deputy_serve_keeps_secrets_out_of_access_error_and_client_logs(fake: FakeTelegram, tmp_path: Path):
    """The real `deputy serve`: uvicorn's own loggers and Telegram polling go through the redacting JSON handler."""
    fake.push_message(text="hello")  # getUpdates answers at once, so the poller logs a request line
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")} | {
        "DEPUTY_DATABASE_URL": f"sqlite:///{tmp_path / 'deputy.db'}",
        "DEPUTY_PORT": str(port),
        "DEPUTY_TELEGRAM_BOT_TOKEN": TOKEN,
        "DEPUTY_TELEGRAM_API_BASE": fake.base_url,
        "DEPUTY_TELEGRAM_MODE": "polling",
        "DEPUTY_FEISHU_MODE": "off",
        "DEPUTY_LLM_API_KEY": LLM_KEY,
        "DEPUTY_ADMIN_TOKENS": f"ops:{ADMIN_TOKEN}",
        "DEPUTY_SCHEDULER_ENABLED": "false",
        "DEPUTY_LOG_LEVEL": "INFO",
        "FORCE_COLOR": "1",  # as a terminal would ask for colours: the logs stay plain JSON all the same
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(lambda: server.poll() is None and _serving(base), "deputy serve to answer /healthz")
        auth = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        listed = httpx.get(f"{base}/v1/facts", params={"note": ADMIN_TOKEN}, headers=auth)
        assert listed.status_code == 200, listed.text
        assert httpx.get(f"{base}/bot{TOKEN}/getMe").status_code == 404
        _wait_for(lambda: fake.calls("getUpdates"), "the poller's first getUpdates")
        time.sleep(0.5)  # the request line is logged when the answer arrives
    finally:
        server.terminate()
        stdout, stderr = server.communicate(timeout=30)
    assert_no_secret(stdout + stderr)
    assert "\x1b" not in stderr, "no ANSI colour codes in the logs"
    lines = json_lines(stderr)
    access = [line["msg"] for line in lines if line["logger"] == "uvicorn.access"]
    assert any('"GET /v1/facts?note=<redacted> HTTP/1.1" 200' in msg for msg in access), access
    assert any('"GET /bot<redacted>/getMe HTTP/1.1" 404' in msg for msg in access), access
    assert any(line["logger"] == "uvicorn.error" and "Uvicorn running" in line["msg"] for line in lines)
    polls = [line["msg"] for line in lines if line["logger"] == "httpx"]
    assert any(f"POST {fake.base_url}/bot<redacted>/getUpdates" in msg for msg in polls), polls


@pytest.mark.parametrize("command", [["migrate"], ["facts"], ["backup", "copy.db"]])
def test_every_command_logs_json_lines_without_colour_codes(tmp_path: Path, command: list[str]):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")} | {
        "DEPUTY_DATABASE_URL": f"sqlite:///{tmp_path / 'deputy.db'}",
        "DEPUTY_LOG_LEVEL": "INFO",
        "FORCE_COLOR": "1",
        "TTY_COMPATIBLE": "1",
    }
    if command[0] != "migrate":
        subprocess.run(
            [sys.executable, "-m", "app.cli", "migrate"], cwd=tmp_path, env=env, check=True, capture_output=True
        )
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    logs = [line for line in done.stderr.splitlines() if line.startswith("{")]
    assert "\x1b" not in "".join(logs)
    assert all(set(json.loads(line)) >= {"ts", "level", "logger", "msg"} for line in logs)
    if command == ["migrate"]:
        assert any(json.loads(line)["logger"] == "alembic.runtime.migration" for line in logs)
