"""What goes on the wire for a text: plain text, or a JSON 2.0 card (markdown, buttons); long texts in parts.

Buttons make a card whatever the text: a row of `button` elements (JSON 2.0 has no `action` module) whose
callback behaviour carries `{"t": <token>}`, the opaque token, and nothing else.
"""

from __future__ import annotations

import hashlib
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


# What a person wrote must not become a link, a mention, colour or markup, in any container:
# - A `text` message parses `<at user_id="...">` (and `<at user_id="all">`, everyone), `<b> <i> <u> <s>`,
#   `**bold**` and `[text](url)` links (im/v1 message content, "文本 text": 样式 and @ 用户), and offers no
#   escape; a text with any of that syntax therefore goes as a card whose `plain_text` element shows it as written
#   (card JSON 2.0 "普通文本": plain_text is never parsed).
# - A card's `markdown` element (JSON 2.0 rich text) renders `<at id=all>`, `<font color>`, `<link>`, `<text_tag>`,
#   `[text](url)` and `![](img_key)`; it decodes HTML character entities, so `&`, `<`, `>`, `[`, `]` are written as
#   entities there and none of that syntax can form. The layout Deputy's own markdown uses (lists, tables, bold,
#   headings) needs none of those characters.
_TEXT_SYNTAX = re.compile(r"<|\*\*|\[[^\]\n]*\]\(")
_MARKDOWN_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;"})


def has_text_syntax(text: str) -> bool:
    """True when a Feishu `text` message would turn part of `text` into a mention, a style or a link."""
    return bool(_TEXT_SYNTAX.search(text))


def markdown_safe(text: str) -> str:
    """`text` for a card's markdown element: tags, mentions, colours, links and images cannot form."""
    return text.translate(_MARKDOWN_ENTITIES)


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
        {"tag": "markdown", "content": markdown_safe(text)}
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
    if not markdown and not buttons and not has_text_syntax(part):
        return "text", json.dumps({"text": part}, ensure_ascii=False)
    return "interactive", json.dumps(card(part, buttons, markdown=markdown), ensure_ascii=False)


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
