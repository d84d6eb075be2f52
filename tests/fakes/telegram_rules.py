"""What the fake Bot API checks like Telegram does: HTML parse mode, lengths after parsing, inline keyboards.

HTML as Bot API "formatting options" documents it: only the listed tags, properly nested; `&lt; &gt; &amp; &quot;`
and numeric entities are decoded; a `<` that does not start a supported tag is refused ("can't parse entities").
Lengths are the visible text after parsing, in UTF-16 code units (4096 for a message, 1024 for a caption).
Telegram keeps at most 100 entities of a message; the fake refuses more, so a test notices rather than a person.
"""

from __future__ import annotations

import html
import re
from typing import Any

from channels.telegram.text import utf16_len

TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "tg-spoiler", "blockquote"}
TAGS |= {"span", "tg-emoji"}
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z-]*)(\s[^<>]*)?>")
_ENTITY = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|lt|gt|amp|quot);")
BUTTON_KINDS = {"url", "callback_data", "web_app", "login_url", "switch_inline_query", "pay", "copy_text"}
BUTTON_KINDS |= {"switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "callback_game"}
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)


class ParseProblem(ValueError):
    """Why Telegram's HTML parser refuses a text (the description follows "can't parse entities: ")."""


def parse_html(text: str) -> tuple[str, int]:
    """The visible text and the number of entities of an HTML-mode text, or ParseProblem."""
    out: list[str] = []
    stack: list[str] = []
    entities = 0
    at = 0
    while at < len(text):
        char = text[at]
        if char == "<":
            tag = _TAG.match(text, at)
            if tag is None:
                raise ParseProblem(f"Unsupported start tag at byte offset {len(text[:at].encode())}")
            closing, name = tag.group(1), tag.group(2).lower()
            if name not in TAGS:
                raise ParseProblem(f'Unsupported start tag "{name}" at byte offset {len(text[:at].encode())}')
            if not closing:
                stack.append(name)
                entities += 1
            elif not stack or stack.pop() != name:
                raise ParseProblem(f"Unexpected end tag at byte offset {len(text[:at].encode())}")
            at = tag.end()
            continue
        entity = _ENTITY.match(text, at) if char == "&" else None
        if entity is not None:
            out.append(html.unescape(entity.group()))
            at = entity.end()
            continue
        out.append(char)
        at += 1
    if stack:
        raise ParseProblem(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(out), entities


def html_problem(text: str) -> str | None:
    """Why Telegram's HTML parser would refuse `text`, or None."""
    try:
        parse_html(text)
    except ParseProblem as exc:
        return str(exc)
    return None


def visible(params: dict[str, Any], field: str, limit: int) -> tuple[str | None, str | None]:
    """(the text as Telegram keeps it, None) or (None, the error description) for a text or caption."""
    source = str(params.get(field) or "")
    entities = 0
    if params.get("parse_mode") == "HTML":
        try:
            source, entities = parse_html(source)
        except ParseProblem as exc:
            return None, f"Bad Request: can't parse entities: {exc}"
    elif params.get("parse_mode") not in (None, ""):
        return None, f"Bad Request: unsupported parse_mode {params['parse_mode']}"
    if utf16_len(source) > limit:
        return None, f"Bad Request: {'message caption' if field == 'caption' else 'message'} is too long"
    if entities > 100:
        return None, "Bad Request: too many entities (the fake refuses more than Telegram keeps: 100)"
    return source, None


def markup_problem(markup: Any) -> str | None:
    """Why Telegram would refuse this reply_markup as an inline keyboard, or None."""
    if markup is None:
        return None
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        return "Bad Request: can't parse reply keyboard markup JSON object"
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str) or not button["text"].strip():
                return "Bad Request: can't parse inline keyboard button: the button has no text"
            if sum(kind in button for kind in BUTTON_KINDS) != 1:
                return "Bad Request: can't parse inline keyboard button: exactly one optional field must be used"
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode()) <= 64:
                return "Bad Request: BUTTON_DATA_INVALID"
    return None
