"""The far side of the simulated channels: what each person really received, and the faults of the network.

`SimChannel` is a real `channels.base.Channel` the action layer sends through. It parks at a checkpoint
before and after the delivery (so other threads, and crashes, can come in between), may fail the way a
platform fails (5xx before delivery, a timeout after delivery, 429, a user who blocked the bot), and
paces Telegram sends with the project's own pacer. `Platform.deliveries` is the ground truth the
invariants read: a message is delivered when it is in that list, whatever the database says.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from channels.base import Channel, ChannelHealth, MessageEdit, OutboundMessage, SendReceipt
from channels.errors import RateLimited, Transient, Unreachable
from channels.telegram import TelegramChannel
from kernel.clock import FrozenClock
from tests.fakes.telegram_server import FORBIDDEN_BLOCKED, SERVER_ERROR, FakeTelegram, too_many_requests
from tests.simulation.scheduler import Scheduler


@dataclass(frozen=True)
class Delivery:
    """One message a person received."""

    at: datetime
    channel: str
    user: str
    text: str
    action_id: str
    message_id: str
    buttons: tuple[tuple[str, str], ...] = ()  # (label, token) under the message


@dataclass
class Faults:
    """How often each failure happens per send (drawn from the current step's generator)."""

    down: float = 0.0  # 5xx / connection refused: nothing delivered
    timeout_after_delivery: float = 0.0  # delivered, but the answer is lost: the sender sees a timeout
    rate_limited: float = 0.0  # the platform's own 429
    slow: float = 0.0  # the send takes long enough for the clock to move
    blocked: set[tuple[str, str]] = field(default_factory=set)  # (channel, user) that blocked the bot


class Platform:
    """Every channel's far end: deliveries, message ids, faults."""

    def __init__(self, clock: FrozenClock, faults: Faults, log: Any = None) -> None:
        self.clock = clock
        self.faults = faults
        self.log = log or (lambda _: None)
        self.rng = random.Random(0)
        self.deliveries: list[Delivery] = []
        # Feishu reads and urgent calls, in the order they happened: (order, platform user, message id).
        self.reads: list[tuple[int, str, str]] = []
        self.urgents: list[tuple[int, str, str]] = []
        self._order = itertools.count(1)
        self._ids = itertools.count(1)

    def deliver(self, channel: str, message: OutboundMessage, message_id: str | None = None) -> Delivery:
        """Record a delivery (with the platform's message id, or a new one)."""
        delivery = Delivery(
            at=self.clock.now(),
            channel=channel,
            user=message.external_user_id,
            text=message.text,
            action_id=message.idempotency_key,
            message_id=message_id or f"{channel}_m{next(self._ids)}",
            buttons=tuple((b.label, b.token) for b in message.buttons),
        )
        self.deliveries.append(delivery)
        self.log(f"    → {channel}:{delivery.user} {delivery.action_id} {message.text[:40]!r}")
        return delivery

    def seen_edit(self, channel: str, edit: MessageEdit) -> None:
        """An edit is something its reader sees, like a delivery: the invariants read it with the deliveries."""
        recipient = next((d.user for d in self.deliveries if d.message_id == edit.message_id), edit.chat_id)
        self.deliveries.append(
            Delivery(self.clock.now(), channel, recipient, edit.text, edit.idempotency_key, edit.message_id)
        )
        self.log(f"    ✎ {channel}:{edit.message_id} {edit.text[-40:]!r}")

    def read(self, user: str, message_id: str) -> None:
        """`user` read a message (the read event the simulation then hands Deputy)."""
        self.reads.append((next(self._order), user, message_id))

    def to(self, channel: str, user: str) -> list[Delivery]:
        """Deliveries to one platform user, oldest first."""
        return [d for d in self.deliveries if d.channel == channel and d.user == user]

    def roll(self, rate: float) -> bool:
        """True with probability `rate` (from the current step's generator)."""
        return rate > 0 and self.rng.random() < rate


class SimChannel(Channel):
    """A platform channel inside the simulation; `pacer` is the project's Telegram pacer (or None)."""

    def __init__(self, name: str, platform: Platform, scheduler: Scheduler, pacer: Any = None) -> None:
        self.name = name
        self.platform = platform
        self.scheduler = scheduler
        self.pacer = pacer

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Deliver, or fail like a platform would; parks before and after the delivery."""
        self.scheduler.checkpoint(f"send:{self.name}")
        p, faults = self.platform, self.platform.faults
        if (self.name, message.external_user_id) in faults.blocked:
            raise Unreachable("Forbidden: bot was blocked by the user", code=403, permanent=True)
        if p.roll(faults.down):
            raise Transient("502 Bad Gateway", code=502)
        if p.roll(faults.rate_limited):
            raise RateLimited("Too Many Requests: retry after 7", code=429, retry_after=7)
        if self.pacer is not None:  # the project's own pacer, on the simulation's clock (older ones: `acquire`)
            chat = message.chat_id or message.external_user_id
            self.pacer.reserve(chat) if hasattr(self.pacer, "reserve") else self.pacer.acquire(chat)
        if p.roll(faults.slow):
            p.clock.advance(timedelta(seconds=p.rng.choice([5, 40, 150])))
        delivery = p.deliver(self.name, message)
        self.scheduler.checkpoint(f"sent:{self.name}")
        if p.roll(faults.timeout_after_delivery):
            raise Transient(f"{self.name} did not answer in time", code="timeout", possibly_delivered=True)
        return SendReceipt(message_id=delivery.message_id)

    def readers(self, message_id: str) -> dict[str, datetime]:
        """Feishu's read_users: who read the message (Telegram refuses, as the real one does)."""
        if self.name != "feishu":
            return super().readers(message_id)
        return {user: self.platform.clock.now() for _, user, read in self.platform.reads if read == message_id}

    def urge(self, *, message_id: str, user_id: str, mode: str) -> None:
        """Feishu's urgent_app / _sms / _phone: recorded in order with the reads (no checkpoint: one instant)."""
        if self.name != "feishu":
            return super().urge(message_id=message_id, user_id=user_id, mode=mode)
        self.platform.urgents.append((next(self.platform._order), user_id, message_id))
        self.platform.log(f"    ! urgent_{mode} {user_id} {message_id}")
        return None

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """Change a delivered message in place (its buttons go: a pressed message acts once)."""
        self.scheduler.checkpoint(f"edit:{self.name}")
        self.platform.seen_edit(self.name, edit)
        return SendReceipt(message_id=edit.message_id)

    def health(self) -> ChannelHealth:
        """Always configured."""
        return ChannelHealth(name=self.name, ok=True, detail="simulated")


class RealTelegram(Channel):
    """Telegram through the real python-telegram-bot client, its pacing and its logging, against the fake Bot API."""

    name = "telegram"

    def __init__(
        self, fake: FakeTelegram, token: str, platform: Platform, scheduler: Scheduler, pacer: Any = None
    ) -> None:
        self.fake, self.platform, self.scheduler = fake, platform, scheduler
        self.real = TelegramChannel(token, api_base=fake.base_url, timeout=5.0)
        if pacer is not None:  # the same pacing code, on the simulation's clock
            self.real.pacer = pacer

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Script the fake server's answer from the fault plan, then send for real."""
        self.scheduler.checkpoint("send:telegram")
        p, faults = self.platform, self.platform.faults
        if ("telegram", message.external_user_id) in faults.blocked:
            self.fake.script("sendMessage", FORBIDDEN_BLOCKED)
        elif p.roll(faults.down):
            self.fake.script("sendMessage", SERVER_ERROR)
        elif p.roll(faults.rate_limited):
            self.fake.script("sendMessage", too_many_requests(7))
        try:
            receipt = self.real.send(message)
        finally:
            self.fake.unscript("sendMessage")
        p.deliver("telegram", message, message_id=receipt.message_id)
        self.scheduler.checkpoint("sent:telegram")
        return receipt

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """Edit for real (editMessageText on the fake Bot API)."""
        self.scheduler.checkpoint("edit:telegram")
        receipt = self.real.edit(edit)
        self.platform.seen_edit("telegram", edit)
        return receipt

    def health(self) -> ChannelHealth:
        """The real channel's health."""
        return self.real.health()

    def close(self) -> None:
        """Stop the real client's loop."""
        self.real.close()
