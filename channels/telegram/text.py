"""Telegram text limits: lengths in UTF-16 code units and splitting long text into sendable parts."""

from __future__ import annotations

import unicodedata

from channels.base import BREAKS

# The unit: Bot API sendMessage allows "1-4096 characters after entities parsing", and Telegram measures its
# strings in UTF-16 code units ("the length of strings ... as the number of UTF-16 code units",
# https://core.telegram.org/api/entities; every entity offset/length is in them). An emoji outside the BMP is two.
# So the limit applies to the visible text (tags gone, &lt; one character), counted in UTF-16 code units.
MAX_MESSAGE_UNITS = 4096
MAX_ENTITIES = 100  # Telegram keeps at most 100 entities of a message; Deputy never sends more in one part
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
    """Where to end the part: after the best break (channels.base.BREAKS) in the window's second half, else its end."""
    for separator in BREAKS:
        index = window.rfind(separator)
        if index >= len(window) // 2:
            return index + len(separator)
    return len(window)


Span = tuple[int, int]  # [start, end) in code points of an entity Deputy adds (a bold header)


def _window_end(text: str, start: int, limit: int, spans: tuple[Span, ...], max_spans: int) -> int:
    """The furthest end of a part from `start`: `limit` units, and no more than `max_spans` entities in it."""
    fit = start + _fitting_prefix(text[start:], limit)
    later = [s for s, e in spans if e > start]
    if len(later) > max_spans:
        fit = min(fit, max(later[max_spans], start + 1))
    return fit


def split_ranges(
    text: str, limit: int = MAX_MESSAGE_UNITS, *, spans: tuple[Span, ...] = (), max_spans: int = 10**9
) -> list[Span]:
    """Where to cut `text` into parts of at most `limit` UTF-16 units and `max_spans` entities each.

    Cuts prefer paragraph, line and word breaks; never tear a character sequence apart; and fall before an entity
    rather than inside it (only an entity longer than a whole part is cut, and each part then carries its own).
    """
    if limit < 2:
        raise ValueError("limit must leave room for a surrogate pair")
    ranges: list[Span] = []
    start = 0
    while utf16_len(text[start:]) > limit or sum(e > start for _, e in spans) > max_spans:
        fit = _window_end(text, start, limit, spans, max_spans)
        cut = start + _cut_point(text[start:fit])
        if cut == fit and fit < len(text):  # a hard cut: step back over marks and joiners (bounded, never to zero)
            floor = max(start + 1, fit - 16)
            while cut > floor and _glued(text, cut):
                cut -= 1
        for s, e in spans:
            if s < cut < e and s > start:  # inside an entity: end the part before it instead
                cut = s
                break
        ranges.append((start, cut))
        start = cut
    ranges.append((start, len(text)))
    return ranges


def split_text(text: str, limit: int = MAX_MESSAGE_UNITS) -> list[str]:
    """Split `text` into parts of at most `limit` UTF-16 units, preferring paragraph, line and word breaks."""
    # Separators stay at the end of the part they close, so joining the parts gives the text back;
    # parts that would be only whitespace are dropped (Telegram refuses empty messages).
    parts = [text[a:b] for a, b in split_ranges(text, limit)]
    return [p for p in parts if p.strip()]
