"""`deputy serve` believes no X-Forwarded-For of its own: uvicorn's default would take it from any loopback peer,
so a guesser on the same host (or behind a local proxy nobody listed) could name a new address with every try.
A real process on a free port, SQLite in a tmp dir, no DEPUTY_TRUSTED_PROXIES."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.docs.readme_walkthrough import free_port

TOKEN = "serve-admin-0123456789"


def _ready(base: str, server: subprocess.Popen) -> None:
    for _ in range(240):
        assert server.poll() is None, "deputy serve exited"
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError("deputy serve did not become ready")


def test_deputy_serve_counts_a_loopback_guesser_whatever_address_it_forwards(tmp_path: Path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    env.update(
        DEPUTY_PORT=str(port),
        DEPUTY_DATABASE_URL=f"sqlite:///{tmp_path / 'deputy.db'}",
        DEPUTY_ADMIN_TOKENS=f"ops:{TOKEN}",
        DEPUTY_DRY_RUN_CHANNELS="telegram",
        DEPUTY_SCHEDULER_ENABLED="false",
    )
    deputy = Path(sys.executable).with_name("deputy")
    server = subprocess.Popen([str(deputy), "serve"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        _ready(base, server)
        with httpx.Client(base_url=base) as guesser:
            codes = [
                guesser.post(
                    "/console/login", data={"token": f"guess-{i}"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}
                ).status_code
                for i in range(6)
            ]
        assert codes == [401] * 5 + [429]
    finally:
        server.terminate()
        server.wait(timeout=30)
