"""How much of one kind of periodic work (timers, briefs, digests) a processor pass takes.

A pass takes items one at a time, each in its own transaction: at most `limit`, and none after the first once live
work is waiting (a webhook woke the processor meanwhile). The pass then ends and the processor goes round at once,
signals first, and takes the rest in the passes after. At least one item per pass, so the periodic work never
starves under a stream of messages. Pure: the processor supplies `interrupted`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


def _never() -> bool:
    return False


@dataclass
class Portion:
    """A pass's share of one periodic kind: `more(done)` before each item; `cut` once it said no with work left."""

    limit: int
    interrupted: Callable[[], bool] = field(default=_never)
    cut: bool = False

    def more(self, done: int) -> bool:
        """Whether to take another item, `done` taken so far; marks the portion cut when it stops them early."""
        if done >= self.limit or (done > 0 and self.interrupted()):
            self.cut = True
            return False
        return True
