"""The process-wide Prometheus registry: domain metrics live for the whole process, with or without an HTTP app."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

PROCESS_REGISTRY = CollectorRegistry()
