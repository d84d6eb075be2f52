"""A Feishu JSON 2.0 card built, not concatenated: Deputy's bold headers in markdown, everything else plain_text.

Whatever a person wrote is shown as written: a colleague's `# 标题`, `- a`, `| a | b |`, `**x**`, backticks,
`~~x~~`, `<at id=all>`, `<font color=red>`, `[x](url)`, `<a href>` and `![](img)` stay those characters.
- Text goes in the `plain_text` of a `div` (card JSON 2.0 "普通文本": text tag `plain_text` is "普通文本内容";
  only `lark_md` "支持部分 Markdown 语法"), which Feishu shows as written and never parses.
- The one markup is a `**Section**` header line (channels.base.HEADER_LINE): a `markdown` element `**<header>**`
  whose header text has every character markdown syntax uses written as `&#<number>;` (card JSON 2.0 "富文本",
  "特殊字符转义说明": a character that hits the markdown syntax "需要对特殊字符进行 HTML 转义，才可正常展示",
  "转义后的格式为 `&#实体编号;`"), so nothing but the bold can form in it, whatever the header says.
Two limits bind a card (`fits`; the caller splits a send and trims an edit until it holds):
- im/v1 message create and patch: "卡片及富文本消息请求体最大不能超过30KB" (230025 beyond it), measured here on the
  request body as lark-oapi serialises it (UTF-8 JSON, the card JSON a string inside it), against 30 000 bytes.
- card JSON 2.0 structure: "一张卡片最多支持 200 个元素（如 tag 为 plain_text 的文本元素）或组件": every object
  with a `tag` in the body counts.
Buttons are a row of `button` elements (JSON 2.0 has no `action` module) whose callback behaviour carries
`{"t": <token>}`, the opaque token, and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from channels.base import HEADER_LINE, Button

MAX_CARD_BYTES = 30_000  # "30KB", read as the smaller of 30 000 and 30 720
MAX_CARD_TAGS = 200
# The rest of a create body beside `content`: receive_id (an open_id or chat_id, ~35), msg_type, uuid (≤ 50).
ENVELOPE_BYTES = 256
# The documented table of characters to escape, and `&` (so no entity of the text is decoded) and `|` (tables).
_ESCAPED = str.maketrans({c: f"&#{ord(c)};" for c in "&<>~-!*/\\[]()#:+\"'`$_|"})
_STYLES = {"primary": "primary_filled", "danger": "danger"}


def escape_markdown(text: str) -> str:
    """`text` for a markdown element, every syntax character an entity: it shows as written, nothing forms."""
    return text.translate(_ESCAPED)


def blocks(text: str) -> list[tuple[str, bool]]:
    """The text as (piece, is_header) in order: each header line's words, and the runs of text between them
    (the line breaks at their edges dropped: the card stacks its elements anyway); blank runs left out."""
    found: list[tuple[str, bool]] = []
    at = 0
    for match in HEADER_LINE.finditer(text):
        found += [(text[at : match.start()], False), (match.group(1), True)]
        at = match.end()
    found.append((text[at:], False))
    return [(piece if header else piece.strip("\n"), header) for piece, header in found if header or piece.strip()]


def _plain(text: str) -> dict[str, Any]:
    return {"tag": "div", "text": {"tag": "plain_text", "content": text}}


def _element(piece: str, header: bool) -> dict[str, Any]:
    return {"tag": "markdown", "content": f"**{escape_markdown(piece)}**"} if header else _plain(piece)


def _button(button: Button) -> dict[str, Any]:
    return {
        "tag": "button",
        "text": {"tag": "plain_text", "content": button.label},
        "type": _STYLES.get(button.style, "default"),
        "behaviors": [{"type": "callback", "value": {"t": button.token}}],
    }


def _row(buttons: Sequence[Button]) -> dict[str, Any]:
    columns = [{"tag": "column", "width": "auto", "elements": [_button(b)]} for b in buttons]
    return {"tag": "column_set", "flex_mode": "flow", "horizontal_spacing": "8px", "columns": columns}


def _ends_item(line: str, markers: set[str]) -> bool:
    """A line that closes the item above it: blank, another bullet, or another item's marker."""
    return not line.strip() or line.lstrip().startswith("•") or any(m in line for m in markers)


def sections(piece: str, groups: dict[str, list[Button]]) -> list[tuple[str, list[Button]]]:
    """A plain piece cut after each numbered item (`[2] …` up to a blank line, a bullet or the next item), with
    that item's buttons; the text the items leave around them keeps no buttons."""
    markers = {f"[{group}] ": group for group in groups}
    found: list[tuple[str, list[Button]]] = []
    current: list[str] = []
    open_group: str | None = None
    for line in piece.split("\n"):
        starts = next((group for marker, group in markers.items() if marker in line), None)
        if open_group is not None and (starts is not None or _ends_item(line, set(markers))):
            found.append(("\n".join(current), groups.pop(open_group)))
            current, open_group = [], None
            markers = {f"[{group}] ": group for group in groups}
        if starts is not None and starts in groups:
            if current:
                found.append(("\n".join(current), []))
            current, open_group = [], starts
        current.append(line)
    if open_group is not None:
        found.append(("\n".join(current), groups.pop(open_group)))
    elif current:
        found.append(("\n".join(current), []))
    return [(text.strip("\n"), row) for text, row in found if text.strip() or row]


def card(text: str, buttons: Sequence[Button] = ()) -> dict[str, Any]:
    """A JSON 2.0 card: the text (headers bold, the rest plain), each numbered item's buttons under it (a bundle's
    parts, a brief's lines) and the message's own in one row at the end."""
    groups: dict[str, list[Button]] = {}
    for button in buttons:
        if button.group is not None:
            groups.setdefault(button.group, []).append(button)
    elements: list[dict[str, Any]] = []
    for piece, header in blocks(text):
        if header or not groups:
            elements.append(_element(piece, header))
            continue
        for part, row in sections(piece, groups):
            if part.strip():
                elements.append(_plain(part))
            if row:
                elements.append(_row(row))
    elements = elements or [_plain(text)]
    rest = [b for b in buttons if b.group is None] + [b for row in groups.values() for b in row]  # no item found
    if rest:
        elements.append(_row(rest))
    # update_multi: a shared card, the only kind JSON 2.0 has and the only kind im.v1.message.patch updates.
    return {"schema": "2.0", "config": {"width_mode": "fill", "update_multi": True}, "body": {"elements": elements}}


def tags(node: Any) -> int:
    """How many elements and components a card JSON holds (every object with a `tag`)."""
    if isinstance(node, dict):
        return ("tag" in node) + sum(tags(value) for value in node.values())
    if isinstance(node, list):
        return sum(tags(value) for value in node)
    return 0


def wire_bytes(body: dict[str, Any]) -> int:
    """The size of the request that carries this card, as lark-oapi sends it (ensure_ascii off, default
    separators), the other fields of the body counted at their largest."""
    content = json.dumps(body, ensure_ascii=False)
    return len(json.dumps({"content": content}, ensure_ascii=False).encode()) + ENVELOPE_BYTES


def fits(body: dict[str, Any]) -> bool:
    """True when Feishu takes this card: within the request size and the element count."""
    return tags(body.get("body")) <= MAX_CARD_TAGS and wire_bytes(body) <= MAX_CARD_BYTES
