"""Telegram text limits: lengths in UTF-16 code units and splitting long text into sendable parts."""

from __future__ import annotations

import html
import re
import unicodedata

MAX_MESSAGE_UNITS = 4096  # sendMessage limit, counted in UTF-16 code units like every Telegram offset
_SEPARATORS = ("\n\n", "\n", " ")
_JOINERS = {"\u200d", "\ufe0e", "\ufe0f"}  # zero-width joiner, text/emoji variation selectors


def units(char: str) -> int:
    """UTF-16 code units of one code point (2 for astral characters such as most emoji)."""
    return 2 if ord(char) > 0xFFFF else 1


def utf16_len(text: str) -> int:
    """Length of `text` as Telegram counts it."""
    return sum(units(c) for c in text)


def utf16_slice(text: str, offset: int, length: int) -> str:
    """The substring at a Telegram entity's UTF-16 `offset`/`length` (never splits a surrogate pair)."""
    out, position = [], 0
    for char in text:
        if position >= offset + length:
            break
        if position >= offset:
            out.append(char)
        position += units(char)
    return "".join(out)


def _fitting_prefix(text: str, limit: int) -> int:
    """How many code points of `text` fit in `limit` UTF-16 units."""
    used = 0
    for index, char in enumerate(text):
        used += units(char)
        if used > limit:
            return index
    return len(text)


def _glued(text: str, cut: int) -> bool:
    """True when cutting before `text[cut]` would tear a character sequence apart (combining mark, ZWJ emoji)."""
    after, before = text[cut], text[cut - 1]
    return unicodedata.combining(after) > 0 or after in _JOINERS or before == "\u200d"


def _cut_point(window: str) -> int:
    """Where to end the part: the last paragraph, line or word break in the window's second half, else its end."""
    for separator in _SEPARATORS:
        index = window.rfind(separator)
        if index >= len(window) // 2:
            return index + len(separator)
    return len(window)


def split_text(text: str, limit: int = MAX_MESSAGE_UNITS) -> list[str]:
    """Split `text` into parts of at most `limit` UTF-16 units, preferring paragraph, line and word breaks."""
    # Separators stay at the end of the part they close, so joining the parts gives the text back;
    # parts that would be only whitespace are dropped (Telegram refuses empty messages).
    if limit < 2:
        raise ValueError("limit must leave room for a surrogate pair")
    parts: list[str] = []
    rest = text
    while utf16_len(rest) > limit:
        fit = _fitting_prefix(rest, limit)
        cut = _cut_point(rest[:fit])
        if cut == fit:  # a hard cut: step back over marks and joiners (a bounded walk, never to zero)
            floor = max(1, fit - 16)
            while cut > floor and _glued(rest, cut):
                cut -= 1
        parts.append(rest[:cut])
        rest = rest[cut:]
    parts.append(rest)
    return [p for p in parts if p.strip()]


_HEADER = re.compile(r"^\*\*([^*\n]+)\*\*$", re.MULTILINE)


def to_html(text: str) -> str:
    """A text with `**Section**` header lines (a brief) as Telegram HTML: headers bold, the rest escaped.

    Any other text goes out as it is, exactly as before.
    """
    if not _HEADER.search(text):
        return text
    return _HEADER.sub(lambda m: f"<b>{m.group(1)}</b>", html.escape(text, quote=False))
