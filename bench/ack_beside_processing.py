"""Benchmark: the known senders' ack at c = 8 with the processor working beside it, and with it stopped.

`deputy serve` on a scratch database (its processor process beside the web process, as deployed by default) and
the bare FastAPI endpoint. Each round sends `--requests` principals' `/help` at c = 8 to the bare endpoint and then
to Deputy, three ways in turn: with the processor running (it works the replies off on the same cores while the
acks are measured, as in `bench/webhook.py`), with the processor process stopped by SIGSTOP for the measurement
(continued after, its backlog worked off before the next round), and with unknown senders (recorded by the
processor, nothing to reply).
A ratio is Deputy's rate over the bare rate just before it. What the first falls short of the other two is the
share of the machine that processing takes, not the ack's own cost.
Usage: python bench/ack_beside_processing.py [--backend postgres|sqlite] [--requests 400] [--reps 6]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.trees import beside_bare
from bench.webhook import _load, _requests, _settled

MODES = ("processing", "processor stopped", "unknown senders")


def _processor_pid() -> int:
    found = subprocess.run(["pgrep", "-f", "bench.webhook_server processor"], capture_output=True, text=True)
    return int(found.stdout.split()[0])


def _round(bare_port: int, port: int, mode: str, n: int, processor: int) -> float:
    case = "unknown" if mode == "unknown senders" else "help"
    bare_wall, _, _ = asyncio.run(_load(bare_port, _requests(case, n), 8))
    if mode == "processor stopped":
        os.kill(processor, signal.SIGSTOP)
    try:
        wall, _, statuses = asyncio.run(_load(port, _requests(case, n), 8))
    finally:
        if mode == "processor stopped":
            os.kill(processor, signal.SIGCONT)
    if set(statuses) != {200}:
        raise RuntimeError(f"Deputy answered {dict(statuses)}")
    return bare_wall / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="postgres")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--reps", type=int, default=6)
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {mode: [] for mode in MODES}
    with beside_bare({"this": str(Path(__file__).resolve().parents[1])}, args.backend) as (bare_port, served):
        port, processor = served.ports["this"], _processor_pid()
        for rep in range(args.reps):
            for mode in MODES if rep % 2 == 0 else tuple(reversed(MODES)):
                _settled(port)  # the last round's backlog worked off
                ratios[mode].append(_round(bare_port, port, mode, args.requests, processor))
    for mode, values in ratios.items():
        rounds = " ".join(f"{r:.3f}" for r in values)
        print(f"{args.backend}, {mode}: ack ÷ bare at c = 8, median {statistics.median(values):.3f} (rounds {rounds})")


if __name__ == "__main__":
    main()
