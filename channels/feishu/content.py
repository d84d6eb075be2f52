"""What goes on the wire for a text: plain text, or a card with a markdown element; long texts in parts."""

from __future__ import annotations

import json
import re

# Feishu caps a text message's request body at 150 KB and a card's at 30 KB. A character costs at most
# 7 bytes once escaped twice (content is JSON inside the JSON body), so 4000 characters always fit a card.
MAX_PART_CHARS = 4000

_MARKDOWN = re.compile(
    r"^\s*\|.*\|\s*$\n^\s*\|?\s*:?-{3,}"  # a table: a row followed by a separator row
    r"|^\s*(?:[-*+]|\d+\.)\s+\S.*$\n^\s*(?:[-*+]|\d+\.)\s+\S"  # a list of at least two items
    r"|^#{1,6}\s+\S"  # a heading
    r"|\*\*[^*\n]+\*\*"  # bold
    r"|\[[^\]\n]+\]\(https?://[^)\s]+\)"  # a link
    r"|^```",  # a code fence
    re.MULTILINE,
)


def looks_like_markdown(text: str) -> bool:
    """True when the text uses markdown a plain text message would show as symbols (lists, tables, …)."""
    return bool(_MARKDOWN.search(text))


def _cut_at(text: str, limit: int) -> int:
    """Where to end the first part: the last paragraph break, line break or space before `limit`."""
    window = text[:limit]
    for separator in ("\n\n", "\n", " "):
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


def message_content(part: str, *, markdown: bool) -> tuple[str, str]:
    """(msg_type, content JSON) for one part: `text`, or `interactive` with a JSON 2.0 card markdown element."""
    if not markdown:
        return "text", json.dumps({"text": part}, ensure_ascii=False)
    card = {
        "schema": "2.0",
        "config": {"width_mode": "fill"},
        "body": {"elements": [{"tag": "markdown", "content": part}]},
    }
    return "interactive", json.dumps(card, ensure_ascii=False)


def part_uuids(idempotency_key: str, count: int) -> list[str]:
    """Platform de-duplication keys: the action id itself for one part, `<action id>-<n>` for parts 1..n."""
    if count == 1:
        return [idempotency_key]
    return [f"{idempotency_key}-{n}" for n in range(1, count + 1)]
