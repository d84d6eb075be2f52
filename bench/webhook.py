"""Benchmark: Deputy's Telegram webhook against a bare FastAPI endpoint served identically, interleaved.

Both run as `uvicorn.run(app)` in their own process (one worker; uvloop and httptools when installed), logging
at warning. A raw-socket keep-alive client sends unique Telegram updates at concurrency c and times each answer.
Cases: an unknown sender (recorded, nothing to reply), a principal's `/help` (a reply is sent to the fake
Telegram server in this process) and a principal's button press (answered with the read-only check's toast).
Also: how fast the server works a `/help` burst off, against the same code run
serially in one process; a 4 s burst of known senders' `/help` at c = 8 and the drain time (its end to the last
reply); the signal → reply latency at a steady rate spread over many chats; the resident memory of the web
process and of its processor process (when `deputy serve` starts one) idle and after the load.
Usage: python bench/webhook.py [--requests 1000] [--conc 1,8,32] [--reps 3] [--backends sqlite,postgres]
       python bench/webhook.py --serial-only [--requests 300] [--reps 2]  (only the serial rate and statements)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections import defaultdict, deque
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from bench.actions import scratch_database
from bench.statements import StatementCounter
from bench.webhook_server import PRINCIPALS, SECRET, deputy_env, setup_directory
from tests.fakes.telegram_server import FakeTelegram

_update_ids = count(1_000_000)


class TimedTelegram(FakeTelegram):
    """The fake Bot API, noting when each chat's reply arrived (this process's clock, like the client's)."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: dict[int, deque[float]] = defaultdict(deque)
        self.replies = 0

    def _send_message(self, params):
        reply = super()._send_message(params)
        with self._cond:
            self.arrivals[int(params["chat_id"])].append(time.perf_counter())
            self.replies += 1
        return reply


def update(sender: int, text: str) -> bytes:
    """One Telegram update as the raw HTTP request the Bot API would send."""
    n = next(_update_ids)
    return _request(
        {
            "update_id": n,
            "message": {
                "message_id": n,
                "date": int(time.time()),
                "chat": {"id": sender, "type": "private"},
                "from": {"id": sender, "is_bot": False, "first_name": f"u{sender}"},
                "text": text,
            },
        }
    )


def press(sender: int) -> bytes:
    """A button press (callback_query) from a known sender: the ack runs the read-only check for its toast."""
    n = next(_update_ids)
    message = {"message_id": 7, "date": int(time.time()), "chat": {"id": sender, "type": "private"}}
    query = {"id": f"cb{n}", "from": {"id": sender, "is_bot": False, "first_name": "u"}, "message": message}
    return _request({"update_id": n, "callback_query": {**query, "chat_instance": "c", "data": f"tok{n}"}})


def _request(update: dict) -> bytes:
    body = json.dumps(update).encode()
    head = (
        "POST /webhooks/telegram HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Telegram-Bot-Api-Secret-Token: {SECRET}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> int:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    await reader.readexactly(length)
    return status


async def _load(port: int, requests: list[bytes], conc: int) -> tuple[float, list[float], dict[int, int]]:
    """Send every request over `conc` keep-alive connections; wall time, latencies and status counts."""
    pending = deque(requests)
    latencies: list[float] = []
    statuses: dict[int, int] = defaultdict(int)

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while pending:
            request = pending.popleft()
            t0 = time.perf_counter()
            statuses[await _exchange(reader, writer, request)] += 1
            latencies.append(time.perf_counter() - t0)
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(conc)))
    return time.perf_counter() - start, latencies, statuses


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(kind: str, env: dict[str, str], tree: str | Path | None = None) -> tuple[subprocess.Popen, int]:
    """Serve `kind` from `tree` (this one by default) on a free port, once it accepts connections."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.webhook_server", kind, str(port)],
        env={**os.environ, **env},
        cwd=tree or Path(__file__).resolve().parents[1],
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{kind} server did not start")


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000


def _requests(case: str, n: int, first: int = 0) -> list[bytes]:
    """`n` requests of `case`; known senders are the principals from the `first`-th on, in turn."""
    if case == "unknown":
        return [update(9_000_000 + i, "hello?") for i in range(n)]
    if case == "press":
        return [press(PRINCIPALS[(first + i) % len(PRINCIPALS)]) for i in range(n)]
    return [update(PRINCIPALS[(first + i) % len(PRINCIPALS)], "/help") for i in range(n)]


def _wait_replies(fake: TimedTelegram, expected: int, timeout: float = 300) -> float:
    deadline = time.monotonic() + timeout
    while fake.replies < expected and time.monotonic() < deadline:
        time.sleep(0.01)
    if fake.replies < expected:
        raise RuntimeError(f"only {fake.replies} of {expected} replies arrived")
    return max(t for arrivals in fake.arrivals.values() for t in arrivals)


def _settled(port: int, timeout: float = 300) -> None:
    """Wait until the server's inbox backlog (`/metrics`) reads 0 twice: nothing queued skews what comes next."""
    deadline, zeros = time.monotonic() + timeout, 0
    while zeros < 2 and time.monotonic() < deadline:
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            text = b"".join(iter(lambda: conn.recv(65536), b"")).decode(errors="replace")
        backlog = next((line.split()[1] for line in text.splitlines() if line.startswith("deputy_inbox_backlog ")), "")
        zeros = zeros + 1 if backlog == "0.0" else 0
        time.sleep(3 if zeros else 1)  # the gauge is cached for 5 s


