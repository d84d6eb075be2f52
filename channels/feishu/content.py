"""What goes on the wire for a text: `text` messages, or JSON 2.0 cards (channels.feishu.cards), in parts.

A text goes as `text` messages unless Deputy marked it up (a `**Section**` header line) or a `text` message would
parse part of it; then, and for the part that carries buttons, as cards. Every part is within Feishu's limits:
at most 4000 characters (a reading size; a `text` request may be 150 KB, "文本消息请求体最大不能超过150KB", and a
character costs at most 7 bytes there, escaped twice), and a card part is split again until `cards.fits` holds.
Deputy sends no `post` (rich text) messages; forwarded media is the person's own message, forwarded as it is.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from channels.base import BREAKS, HEADER_LINE, Button
from channels.feishu import cards

MAX_PART_CHARS = 4000

# A `text` message parses `<at user_id="...">` (and `<at user_id="all">`, everyone), `<b> <i> <u> <s>`,
# `**bold**` and `[text](url)` links (im/v1 message content, "文本 text": 样式 and @ 用户) and offers no escape:
# a text with any of that syntax goes as a card, whose `plain_text` shows it as written.
_TEXT_SYNTAX = re.compile(r"<|\*\*|\[[^\]\n]*\]\(")


def has_text_syntax(text: str) -> bool:
    """True when a Feishu `text` message would turn part of `text` into a mention, a style or a link."""
    return bool(_TEXT_SYNTAX.search(text))


def needs_card(text: str) -> bool:
    """True when `text` must go as cards: it has Deputy's bold headers, or syntax a `text` message would parse."""
    return has_text_syntax(text) or bool(HEADER_LINE.search(text))


def _cut_at(text: str, limit: int) -> int:
    """Where to end the first part: after the best break (channels.base.BREAKS) in the second half before `limit`."""
    window = text[:limit]
    for separator in BREAKS:
        position = window.rfind(separator)
        if position >= limit // 2:
            return position + len(separator)
    return limit


def split(text: str, limit: int = MAX_PART_CHARS) -> list[str]:
    """The text in parts of at most `limit` characters, broken at paragraphs or lines where possible."""
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = _cut_at(rest, limit)
        parts.append(rest[:cut].rstrip("\n"))
        rest = rest[cut:]
    parts.append(rest)
    return [p for p in parts if p.strip()] or [text]


def _halves(part: str) -> list[str]:
    """A part too big for one card in two, broken at a paragraph, line or space near its middle."""
    cut = _cut_at(part, (len(part) + 1) // 2)
    return [p for p in (part[:cut].rstrip("\n"), part[cut:]) if p.strip()] or [part]


def messages(text: str, buttons: Sequence[Button] = ()) -> list[tuple[str, str]]:
    """(msg_type, content JSON) of every message `text` goes as, in order; the buttons on the last one."""
    as_cards = needs_card(text)
    pending, planned = split(text), []
    while pending:
        part = pending.pop(0)
        extra = tuple(buttons) if not pending else ()
        if not as_cards and not extra:
            planned.append(("text", json.dumps({"text": part}, ensure_ascii=False)))
            continue
        body = cards.card(part, extra)
        if cards.fits(body) or len(part) < 2:  # a single character that still does not fit: Feishu says why
            planned.append(("interactive", json.dumps(body, ensure_ascii=False)))
        else:
            pending[:0] = _halves(part)
    return planned


def _cut_short(text: str, room: int, tail: str) -> str:
    """The start of `text` cut at a word within `room` characters, then `tail` ("…" on the line after a line
    break, so a header line stays a header)."""
    head = text[: _cut_at(text, room)]
    return f"{head.rstrip()}\n{tail}" if head.endswith("\n") else f"{head.rstrip()}{tail}"


def edit_card(text: str, buttons: Sequence[Button] = (), *, note: str = "") -> tuple[dict[str, Any], bool]:
    """The card an edit puts in place and whether it was cut: the whole text when one part holds it, else (an
    edit cannot add a message) its start cut at a word, "…", and `note` (where the whole text is) on its own line."""
    whole = cards.card(text, buttons)
    if len(text) <= MAX_PART_CHARS and cards.fits(whole):
        return whole, False
    tail = f"…\n{note}" if note else "…"
    room = max(MAX_PART_CHARS - len(tail) - 1, 1)
    while True:
        shortened = cards.card(_cut_short(text, room, tail), buttons)
        if cards.fits(shortened) or room < 2:
            return shortened, True
        room //= 2


MAX_UUID_CHARS = 50  # im/v1/messages `uuid`: "最大长度 50 字符"; Feishu de-duplicates a uuid for one hour


def fit_uuid(uuid: str) -> str:
    """`uuid` if Feishu accepts its length, else a stable 50-character form of it (a prefix and a digest)."""
    if len(uuid) <= MAX_UUID_CHARS:
        return uuid
    return f"{uuid[:33]}-{hashlib.sha256(uuid.encode()).hexdigest()[:16]}"


def part_uuids(idempotency_key: str, count: int) -> list[str]:
    """Platform de-duplication keys: the action id itself for one part, `<action id>-<n>` for parts 1..n."""
    if count == 1:
        return [fit_uuid(idempotency_key)]
    return [fit_uuid(f"{idempotency_key}-{n}") for n in range(1, count + 1)]
