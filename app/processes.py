"""The web process and the processor process: `deputy serve` runs both, `--no-processor` and `deputy process` one each.

The web process records what arrives and wakes the processor; the processor runs the pipeline's passes
(`app.pipeline`). Wake-ups between the two on one host go over a Unix datagram socket in Linux's abstract
namespace (no file to clean up, nothing to configure; the name is derived from the database URL), and across
hosts with PostgreSQL's NOTIFY (`kernel.wakeups`). A lost wake-up only delays work until the next interval: the
database is the truth.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import signal
import socket
import threading
from typing import Any

from app import collector
from app.pipeline import Processor, tick
from kernel.context import AppContext

log = logging.getLogger("deputy.processes")


def wake_address(database_url: str) -> str:
    """The processor's wake-up socket for this database (abstract namespace: the leading NUL byte)."""
    return "\0deputy-wake-" + hashlib.sha256(database_url.encode()).hexdigest()[:24]


class WakeSender:
    """Sends one byte to the processor's socket; never blocks and never fails the caller."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.setblocking(False)

    def wake(self, _: Any = None) -> None:
        """Tell the processor there is work (dropped when it is not listening or its queue is full)."""
        # OSError: no processor on this host (yet), or wake-ups pending already: it will look anyway.
        with contextlib.suppress(OSError):
            self._sock.sendto(b"w", self.address)

    def close(self) -> None:
        """Close the socket."""
        self._sock.close()


class RemoteProcessor:
    """What the web process holds when the processor runs in another process: wakes it, runs a pass on demand."""

    def __init__(self, ctx: AppContext, sender: WakeSender) -> None:
        self.ctx = ctx
        self.sender = sender

    def wake(self, _: Any = None) -> None:
        """Wake the processor process."""
        self.sender.wake()

    def run_now(self) -> dict[str, int]:
        """One pass here (the tick endpoint): passes are safe side by side, the work is claimed."""
        result = tick(self.ctx)
        self.sender.wake()  # whatever the pass queued behind a limit
        return result


class WakeListener:
    """The processor's end of the socket: each datagram wakes the processor (bursts coalesce there)."""

    def __init__(self, address: str, on_wake: Any) -> None:
        self.on_wake = on_wake
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self._sock.bind(address)
        except OSError:  # another processor on this host has it: this one works from the interval and NOTIFY
            log.info("processor wake-up socket is taken by another processor; waking on the interval")
            self._sock.close()
            self._sock = None
        self._thread = threading.Thread(target=self._run, name="deputy-processor-socket", daemon=True)

    def start(self) -> WakeListener:
        """Listen in a daemon thread."""
        if self._sock is not None:
            self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            try:
                self._sock.recv(64)
            except OSError:  # closed: the processor is stopping
                return
            self.on_wake()

    def close(self) -> None:
        """Stop listening."""
        if self._sock is not None:
            self._sock.close()


def run_processor(ctx: AppContext, *, parent_pid: int | None = None) -> None:
    """The processor process's life: start-up pass, then passes when woken or every interval, until SIGTERM/SIGINT
    (or the web process that started it is gone)."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    processor = Processor(ctx, threaded=True)
    listener = WakeListener(wake_address(ctx.settings.database_url), processor.wake).start()
    processor.run_now()  # interrupted actions finalised, signals recorded before a crash processed
    processor.start()
    collector.keep_frozen()
    log.info("processor started (pid %d)", os.getpid())
    while not stop.wait(1.0):
        if parent_pid is not None and os.getppid() != parent_pid:
            log.warning("the web process %d is gone: the processor stops", parent_pid)
            break
    listener.close()
    processor.stop()
    log.info("processor stopped")
