"""`deputy serve` runs a web process and a processor process; `--no-processor` and `deputy process` split them.

Real processes over a real SQLite file, Telegram in polling mode against the fake Bot API. The scheduler interval
is a minute, so a reply within seconds can only come from a wake-up (the web process's socket to the processor).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import migrate
from tests.conftest import make_settings
from tests.fakes.telegram_server import FakeTelegram

PRINCIPAL = 4242
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    server = FakeTelegram().start()
    yield server
    server.stop()


@pytest.fixture
def env(tmp_path: Path, fake: FakeTelegram) -> dict[str, str]:
    """A migrated SQLite file with one principal on Telegram, and the settings of the processes under test."""
    from app.wiring import build_context
    from person import service as persons
    from person.models import PersonCreate

    url = f"sqlite:///{tmp_path / 'deputy.db'}"
    migrate.upgrade(url)
    ctx = build_context(make_settings(url))
    with ctx.uow(actor="test") as uow:
        persons.create(
            uow,
            data=PersonCreate.model_validate(
                {
                    "person_id": "p_boss",
                    "display_name": "Boss",
                    "role": "principal",
                    "locale": "en",
                    "channel_bindings": [{"channel": "telegram", "external_user_id": str(PRINCIPAL)}],
                    "interaction_policy": {"quiet_hours": []},
                }
            ),
        )
    ctx.close()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    return {
        **clean,
        "DEPUTY_DATABASE_URL": url,
        "DEPUTY_PORT": str(_free_port()),
        "DEPUTY_HOST": "127.0.0.1",
        "DEPUTY_TELEGRAM_BOT_TOKEN": fake.token,
        "DEPUTY_TELEGRAM_API_BASE": fake.base_url,
        "DEPUTY_TELEGRAM_MODE": "polling",
        "DEPUTY_SCHEDULER_INTERVAL": "60s",
        "DEPUTY_LOG_LEVEL": "WARNING",
        "DEPUTY_CONSOLE_SECRET": "s" * 32,
    }


def _start(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "app.cli", *args], env=env, cwd=ROOT)


def _ready(env: dict[str, str], proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"serve exited with {proc.returncode}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{env['DEPUTY_PORT']}/readyz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("the web process never became ready")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that ended between the listing and the read (it started no child)
            continue
    return found


def _replies(fake: FakeTelegram) -> list[dict]:
    return [call for call in fake.calls("sendMessage") if str(call.get("chat_id")) == str(PRINCIPAL)]


def _wait_replies(fake: FakeTelegram, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while len(_replies(fake)) < count:
        assert time.monotonic() < deadline, f"{len(_replies(fake))} of {count} replies arrived"
        time.sleep(0.05)


def _gone(pid: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        status = Path(f"/proc/{pid}/stat")
        if status.exists() and status.read_text().split(")")[-1].split()[0] == "Z":  # exited, not yet reaped
            return True
        time.sleep(0.1)
    return False


def _stop(proc: subprocess.Popen) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(40)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def test_serve_starts_a_web_process_and_one_processor_and_stops_both(env, fake):
    serve = _start(env, "serve")
    try:
        _ready(env, serve)
        children = _children(serve.pid)
        assert len(children) == 1, children
        assert b"process" in Path(f"/proc/{children[0]}/cmdline").read_bytes().split(b"\0")
        fake.push_message(text="/help", user_id=PRINCIPAL)
        _wait_replies(fake, 1)  # recorded by the web process, answered by the processor, woken at once
    finally:
        code = _stop(serve)
    assert code == 0
    assert _gone(children[0]), "the processor outlived `deputy serve`"


def test_no_processor_only_records_and_deputy_process_answers_what_waits_and_what_comes(env, fake):
    web = _start(env, "serve", "--no-processor")
    processor = None
    try:
        _ready(env, web)
        assert _children(web.pid) == []
        fake.push_message(text="/help", user_id=PRINCIPAL)
        deadline = time.monotonic() + 30
        while fake.pending_update_ids() and time.monotonic() < deadline:  # the web process took the update
            time.sleep(0.05)
        assert not fake.pending_update_ids()
        assert _replies(fake) == []
        processor = _start(env, "process")
        _wait_replies(fake, 1)  # its start-up pass takes the recorded signal
        fake.push_message(text="/help", user_id=PRINCIPAL)
        _wait_replies(fake, 2)  # woken by the web process, a minute before its interval
    finally:
        codes = [_stop(p) for p in (web, processor) if p is not None]
    assert codes == [0, 0]


def test_the_processor_stops_when_the_web_process_that_started_it_dies(env, fake):
    serve = _start(env, "serve")
    try:
        _ready(env, serve)
        (child,) = _children(serve.pid)
        serve.kill()
        serve.wait(10)
        assert _gone(child), "an orphaned processor kept running"
    finally:
        if serve.poll() is None:
            serve.kill()


def test_the_supervisor_starts_a_processor_that_died_again_and_stops_the_running_one():
    from app.serving import Supervisor

    # Each start appends a line, then the first one dies and the second one waits to be stopped.
    starts = Path(os.environ.get("TMPDIR", "/tmp")) / f"deputy-supervisor-{os.getpid()}-{time.time_ns()}"
    script = (
        "import pathlib, sys, time; p = pathlib.Path(sys.argv[1]); n = len(p.read_text().splitlines()) "
        "if p.exists() else 0; p.open('a').write('start\\n'); sys.exit(3) if n == 0 else time.sleep(60)"
    )
    supervisor = Supervisor([sys.executable, "-c", script, str(starts)]).start()
    try:
        deadline = time.monotonic() + 30
        while not (starts.exists() and len(starts.read_text().splitlines()) == 2):
            assert time.monotonic() < deadline, "the processor that died was not started again"
            time.sleep(0.05)
        second = supervisor.child
        assert second.poll() is None
    finally:
        code = supervisor.stop(timeout=10)
        starts.unlink(missing_ok=True)
    assert code == -signal.SIGTERM and second.poll() is not None


def test_a_processor_that_ends_just_before_the_supervisor_stops_is_neither_restarted_nor_reported(caplog):
    """A Ctrl-C reaches the processor and the web process together: the processor may end first."""
    from app.serving import Supervisor

    # A restart delay no scheduling hiccup of a loaded test machine reaches before the stop below.
    supervisor = Supervisor([sys.executable, "-c", "pass"], restart_after=30.0).start()
    first = supervisor.child
    first.wait(30)
    time.sleep(0.2)  # the supervisor has seen it end
    supervisor.stop(timeout=10)
    assert supervisor.child is first
    assert not [r for r in caplog.records if r.name == "deputy.serving" and r.levelname == "ERROR"]
