"""The process-wide Prometheus registry: domain metrics live for the whole process, with or without an HTTP app."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from prometheus_client import CollectorRegistry

PROCESS_REGISTRY = CollectorRegistry()


@dataclass(frozen=True)
class Backlog:
    """Entries of a queue (inbox, outbox) waiting, and since when the oldest of them could have run."""

    pending: int
    oldest: datetime | None  # None when nothing waits

    def age(self, now: datetime) -> float:
        """Seconds the oldest entry has waited, 0 when nothing waits."""
        return max((now - self.oldest).total_seconds(), 0.0) if self.oldest else 0.0
