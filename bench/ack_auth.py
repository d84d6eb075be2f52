"""Benchmark: what authenticating one webhook costs in the ack, per platform and step (CPU µs per request).

Telegram: the secret compared in constant time, the body parsed for `update_id` (`TelegramWebhook.accept`).
Feishu: the body parsed, AES-256-CBC decryption, the verification token, X-Lark-Signature (sha256 over the body)
and the replay window (`FeishuWebhook.accept`, and `open_event` alone); a plain (unencrypted) event for contrast.
Usage: python bench/ack_auth.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import SecretStr
from rich.console import Console
from rich.table import Table

from channels.feishu.crypto import open_event
from channels.feishu.webhook import FeishuWebhook
from channels.plugin import WebhookRequest
from channels.telegram.plugin import TelegramWebhook
from tests.fakes.feishu_server import encrypt, message_event, signed_headers

KEY, TOKEN, SECRET = "encrypt-key-1", "vtoken", "wh-secret-0123456789"


def _per_call(fn, rounds: int) -> tuple[float, float]:
    """Median and p99 of `rounds` calls, in µs (one call timed at a time: the ack does one per request)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times) * 1e6, times[int(len(times) * 0.99)] * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    rounds = parser.parse_args().rounds
    now = datetime.now(UTC)
    text = "问一下张三：提测什么时候能给？" * 4
    event = message_event(event_id="ev_bench", text=text)
    event["header"]["token"] = TOKEN
    sealed = json.dumps({"encrypt": encrypt(KEY, json.dumps(event, ensure_ascii=False))}).encode()
    headers = signed_headers(sealed, KEY, timestamp=int(now.timestamp()))
    plain = json.dumps(event, ensure_ascii=False).encode()
    secret = SecretStr
    feishu = FeishuWebhook(
        SimpleNamespace(feishu_encrypt_key=secret(KEY), feishu_verification_token=secret(TOKEN), feishu_bot_open_id="")
    )
    feishu_plain = FeishuWebhook(
        SimpleNamespace(feishu_encrypt_key=None, feishu_verification_token=secret(TOKEN), feishu_bot_open_id="")
    )
    telegram = TelegramWebhook(
        SimpleNamespace(telegram_webhook_secret=secret(SECRET), telegram_bot_token=None, telegram_bot_username="d"),
        None,
    )
    update = {"update_id": 1, "message": {"message_id": 1, "date": 1, "text": text, "chat": {"id": 1}}}
    tg_body = json.dumps(update, ensure_ascii=False).encode()
    tg_headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    cases = [
        ("telegram", "accept: secret + update_id", lambda: telegram.accept(WebhookRequest(tg_headers, tg_body, now))),
        (
            "feishu",
            "accept: decrypt + token + signature + key",
            lambda: feishu.accept(WebhookRequest(headers, sealed, now)),
        ),
        (
            "feishu",
            "open_event only (decrypt, token, signature)",
            lambda: open_event(sealed, headers, verification_token=TOKEN, encrypt_key=KEY, now=now),
        ),
        ("feishu", "accept, plain event (token only)", lambda: feishu_plain.accept(WebhookRequest({}, plain, now))),
    ]
    table = Table("platform", "step", "median µs", "p99 µs", title=f"ack authentication, {rounds} rounds")
    for platform, step, fn in cases:
        fn()  # imports (pycryptodome) and first-use costs outside the timing
        median, p99 = _per_call(fn, rounds)
        table.add_row(platform, step, f"{median:.1f}", f"{p99:.1f}")
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
