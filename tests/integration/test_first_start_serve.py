"""`deputy serve` with nothing configured: its first lines say where the console is and what each channel does, and
the one-time link they print logs a browser in as admin, once (a real process on a free port, SQLite in a tmp dir)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.docs.readme_walkthrough import free_port

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/console/first-login\?login_code=\S+)")


def _lines_until_link(server: subprocess.Popen, *, timeout: float = 120) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            raise AssertionError(f"deputy serve stopped printing: {lines}")
        lines.append(line.rstrip("\n"))
        if LINK.search(line):
            return lines
    raise AssertionError(f"no one-time link within {timeout}s: {lines}")


def _ready(base: str) -> None:
    for _ in range(240):
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError("deputy serve did not become ready")


def test_a_first_start_prints_where_things_are_and_a_link_that_logs_in_once(tmp_path: Path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    env.update(DEPUTY_PORT=str(port), DEPUTY_DRY_RUN_CHANNELS="telegram", PYTHONUNBUFFERED="1")
    deputy = Path(sys.executable).with_name("deputy")
    server = subprocess.Popen([str(deputy), "serve"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    try:
        lines = _lines_until_link(server)
        base = f"http://127.0.0.1:{port}"
        assert lines[0] == f"Deputy is starting on {base}" and f"  console   {base}/console" in lines
        assert any(line.split()[:2] == ["telegram", "dry-run:"] for line in lines)
        assert any(line.split()[:3] == ["feishu", "not", "connected:"] for line in lines)
        saved = tmp_path / "var" / "first-login.txt"
        link = LINK.search(lines[-1]).group(1)
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600 and link in saved.read_text()
        _ready(base)
        with httpx.Client(base_url=base) as browser:
            assert browser.get("/console", follow_redirects=False).status_code == 303
            assert browser.get(link, follow_redirects=False).status_code == 303
            assert browser.get("/console", follow_redirects=False).status_code == 200
        with httpx.Client(base_url=base) as other:
            assert other.get(link, follow_redirects=False).status_code == 401
            assert link.split("=", 1)[1] not in other.get("/console/login").text
    finally:
        server.terminate()
        server.wait(timeout=30)
