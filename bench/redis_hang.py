"""Benchmark: how long a webhook waits for its answer with Redis healthy, absent, hung, or hung without the guard.

A real server (uvicorn on 127.0.0.1, the app with its processor thread) takes Telegram webhook posts one after
another over HTTP; each answer's latency is timed on the client. "hung" points DEPUTY_REDIS_URL at a socket
that accepts connections and never answers (tests/fakes/silent_server.py); "hung, unguarded" wires the client
as before the breaker (2 s socket timeouts, redis-py's default retries), for a few requests only.
Usage: python bench/redis_hang.py [--requests 300] [--unguarded 4] [--backend sqlite|postgres]
Healthy Redis comes from DEPUTY_BENCH_REDIS_URL or DEPUTY_TEST_REDIS_URL (else redis://127.0.0.1:6379/0).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from rich.console import Console
from rich.table import Table

from bench.actions import scratch_database

SECRET = "bench-secret-0123456789"


@contextlib.contextmanager
def serving(database_url: str, redis_url: str | None, *, unguarded: bool = False) -> Iterator[tuple[str, Any]]:
    """The app on a free loopback port; yields its base URL and context."""
    import uvicorn

    from app.main import create_app
    from app.settings import Settings
    from app.wiring import build_context, default_channels

    settings = Settings(
        _env_file=None,
        database_url=database_url,
        redis_url=redis_url,
        telegram_bot_token="123456:BENCH",
        telegram_webhook_secret=SECRET,
        telegram_bot_username="deputy_bot",
        dry_run_channels="telegram,feishu",
        log_level="WARNING",
    )
    ctx = build_context(settings)
    if unguarded and redis_url:  # the wiring before the breaker
        import redis

        ctx.redis.close()
        ctx.redis = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        ctx.channels = default_channels(settings, redis=ctx.redis)
    server = uvicorn.Server(uvicorn.Config(create_app(ctx=ctx), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", ctx
    finally:
        server.should_exit = True
        thread.join(30)
        ctx.close()


def webhook_acks(base: str, requests: int, first_id: int) -> list[float]:
    """Seconds from sending each webhook to its answer, one after another."""
    latencies = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for n in range(requests):
            uid = first_id + n
            body = {
                "update_id": uid,
                "message": {
                    "message_id": uid,
                    "date": 1773799200,
                    "text": f"hello {n}",
                    "from": {"id": 9000 + n % 50, "is_bot": False, "first_name": "Bench"},
                    "chat": {"id": 9000 + n % 50, "type": "private"},
                },
            }
            start = time.perf_counter()
            answer = client.post("/webhooks/telegram", json=body, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
            latencies.append(time.perf_counter() - start)
            if answer.status_code != 200:
                raise SystemExit(f"webhook answered {answer.status_code}: {answer.text}")
    return latencies


def scenario(database_url: str, redis_url: str | None, requests: int, first_id: int, **kw: Any) -> dict[str, Any]:
    """Warm up, then time `requests` webhooks; with the readiness answer and what the breaker did."""
    with serving(database_url, redis_url, **kw) as (base, ctx):
        webhook_acks(base, 1 if kw.get("unguarded") else 10, first_id)  # warm-up (when hung: the breaker opens)
        latencies = sorted(webhook_acks(base, requests, first_id + 10_000))
        ready = httpx.get(f"{base}/readyz", timeout=10).status_code
        breaker = getattr(ctx.redis, "breaker", None)
    return {
        "requests": len(latencies),
        "median_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000,
        "max_ms": latencies[-1] * 1000,
        "readyz": ready,
        "breaker": f"{breaker.state} attempted={breaker.attempted} skipped={breaker.skipped}" if breaker else "-",
    }


def healthy_redis() -> str | None:
    """A reachable Redis URL, or None."""
    import redis

    url = (
        os.environ.get("DEPUTY_BENCH_REDIS_URL")
        or os.environ.get("DEPUTY_TEST_REDIS_URL")
        or "redis://127.0.0.1:6379/0"
    )
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError:
        Console(stderr=True).print(f"[yellow]healthy Redis skipped: {url} does not answer[/yellow]")
        return None
    return url


def main() -> None:
    from tests.fakes.silent_server import SilentServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="timed webhooks per scenario")
    parser.add_argument("--unguarded", type=int, default=4, help="timed webhooks with the old client (0: skip)")
    parser.add_argument("--backend", default="sqlite", choices=["sqlite", "postgres"])
    args = parser.parse_args()
    table = Table("redis", "requests", "median ms", "p99 ms", "max ms", "/readyz", "breaker", title="webhook ack")
    if (scratch := scratch_database(args.backend)) is None:
        return
    url, cleanup = scratch
    try:
        from app import migrate

        migrate.upgrade(url)
        with SilentServer() as silent:
            runs = [("none", None, args.requests, {}), ("healthy", healthy_redis(), args.requests, {})]
            runs += [("hung (accepts, never answers)", silent.url(), args.requests, {})]
            if args.unguarded:
                runs += [("hung, unguarded client (before)", silent.url(), args.unguarded, {"unguarded": True})]
            for index, (label, redis_url, requests, kw) in enumerate(runs):
                if label == "healthy" and redis_url is None:
                    continue
                r = scenario(url, redis_url, requests, 100_000 * (index + 1), **kw)
                table.add_row(
                    label,
                    str(r["requests"]),
                    f"{r['median_ms']:.1f}",
                    f"{r['p99_ms']:.1f}",
                    f"{r['max_ms']:.1f}",
                    str(r["readyz"]),
                    r["breaker"],
                )
    finally:
        cleanup()
    Console(width=150).print(table)


if __name__ == "__main__":
    main()
