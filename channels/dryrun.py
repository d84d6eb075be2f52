"""A dry-run channel: logs what would be sent instead of calling a platform (local trials, staging)."""

from __future__ import annotations

import logging

from channels.base import Button, Channel, ChannelHealth, MessageEdit, OutboundMessage, SendReceipt

log = logging.getLogger("deputy.channels.dryrun")


# A button is named in the record by the start of its token: enough for the sandbox to find it among the person's
# own buttons, not enough to press it (the rest, 84 random bits, stays in the buttons table), since viewers read
# action records.
TOKEN_HINT = 8


def _shown(text: str, buttons: tuple[Button, ...]) -> dict:
    """What the person would have seen, kept in the action record: the console's sandbox shows it as a chat."""
    return {"dry_run": True, "text": text, "buttons": [[b.label, b.token[:TOKEN_HINT]] for b in buttons]}


class DryRunChannel(Channel):
    """Stands in for `name` (feishu/telegram): every send is logged and reported delivered."""

    dry_run = True

    def __init__(self, name: str) -> None:
        self.name = name

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Log the message as JSON and confirm it."""
        log.info(
            "dry-run send",
            extra={
                "channel": self.name,
                "to": message.external_user_id,
                "chat_id": message.chat_id,
                "text": message.text,
                "action_id": message.idempotency_key,
                "buttons": [b.label for b in message.buttons],
                "media": message.media.kind if message.media else None,
            },
        )
        return SendReceipt(message_id=f"dryrun_{message.idempotency_key}", detail=_shown(message.text, message.buttons))

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """Log the edit and confirm it."""
        log.info(
            "dry-run edit",
            extra={
                "channel": self.name,
                "message_id": edit.message_id,
                "text": edit.text,
                "action_id": edit.idempotency_key,
            },
        )
        return SendReceipt(message_id=edit.message_id, detail=_shown(edit.text, edit.buttons))

    def answer_press(self, *, press_id: str, text: str) -> None:
        """Log the answer."""
        log.info("dry-run press answer", extra={"channel": self.name, "press_id": press_id, "text": text})

    def health(self) -> ChannelHealth:
        """Healthy, and says it is a dry run."""
        return ChannelHealth(name=self.name, ok=True, detail="dry run: nothing leaves this process")
