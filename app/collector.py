"""The garbage collector's full passes kept short: what start-up and first uses load is frozen out of its sight.

A full collection walks every tracked object outside the permanent generation. `freeze()` moves what start-up
loaded (modules, settings, the catalogue) there. Some paths import on first use what start-up does not (the Bot
API's client with the first send, the console's templates with the first page): about a thousand modules in the
processor, which a full collection then walked every time — 30–80 ms, a pause in the middle of a signal's pass.
So a watcher in each process freezes again whenever modules were imported since the last freeze: a few times in
a process's life, each a collection the process would have run soon anyway.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable

log = logging.getLogger("deputy.collector")

CHECK_EVERY = 5.0  # seconds between looks at the module count
_watching: dict[int, Refreezer] = {}  # per process: a forked child starts its own
_lock = threading.Lock()


def freeze() -> None:
    """Collect, then move every object that survived into the permanent generation."""
    gc.collect()
    gc.freeze()


class Refreezer:
    """Freezes again when the module count grew since the last freeze (`modules` counts them)."""

    def __init__(self, modules: Callable[[], int] = lambda: len(sys.modules)) -> None:
        self._modules = modules
        self._seen = modules()

    def check(self) -> bool:
        """Freeze if modules were imported since the last look; True when it did."""
        count = self._modules()
        if count <= self._seen:
            self._seen = count  # modules can also be dropped (a reload, a test): grow from what is there now
            return False
        freeze()
        log.debug("froze again after %d new modules (%d objects frozen)", count - self._seen, gc.get_freeze_count())
        self._seen = self._modules()
        return True


def keep_frozen(every: float = CHECK_EVERY) -> Refreezer:
    """Freeze now, and from a daemon thread again after imports (one watcher per process however often called)."""
    freeze()
    with _lock:
        watcher = _watching.get(os.getpid())
        if watcher is None:
            watcher = _watching[os.getpid()] = Refreezer()
            threading.Thread(target=_watch, args=(watcher, every), name="deputy-collector", daemon=True).start()
    return watcher


def _watch(watcher: Refreezer, every: float) -> None:
    while True:  # a daemon thread: it ends with the process
        time.sleep(every)
        try:
            watcher.check()
        except Exception:  # the watcher must not die of one odd moment; collection still runs as usual
            log.exception("refreezing failed")
