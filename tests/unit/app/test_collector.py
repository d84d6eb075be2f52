"""What a path imports on first use is frozen too, so the collector's full passes stay short."""

from __future__ import annotations

import gc
import sys
import time
import types

import pytest

from app import collector


@pytest.fixture(autouse=True)
def _unfrozen():
    """Each test starts and ends with nothing frozen (the test process keeps collecting as usual)."""
    gc.unfreeze()
    yield
    gc.unfreeze()
    sys.modules.pop("deputy_test_lazy_module", None)


def _lazy_import() -> list[list[int]]:
    """A module imported after start-up, holding data the collector would walk in every full pass."""
    module = types.ModuleType("deputy_test_lazy_module")
    module.payload = [[n] for n in range(1000)]
    sys.modules[module.__name__] = module
    return module.payload


def _walked(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects())


def test_a_module_imported_after_the_freeze_is_frozen_at_the_next_look():
    watcher = collector.Refreezer()
    payload = _lazy_import()
    assert _walked(payload)
    assert watcher.check() is True
    assert not _walked(payload) and gc.get_freeze_count() > 0


def test_nothing_is_collected_or_frozen_again_while_no_module_was_imported():
    watcher = collector.Refreezer()
    assert watcher.check() is False
    assert gc.get_freeze_count() == 0


def test_each_wave_of_imports_freezes_once():
    counts = iter([10, 10, 12, 12, 12, 15, 15])
    watcher = collector.Refreezer(modules=lambda: next(counts))
    assert [watcher.check() for _ in range(4)] == [False, True, False, True]


def test_modules_dropped_since_the_last_look_do_not_hide_the_next_import():
    counts = iter([10, 7, 8])
    watcher = collector.Refreezer(modules=lambda: next(counts, 8))
    assert [watcher.check(), watcher.check()] == [False, True]


def test_the_watcher_of_a_process_freezes_what_it_imports_later():
    collector.keep_frozen(every=0.01)
    payload = _lazy_import()
    deadline = time.monotonic() + 2 * collector.CHECK_EVERY + 2  # this process may have started its watcher already
    while _walked(payload) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _walked(payload)
