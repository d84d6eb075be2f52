"""Two trees' `deputy serve` side by side, each on a scratch database of its own (for the `*_compare` benchmarks)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from bench.actions import scratch_database
from bench.webhook import TimedTelegram, _start
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
