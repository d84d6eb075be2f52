"""The channel side of one action: try each route in order with buttons, media or an edit; defer when paced.

Runs between the reserving and the finalising transactions of `action.execution`, outside any transaction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from prometheus_client import Histogram

from action import ledger, sandbox
from action.models import ActionRequest, Deferred
from channels.base import Button, MediaRef, MessageEdit, OutboundMessage, SendReceipt
from channels.errors import ChannelError, InvalidRequest, Paced, Transient
from kernel.catalogue import Catalogue
from kernel.context import AppContext
from kernel.metrics import PROCESS_REGISTRY

log = logging.getLogger("deputy.action")
CHANNEL_SEND = Histogram(
    "deputy_channel_send_seconds",
    "One send through a channel: seconds, by channel and result (success, paced, or the error kind)",
    ["channel", "result"],
    registry=PROCESS_REGISTRY,
)
# The line that ends an edit cut to fit the platform (an edit cannot add a message): where the whole text is,
# the action's console page when DEPUTY_PUBLIC_URL says where the console is.
TEXTS = Catalogue(
    "action.delivery",
    {
        "cut_link": {
            "zh": "（未完，全文见控制台：{url}）",
            "en": "(Cut short: the whole text is in the console: {url})",
        },
        "cut": {"zh": "（未完，全文见 Deputy 控制台）", "en": "(Cut short: the whole text is in the Deputy console)"},
    },
)


# Asked, in a read of its own, after a send and before its urgent calls: False drops them (the caller's loop changed).
KeepUrgent = Callable[[Any], bool]


@dataclass(frozen=True)
class Reservation:
    """A pending action that passed every layer: where to try sending it, in order, and what was tried already."""

    action_id: str
    locale: str
    route: list[tuple[str, str, str | None]]
    attempts: tuple[dict[str, Any], ...] = ()
    kept: dict[str, Any] | None = None  # the row's politeness keys and loops (`rules.kept_detail`), as reserved
    born_in_sandbox: bool | None = None  # the sandbox fence's read, in the reservation's transaction (None: not read)


@dataclass(frozen=True)
class Sent:
    """What the channels said: a final detail, or a slot to wait for (`paced_for` seconds)."""

    detail: dict[str, Any]
    channel: str
    unreachable: list[str]
    paced_for: float | None = None


def send(
    ctx: AppContext, request: ActionRequest, reserved: Reservation, *, keep_urgent: KeepUrgent | None = None
) -> Sent:
    """Try each route in order; stop at the first success, or at the service's own pacing (defer, do not fail)."""
    attempts: list[dict[str, Any]] = list(reserved.attempts)
    unreachable: list[str] = []
    last_channel = reserved.route[0][0] if reserved.route else "internal"
    for index, (channel_name, external_user_id, chat_id) in enumerate(reserved.route):
        last_channel = channel_name
        channel = ctx.channels.get(channel_name)
        if channel is None:
            attempts.append(
                {
                    "channel": channel_name,
                    "error": "not_configured",
                    "message": f"channel {channel_name} is not configured",
                }
            )
            continue
        # Checked here, where every send is made, whatever asked for it (the chain as the reservation read it).
        if sandbox.refused(ctx, request, channel, born=reserved.born_in_sandbox):
            attempts.append({"channel": channel_name, **sandbox.REFUSAL})
            continue
        started = time.perf_counter()
        try:
            receipt = _deliver(channel, request, reserved, external_user_id, chat_id, cut_note(ctx, reserved))
        except Paced as exc:  # nothing reached the platform: send this same action at the slot, on this channel
            CHANNEL_SEND.labels(channel_name, "paced").observe(time.perf_counter() - started)
            detail = {"attempts": attempts, "route": [list(r) for r in reserved.route[index:]]}
            return Sent(detail, channel_name, unreachable, paced_for=max(exc.retry_after or 1.0, 0.05))
        except ChannelError as exc:
            CHANNEL_SEND.labels(channel_name, exc.kind).observe(time.perf_counter() - started)
            attempts.append({"channel": channel_name, **exc.to_attempt()})
            if exc.kind == "unreachable" and exc.permanent and request.destination is None:  # a group is not them
                unreachable.append(channel_name)
            if exc.possibly_delivered:  # it may have arrived: another channel could make it arrive twice
                break
            continue
        except Exception as exc:  # an adapter bug must not leave the action pending
            CHANNEL_SEND.labels(channel_name, "error").observe(time.perf_counter() - started)
            log.exception("channel %s raised outside the taxonomy", channel_name)
            attempts.append({"channel": channel_name, **Transient(f"adapter error: {type(exc).__name__}").to_attempt()})
            continue
        CHANNEL_SEND.labels(channel_name, "success").observe(time.perf_counter() - started)
        attempts.append(
            {"channel": channel_name, "result": "success", "message_id": receipt.message_id, **receipt.detail}
        )
        detail = {"message_id": receipt.message_id, "chat_id": chat_id or external_user_id, "attempts": attempts}
        if request.urgent and receipt.message_id and _still_urgent(ctx, keep_urgent):
            _urgent(detail, channel, receipt.message_id, external_user_id, request.urgent)
        if receipt.detail.get("buttons_message_id"):  # a split text or a media copy: the buttons sit on that one
            detail["buttons_message_id"] = receipt.detail["buttons_message_id"]
        return Sent(naming_chat(request, detail), channel_name, unreachable)
    return Sent(
        naming_chat(
            request, {"error": "all_channels_failed", "reason": "every channel attempt failed", "attempts": attempts}
        ),
        last_channel,
        unreachable,
    )