def _steady(port: int, fake: TimedTelegram, rate: float, seconds: float) -> list[float]:
    """Signal → reply latency at a steady rate, /help from each principal in turn.

    This process's collector is off during the round: its full collections (50–100 ms over the bench's own objects)
    would otherwise pause the client and the fake server and be counted as Deputy's latency.
    """
    fake.arrivals.clear()
    sent: dict[int, deque[float]] = defaultdict(deque)
    before = fake.replies
    total = int(rate * seconds)

    async def run() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        start = time.perf_counter()
        for i in range(total):
            await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))
            chat = PRINCIPALS[i % len(PRINCIPALS)]
            sent[chat].append(time.perf_counter())
            await _exchange(reader, writer, update(chat, "/help"))
        writer.close()

    gc.collect()
    gc.disable()
    try:
        asyncio.run(run())
        _wait_replies(fake, before + total)
    finally:
        gc.enable()
    return [
        arrived - started
        for chat, starts in sent.items()
        for started, arrived in zip(starts, fake.arrivals[chat], strict=True)
    ]


async def _for(port: int, seconds: float, conc: int) -> int:
    """Known senders' `/help` over `conc` connections for `seconds`, as fast as answered; the count sent."""
    sent = 0
    stop = time.perf_counter() + seconds

    async def connection(k: int) -> None:
        nonlocal sent
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        i = k
        while time.perf_counter() < stop:
            await _exchange(reader, writer, update(PRINCIPALS[i % len(PRINCIPALS)], "/help"))
            sent += 1
            i += conc
        writer.close()

    await asyncio.gather(*(connection(k) for k in range(conc)))
    return sent


def _drain(port: int, fake: TimedTelegram, seconds: float = 4.0, conc: int = 8) -> tuple[int, float]:
    """A burst for `seconds` at c = `conc`; (signals sent, seconds from the burst's end to the last reply)."""
    before = fake.replies
    sent = asyncio.run(_for(port, seconds, conc))
    end = time.perf_counter()
    last = _wait_replies(fake, before + sent, timeout=max(300.0, sent / 5))  # acks outrun processing: it may be long
    return sent, max(0.0, last - end)


def rss_mb(pid: int) -> float:
    """Resident memory of one process, in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def processes(pid: int) -> list[int]:
    """`pid` and its child processes (the processor `deputy serve` starts beside the web process)."""
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += [int(c) for c in (task / "children").read_text().split()]
    return [pid, *children]


def _memory(pid: int) -> str:
    return " + ".join(f"{rss_mb(p):.0f}" for p in processes(pid))


def scratch_context(url: str, fake: TimedTelegram):
    """A context over a scratch database with the bench's 500 people, sending to `fake` at no bot rate limit."""
    from app.settings import Settings
    from app.wiring import build_context
    from bench.webhook_server import lift_bot_rate

    setup_directory(url)
    ctx = build_context(Settings(_env_file=None, **{k[7:].lower(): v for k, v in deputy_env(url, fake).items()}))
    lift_bot_rate(ctx)
    return ctx


def append_help(ctx, n: int, first: int = 0) -> None:
    """`n` principals' `/help` updates (from the `first`-th principal on) accepted and appended as the ack does, one
    event per transaction."""
    from channels.plugin import WebhookRequest
    from channels.telegram.plugin import TelegramWebhook
    from perception import inbound_queue

    handler = TelegramWebhook(ctx.settings, sender=ctx.channels.get("telegram"))
    for raw in _requests("help", n, first):
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        request = WebhookRequest(headers=headers, body=raw.partition(b"\r\n\r\n")[2], now=ctx.clock.now())
        accepted = handler.accept(request)
        event = inbound_queue.Arrived("telegram", accepted.event_id or "", "event", accepted.body, ctx.clock.now())
        with inbound_queue.writing(ctx.db) as session:
            inbound_queue.append(ctx.db, session, events=[event])


def _serial_rate(backend: str, n: int, fake: TimedTelegram) -> tuple[float, str, str]:
    """The same `/help` processing run serially in this process: recorded first, then timed passes.

    Also the SQL statements per signal, of the recording (the ack's share) and of the processing up to the reply.
    """
    from app.pipeline import tick

    url, cleanup = scratch_database(backend)
    try:
        ctx = scratch_context(url, fake)
        statements = StatementCounter(ctx.db)
        append_help(ctx, n)
        recorded = statements.summary(n)
        statements.reset()
        before = fake.replies
        start = time.perf_counter()
        while fake.replies < before + n:
            tick(ctx)
        elapsed = time.perf_counter() - start
        processed = statements.summary(n)
        statements.close()
        ctx.close()
        return n / elapsed, recorded, processed
    finally:
        cleanup()


