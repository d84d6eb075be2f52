"""Benchmark: how long a Feishu event waits while the long connection reconnects, under Feishu's own ClientConfig.

The real lark.ws.Client (through Deputy's LongConnection and its watchdog) against the fake Feishu long connection
(tests/fakes/feishu_ws.py). Each sample: the server ends the socket, an event is sent at once (the fake holds it,
as Feishu holds an event no connection takes), and the wait is the time until the client answered it.
Cases: a server-side close (1001) and a half-open socket (the server stops answering, TCP stays up), each under
the production config (ReconnectNonce 30 s, ReconnectInterval 120 s, PingInterval 120 s) and with no jitter (the
floor: discovery plus handshake).
Usage: python bench/feishu_reconnect.py [--samples 5] [--half-open-samples 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from app.settings import Settings
from channels.feishu.longconn import LongConnection
from kernel.clock import SystemClock
from tests.fakes import feishu_server as fs
from tests.fakes.feishu_ws import PRODUCTION_CONFIG
from tests.fakes.recording_inbound import RecordingInbound

NO_JITTER = {**PRODUCTION_CONFIG, "ReconnectNonce": 0}


def waits(config: dict[str, int], *, samples: int, half_open: bool) -> list[float]:
    """Seconds from losing the socket to the client's answer to an event sent at that moment, per sample."""
    fake = fs.FakeFeishu().start()
    ws = fake.start_long_connection(config)
    settings = Settings(
        _env_file=None,
        feishu_mode="websocket",
        feishu_app_id=fs.APP_ID,
        feishu_app_secret=fs.APP_SECRET,
        feishu_domain=fake.domain,
    )
    inbound = RecordingInbound()
    connection = LongConnection(SimpleNamespace(settings=settings, clock=SystemClock()), inbound=inbound)
    connection.start()
    found: list[float] = []
    try:
        for n in range(1, samples + 1):
            if not ws.wait_connections(n, timeout=200):
                raise SystemExit("the client did not connect")
            started = time.monotonic()
            ws.stall() if half_open else ws.drop()
            answer = ws.deliver(fs.message_event(event_id=f"ev_{n}", message_id=f"om_{n}"))
            answer.result(400)
            found.append(time.monotonic() - started)
    finally:
        connection.stop()
        fake.stop()
    return found


def main() -> None:
    """Print one row per case: samples, median, max."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--half-open-samples", type=int, default=1)
    args = parser.parse_args()
    table = Table(title="Feishu long connection: an event's wait across a reconnect (seconds)")
    for column in ("case", "ClientConfig", "samples", "median", "max"):
        table.add_column(column, justify="right" if column in ("samples", "median", "max") else "left")
    cases = [
        ("server closes (1001)", "production", PRODUCTION_CONFIG, args.samples, False),
        ("server closes (1001)", "no jitter", NO_JITTER, args.samples, False),
        ("half-open socket", "production", PRODUCTION_CONFIG, args.half_open_samples, True),
    ]
    for case, label, config, samples, half_open in cases:
        if samples <= 0:
            continue
        found = waits(config, samples=samples, half_open=half_open)
        table.add_row(case, label, str(len(found)), f"{statistics.median(found):.2f}", f"{max(found):.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