def cut_note(ctx: AppContext, reserved: Reservation) -> str:
    """What ends an edit the platform could not take whole, in the reader's language, linking the action's page."""
    public = ctx.settings.public_url
    if not public:
        return TEXTS.text("cut", reserved.locale)
    return TEXTS.text("cut_link", reserved.locale, url=f"{public.rstrip('/')}/console/actions/{reserved.action_id}")


def _urgent(detail: dict[str, Any], channel: Any, message_id: str, user_id: str, modes: list[str]) -> None:
    """After the send: the urgent calls join its attempts; their failure never undoes the message."""
    calls, detail["urgent"] = urge(channel, message_id, user_id, modes)
    detail["attempts"].extend(calls)


def _still_urgent(ctx: AppContext, keep_urgent: KeepUrgent | None) -> bool:
    if keep_urgent is None:
        return True
    with ctx.reader() as uow:
        return keep_urgent(uow)


def urge(channel: Any, message_id: str, user_id: str, modes: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Make a sent message urgent, mode by mode, stopping at the first refusal: every call as an attempt, and
    `result_detail.urgent` ({"result": "ok", "modes"} or {"result": "failed", "reason", "modes": those that went})."""
    calls: list[dict[str, Any]] = []
    done: list[str] = []
    for mode in modes:
        call = {"channel": channel.name, "call": f"urgent_{mode}", "message_id": message_id}
        try:
            channel.urge(message_id=message_id, user_id=user_id, mode=mode)
        except ChannelError as exc:
            calls.append({**call, **exc.to_attempt()})
            return calls, {"result": "failed", "reason": str(exc.code or exc.kind), "modes": done}
        except Exception as exc:  # an adapter bug must not turn a delivered message into a failure
            log.exception("channel %s raised outside the taxonomy while making a message urgent", channel.name)
            calls.append({**call, **Transient(f"adapter error: {type(exc).__name__}").to_attempt()})
            return calls, {"result": "failed", "reason": "adapter_error", "modes": done}
        calls.append({**call, "result": "success"})
        done.append(mode)
    return calls, {"result": "ok", "modes": done}


def _deliver(
    channel: Any,
    request: ActionRequest,
    reserved: Reservation,
    external_user_id: str,
    chat_id: str | None,
    note: str,
) -> SendReceipt:
    """One try on one channel: an edit of a message the bot sent, or a new message (with its buttons and media).

    An edit the platform cannot make (a plain-text Feishu message, a message too old to edit) becomes a new
    message with the same text: the person still sees the outcome.
    """
    buttons = tuple(Button(label=b.label, token=b.token, style=b.style, group=b.group) for b in request.buttons)
    target = request.destination
    if target is not None and target.message_id:
        try:
            return channel.edit(
                MessageEdit(
                    idempotency_key=reserved.action_id,
                    chat_id=target.chat_id,
                    message_id=target.message_id,
                    text=request.text,
                    buttons=buttons,
                    locale=reserved.locale,
                    cut_note=note,
                )
            )
        except InvalidRequest as exc:
            if not exc.permanent:
                raise
            log.info("edit refused on %s (%s): sending the outcome as a new message", channel.name, exc.code)
    media = None
    if request.media and request.media.get("channel") == channel.name:
        media = MediaRef(**{k: v for k, v in request.media.items() if k != "note"})
    return channel.send(
        OutboundMessage(
            idempotency_key=reserved.action_id,
            external_user_id=external_user_id,
            chat_id=chat_id,
            text=request.text if media or not request.media else _with_media_note(request),
            locale=reserved.locale,
            buttons=buttons,
            media=media,
        )
    )


def _with_media_note(request: ActionRequest) -> str:
    """Media from another platform cannot be passed on as itself (nor as a link that needs a token): say what it was."""
    return f"{request.text}\n{request.media.get('note', '')}".strip() if request.media else request.text


def defer(ctx: AppContext, *, action_id: str, sent: Sent, actor: str) -> Deferred:
    """Keep the reservation pending until the pacing slot; the request's owner sends it then."""
    with ctx.uow(actor=actor) as uow:
        until = uow.now + timedelta(seconds=sent.paced_for or 1.0)
        ledger.touch_pending(uow, action_id=action_id, detail={**sent.detail, "deferred_until": until.isoformat()})
        return Deferred(action_id, until)


def naming_chat(request: ActionRequest, detail: dict[str, Any]) -> dict[str, Any]:
    """A send to an explicit destination says which chat in its result_detail."""
    if request.destination is not None:
        detail["chat"] = {"channel": request.destination.channel, "chat_id": request.destination.chat_id}
    return detail