def _add(table: Table, *cells: str) -> None:
    """Add a row, and print it at once: a long run under shared load keeps what it measured if it is cut short."""
    table.add_row(*cells)
    print(f"{table.title}: " + " | ".join(cells), flush=True)


def _serial_only(backends: list[str], n: int, reps: int) -> None:
    """The serial processing rate and statements per /help, `reps` times per backend (to compare two commits)."""
    fake = TimedTelegram().start()
    try:
        for backend in backends:
            for _ in range(reps):
                rate, recorded, processed = _serial_rate(backend, n, fake)
                print(f"{backend}: serial {rate:.1f} /help per s | record {recorded} | process {processed}", flush=True)
    finally:
        fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="requests per run")
    parser.add_argument("--conc", default="1,8,32")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--modes", default="deputy", help="deputy (processor process), thread (processor thread)")
    parser.add_argument("--steady-seconds", type=float, default=10.0)
    parser.add_argument("--serial-only", action="store_true", help="only the serial /help rate and its statements")
    args = parser.parse_args()
    if args.serial_only:
        _serial_only(args.backends.split(","), args.requests, args.reps)
        return
    concs = [int(c) for c in args.conc.split(",")]
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    fake = TimedTelegram().start()
    acks = Table(
        "backend",
        "case",
        "c",
        "deputy req/s",
        "p50 ms",
        "p99 ms",
        "bare req/s",
        "bare p99 ms",
        "ratio",
        title="webhook ack: Deputy vs a bare FastAPI endpoint (medians of reps)",
    )
    work = Table(
        "backend",
        "burst (c=8) /help per s",
        "serial /help per s",
        "ratio",
        "steady 20/s p50 ms",
        "steady p99 ms",
        "4 s burst c=8: sent",
        "drain s",
        "RSS MB idle (web + processor)",
        "RSS MB after",
        title="processing /help",
    )
    statements = Table("backend", "record (ack)", "process to the reply", title="SQL statements per /help signal")
    bare, bare_port = _start("bare", {})
    try:
        for backend, mode in ((b, m) for b in args.backends.split(",") for m in args.modes.split(",")):
            if (scratch := scratch_database(backend)) is None:
                continue
            url, cleanup = scratch
            setup_directory(url)
            deputy, port = _start(mode, deputy_env(url, fake))
            label = backend if mode == "deputy" else f"{backend} ({mode})"
            burst_rates = []
            time.sleep(2)  # start-up done: the idle figure
            idle = _memory(deputy.pid)
            try:
                asyncio.run(_load(port, _requests("unknown", 50), 4))  # warm both up
                asyncio.run(_load(bare_port, _requests("unknown", 50), 4))
                for case in ("unknown", "help", "press"):
                    for conc in concs:
                        runs: dict[str, list] = {"deputy": [], "bare": []}
                        for _ in range(args.reps):
                            for kind, target in (("bare", bare_port), ("deputy", port)):
                                before = fake.replies
                                requests = _requests(case, args.requests)
                                t0 = time.perf_counter()
                                wall, latencies, statuses = asyncio.run(_load(target, requests, conc))
                                bad = {s: n for s, n in statuses.items() if s != 200}
                                if bad:
                                    raise RuntimeError(f"{kind} answered {bad}")
                                runs[kind].append((len(latencies) / wall, latencies))
                                if kind == "deputy" and case == "help":
                                    last = _wait_replies(fake, before + args.requests)
                                    if conc == 8:
                                        burst_rates.append(args.requests / (last - t0))
                        row = {
                            k: (statistics.median(r for r, _ in v), [x for _, lat in v for x in lat])
                            for k, v in runs.items()
                        }
                        _add(
                            acks,
                            label,
                            case,
                            str(conc),
                            f"{row['deputy'][0]:.0f}",
                            f"{_percentile(row['deputy'][1], 0.5):.1f}",
                            f"{_percentile(row['deputy'][1], 0.99):.1f}",
                            f"{row['bare'][0]:.0f}",
                            f"{_percentile(row['bare'][1], 0.99):.1f}",
                            f"{row['deputy'][0] / row['bare'][0]:.3f}",
                        )
                _settled(port)
                steady = _steady(port, fake, 20.0, args.steady_seconds)
                _settled(port)
                sent, drain = _drain(port, fake)
                after = _memory(deputy.pid)
            finally:
                deputy.terminate()
                deputy.wait(30)
                cleanup()
            serial, recorded, processed = _serial_rate(backend, args.requests, fake)
            _add(statements, label, recorded, processed)
            burst = statistics.median(burst_rates) if burst_rates else float("nan")
            _add(
                work,
                label,
                f"{burst:.0f}",
                f"{serial:.0f}",
                f"{burst / serial:.2f}",
                f"{_percentile(steady, 0.5):.1f}",
                f"{_percentile(steady, 0.99):.1f}",
                str(sent),
                f"{drain:.2f}",
                idle,
                after,
            )
    finally:
        bare.terminate()
        bare.wait(30)
        fake.stop()
    console = Console(width=200)
    console.print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    console.print(acks)
    console.print(statements)
    console.print(work)


if __name__ == "__main__":
    main()
