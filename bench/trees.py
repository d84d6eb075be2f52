"""Two trees' `deputy serve` side by side, each on a scratch database of its own (for the `*_compare` benchmarks)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bench.actions import scratch_database
from bench.webhook import TimedTelegram, _load, _requests, _start
from bench.webhook_server import deputy_env, setup_directory


class Trees:
    """Serves each of `trees` (name → path) as `deputy serve` on `backend`, replies to `fake`; `ports[name]`."""

    def __init__(self, trees: dict[str, str], backend: str, fake: TimedTelegram) -> None:
        self.servers: dict[str, subprocess.Popen] = {}
        self.ports: dict[str, int] = {}
        self._cleanups: list[Callable[[], None]] = []
        try:
            for name, tree in trees.items():
                if (scratch := scratch_database(backend)) is None:
                    raise SystemExit(f"no {backend} database")
                url, cleanup = scratch
                self._cleanups.append(cleanup)
                setup_directory(url)
                self.servers[name], self.ports[name] = _start("deputy", deputy_env(url, fake), tree)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop every server and drop its database."""
        for server in self.servers.values():
            server.terminate()
            server.wait(30)
        for cleanup in self._cleanups:
            cleanup()


@contextmanager
def beside_bare(trees: dict[str, str], backend: str, *, warm: str = "help") -> Iterator[tuple[int, Trees]]:
    """The bare endpoint's port and `trees` served (`ports[name]`), started and warmed up (50 `warm` updates each),
    for benchmarks that measure an ack as a ratio to bare; the load average printed before and after."""
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    fake = TimedTelegram().start()
    bare, bare_port = _start("bare", {})
    served = None
    try:
        served = Trees(trees, backend, fake)
        time.sleep(2)  # start-up done
        for port in [bare_port, *served.ports.values()]:
            asyncio.run(_load(port, _requests(warm, 50), 4))
        yield bare_port, served
    finally:
        if served is not None:
            served.stop()
        bare.terminate()
        bare.wait(30)
        fake.stop()
        print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
