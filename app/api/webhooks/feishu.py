"""`POST /webhooks/feishu`: authenticate, answer url_verification, record messages durably, then wake the core."""

from __future__ import annotations

import json

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from app.api.errors import error_response
from kernel.screening import screen_json
from channels.feishu.crypto import Rejected, decrypt, open_event
from channels.feishu.events import ingest

router = APIRouter(tags=["webhooks"])


def _secret(value: object) -> str | None:
    return value.get_secret_value() if value is not None else None  # type: ignore[attr-defined]


def _screen_decrypted(body: bytes, encrypt_key: str | None) -> None:
    """Screen an encrypted event's plaintext like a body (depth, NUL) before it is parsed: the guard saw ciphertext."""
    if not encrypt_key:
        return
    try:
        plain = decrypt(encrypt_key, json.loads(body)["encrypt"])  # the outer body already passed the guard
    except (ValueError, TypeError, KeyError):
        return  # open_event refuses it with the precise reason
    screen_json(plain.encode())


@router.post("/webhooks/feishu")
async def feishu_webhook(request: Request, background: BackgroundTasks) -> JSONResponse:
    """One Feishu event: 401 unless authentic; 200 once recorded (Feishu retries anything else, and waits only 3 s)."""
    ctx = request.app.state.ctx
    settings = ctx.settings
    body = await request.body()
    _screen_decrypted(body, _secret(settings.feishu_encrypt_key))
    try:
        opened = open_event(
            body, request.headers, verification_token=_secret(settings.feishu_verification_token),
            encrypt_key=_secret(settings.feishu_encrypt_key), now=ctx.clock.now(),
        )
    except Rejected as exc:
        return error_response(400 if exc.code == "malformed_json" else 401, exc.code, exc.message)
    if opened.challenge is not None:
        return JSONResponse({"challenge": opened.challenge})
    # The fact is durable before we answer; the core runs after the answer is sent.
    if await run_in_threadpool(ingest, ctx, opened.payload):
        background.add_task(ctx.signal_recorded)
    return JSONResponse({"msg": "success"})
