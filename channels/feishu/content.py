"""What goes on the wire for a text: plain text, or a JSON 2.0 card (markdown, buttons); long texts in parts.

Buttons make a card whatever the text: a row of `button` elements (JSON 2.0 has no `action` module) whose
callback behaviour carries `{"t": <token>}`, the opaque token, and nothing else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from channels.base import Button

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


_STYLES = {"primary": "primary_filled", "danger": "danger"}


def _button(button: Button) -> dict[str, Any]:
    return {
        "tag": "button",
        "text": {"tag": "plain_text", "content": button.label},
        "type": _STYLES.get(button.style, "default"),
        "behaviors": [{"type": "callback", "value": {"t": button.token}}],
    }


def card(text: str, buttons: Sequence[Button] = (), *, markdown: bool | None = None) -> dict[str, Any]:
    """A JSON 2.0 card: the text (markdown when it looks like it, else plain) and the buttons in one row."""
    markdown = looks_like_markdown(text) if markdown is None else markdown
    shown = (
        {"tag": "markdown", "content": text}
        if markdown
        else {"tag": "div", "text": {"tag": "plain_text", "content": text}}
    )
    elements: list[dict[str, Any]] = [shown]
    if buttons:
        columns = [{"tag": "column", "width": "auto", "elements": [_button(b)]} for b in buttons]
        elements.append({"tag": "column_set", "flex_mode": "flow", "horizontal_spacing": "8px", "columns": columns})
    # update_multi: a shared card, the only kind JSON 2.0 has and the only kind im.v1.message.patch updates.
    return {"schema": "2.0", "config": {"width_mode": "fill", "update_multi": True}, "body": {"elements": elements}}


def message_content(part: str, *, markdown: bool, buttons: Sequence[Button] = ()) -> tuple[str, str]:
    """(msg_type, content JSON) for one part: `text`, or `interactive` with a JSON 2.0 card (markdown, buttons)."""
    if not markdown and not buttons:
        return "text", json.dumps({"text": part}, ensure_ascii=False)
    return "interactive", json.dumps(card(part, buttons, markdown=markdown), ensure_ascii=False)


def part_uuids(idempotency_key: str, count: int) -> list[str]:
    """Platform de-duplication keys: the action id itself for one part, `<action id>-<n>` for parts 1..n."""
    if count == 1:
        return [idempotency_key]
    return [f"{idempotency_key}-{n}" for n in range(1, count + 1)]
