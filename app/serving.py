"""`deputy serve`: migrations in a short-lived child, the processor process supervised beside the web process."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from typing import Any

log = logging.getLogger("deputy.serving")
RESTART_AFTER = 1.0  # seconds before a processor that died is started again
STOP_TIMEOUT = 20.0  # seconds a stopping processor gets to finish its pass before SIGKILL


def migrate_in_child(url: str) -> None:
    """Apply migrations in a child process, so alembic and its modules never occupy the web process's memory."""
    code = "import os; from app import migrate; migrate.upgrade(os.environ.pop('_DEPUTY_MIGRATE_URL'))"
    # The URL travels in the environment, not argv: `ps` shows argv to every user of the host.
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "_DEPUTY_MIGRATE_URL": url}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"error: migrations failed (exit {done.returncode})")


class Supervisor:
    """Runs `deputy process` beside this web process and starts it again if it dies; stops it with the web."""

    def __init__(self, command: list[str] | None = None, *, restart_after: float = RESTART_AFTER) -> None:
        self.command = command or [sys.executable, "-m", "app.cli", "process", "--parent-pid", str(os.getpid())]
        self.child: subprocess.Popen | None = None
        self.restart_after = restart_after
        self._stopping = threading.Event()
        self._restarting = threading.Lock()  # a stop and a restart never cross: no child is started after a stop
        self._thread = threading.Thread(target=self._watch, name="deputy-processor-supervisor", daemon=True)

    def start(self) -> Supervisor:
        """Start the processor and watch it."""
        self.child = subprocess.Popen(self.command, env=os.environ.copy())
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stopping.is_set():
            code = self.child.wait()
            # A Ctrl-C reaches the whole process group: the processor may end before this process starts stopping,
            # so the restart (and its error) waits RESTART_AFTER for a stop to follow.
            if self._stopping.wait(self.restart_after):
                return
            with self._restarting:
                if self._stopping.is_set():
                    return
                log.error("processor process %d exited with %s; started it again", self.child.pid, code)
                self.child = subprocess.Popen(self.command, env=os.environ.copy())

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """SIGTERM, wait for the pass in progress (up to `timeout`), then SIGKILL; the processor's exit code."""
        with self._restarting:
            self._stopping.set()
            child = self.child
        if child is None:
            return None
        if child.poll() is None:
            child.terminate()
            try:
                return child.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("processor %d did not stop within %ss: killed", child.pid, timeout)
                child.kill()
        return child.wait()


def _exit_cleanly(*_: Any) -> None:
    raise SystemExit(0)


def serve_http(current: Any, *, host: str | None, port: int | None, processor: bool, **uvicorn: Any) -> None:
    """Serve the app with uvicorn until SIGTERM/SIGINT; `processor`: the pipeline runs in this process."""
    import uvicorn as server

    from app import first_start
    from app.main import create_app

    app = create_app(current, run_migrations=False, processor=processor)
    bind_host, bind_port = host or current.host, port or current.port
    for line in first_start.banner(app.state.ctx, host=bind_host, port=bind_port):
        print(line, flush=True)
    # uvicorn shuts down on SIGTERM, then raises the signal again under the handler it found: make that one a
    # clean exit, so the caller's `finally` stops the processor and the exit code is 0.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    # log_config=None: uvicorn adds no handlers (and no colours), so its access and error logs reach the JSON handler.
    # proxy_headers=False: uvicorn would otherwise believe X-Forwarded-For from any loopback peer (its default
    # forwarded_allow_ips); the console reads it itself, from DEPUTY_TRUSTED_PROXIES only (app/console/clients.py).
    # ws="none": Deputy has no WebSocket route, so uvicorn need not load a WebSocket implementation (memory).
    server.run(app, host=bind_host, port=bind_port, log_config=None, proxy_headers=False, ws="none", **uvicorn)
