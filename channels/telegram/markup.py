"""Buttons as Telegram inline keyboards (labels are never parsed as markup) and the callback_data limit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from channels.base import Button
from channels.errors import InvalidRequest

if TYPE_CHECKING:
    from telegram import InlineKeyboardMarkup

MAX_CALLBACK_BYTES = 64  # Telegram refuses longer callback_data (BUTTON_DATA_INVALID)
ROW = 3  # more than this many buttons go in rows of at most three (labels stay readable on a phone)


def rows(buttons: Sequence[Button]) -> list[list[Button]]:
    """The buttons in one row, or in as few rows of at most three as hold them, as even as can be (4: 2 + 2,
    5: 3 + 2, 7: 3 + 2 + 2), so no button is left alone on a row."""
    if len(buttons) <= ROW:
        return [list(buttons)] if buttons else []
    count = -(-len(buttons) // ROW)
    size, longer = divmod(len(buttons), count)
    found, start = [], 0
    for row in range(count):
        end = start + size + (1 if row < longer else 0)
        found.append(list(buttons[start:end]))
        start = end
    return found


def keyboard(buttons: Sequence[Button]) -> InlineKeyboardMarkup | None:
    """The inline keyboard for `buttons` (callback_data = each button's token), None without buttons."""
    for button in buttons:
        if not button.token or len(button.token.encode()) > MAX_CALLBACK_BYTES:
            raise InvalidRequest(
                f"a button token must be 1 to {MAX_CALLBACK_BYTES} bytes", code="button_token", permanent=True
            )
    if not buttons:
        return None
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup  # loaded with the first keyboard sent

    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(b.label, callback_data=b.token) for b in row] for row in rows(buttons)]
    )
