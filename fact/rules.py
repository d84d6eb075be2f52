"""What of a fact people read, and how search cuts that text into grams (pure: no I/O).

`GET /v1/facts?q=` matches the human text of a fact: a message's text, a question, an answer, a reason, a
preview (`FIELDS`), and the ids of the records it is about (`REFERENCES`: loops, actions, decisions, facts,
which operators paste and which the console's loop timeline looks up). Never JSON keys, nor other machine
values (states, rules, channels, person ids, timestamps). Both are named per fact type, in one place; the
search index (`fact.search`) stores what `searchable_text` returns.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Paths into `content`: `a.b` descends into objects, `*` takes every item of a list (or value of an object),
# `**` takes every string or number below (an external system's payload is its own; its keys are not text).
FIELDS: dict[str, tuple[str, ...]] = {
    "message_received": ("text", "mentions.*.name"),
    "external_signal": ("content.**",),
    "llm_proposal": ("proposal.text",),
    "decision": ("requested.*.question", "requested.*.answer", "requested.*.text", "requested.*.who"),
    "concern_changed": ("question", "after.answer", "reason"),
    "action_result": ("content_preview", "result_detail.reason"),
    "person_changed": ("after.display_name", "after.aliases.*", "reason"),
    "phrasing": ("example",),
    "system": ("message", "reason"),
}
REFERENCES: dict[str, tuple[str, ...]] = {
    "decision": ("decision_id", "inputs.*", "requested.*.concern_id"),
    "concern_changed": ("concern_id",),
    "button_pressed": ("concern_id",),
    "llm_proposal": ("message_fact_id",),
    "action_result": ("action_id", "decision_ref"),
    "phrasing": ("phrasing_id", "missed", "taught_by"),
    "system": ("fact_id", "action_id", "request_key"),
}
MAX_CHARS = 10_000  # searchable characters per fact: the index stays bounded whatever a signal carries
_SEPARATOR = "\n"
_BITS = 21  # every code point fits in 21 bits, so a bigram or trigram packs into one signed 64-bit key


def human_text(fact_type: str, content: dict[str, Any]) -> str:
    """The fields of `content` people read, one per line, in `FIELDS` order."""
    return _SEPARATOR.join(_texts(content, FIELDS.get(fact_type, ())))


def references(fact_type: str, content: dict[str, Any]) -> str:
    """The ids of the records the fact is about, one per line, in `REFERENCES` order."""
    return _SEPARATOR.join(_texts(content, REFERENCES.get(fact_type, ())))


def searchable_text(fact_type: str, content: dict[str, Any]) -> str:
    """What the index stores for a fact: its human text and references, case-folded, at most `MAX_CHARS`."""
    text = _SEPARATOR.join(part for part in (human_text(fact_type, content), references(fact_type, content)) if part)
    return normalise(text)[:MAX_CHARS]


def normalise(text: str) -> str:
    """Case-fold: `q` and the stored text are folded alike, so matching ignores case in every script."""
    return text.casefold()


def gram_key(gram: str) -> int:
    """A bigram or trigram as one integer (its code points, 21 bits each); distinct grams never share a key."""
    key = 0
    for char in gram:
        key = (key << _BITS) | ord(char)
    return key


def gram_keys(text: str, size: int) -> list[int]:
    """The distinct keys of every `size`-character run of `text`, in order of first appearance."""
    return list(dict.fromkeys(gram_key(text[i : i + size]) for i in range(len(text) - size + 1)))


def _texts(content: dict[str, Any], paths: tuple[str, ...]) -> list[str]:
    return [text for path in paths for text in _walk(content, path.split(".")) if text]


def _walk(node: Any, path: list[str]) -> Iterator[str]:
    if not path:
        if isinstance(node, str):
            yield node
        return
    head, rest = path[0], path[1:]
    if head == "**":
        yield from _leaves(node)
    elif head == "*":
        for item in node if isinstance(node, list) else node.values() if isinstance(node, dict) else ():
            yield from _walk(item, rest)
    elif isinstance(node, dict) and head in node:
        yield from _walk(node[head], rest)


def _leaves(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, int | float) and not isinstance(node, bool):
        yield str(node)
    elif isinstance(node, list):
        for item in node:
            yield from _leaves(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _leaves(item)
