"""The frame around words passed on for someone: chosen by what they are and the language they are in. Pure.

The words arrive already rewritten for their reader (`cognitive_core.language.forwarding`): a question ends with
？ / ?, a request with 。/ . (zh) or starts with its verb (en), information with 。/ . . The frame follows the
language of the words, not the reader's setting, so `老板 would like to know: 那个deck…` never happens. Words
that carry no mark (an API caller's question, an old loop) keep the question frame in the reader's language.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff]")
_INDIRECT = re.compile(
    r"^(?:if|whether|(?:when|what|where|who|why|how|which)(?:\s+(?!is\b|are\b|was\b|were\b|can\b|could\b|will\b"
    r"|would\b|should\b|did\b|do\b|does\b|has\b|have\b|had\b|much\b|many\b|long\b|time\b|day\b)\w+)+)\b",
    re.I,
)
_STATEMENT = re.compile(r"[。.]$")


def language(text: str, locale: str) -> str:
    """zh when the words are Chinese, en when they have letters and no Chinese, else the reader's locale."""
    if _CJK.search(text):
        return "zh"
    return "en" if re.search(r"[A-Za-z]", text) else ("zh" if locale.startswith("zh") else "en")


def name_in(lang: str, display_name: str, aliases: tuple[str, ...] = ()) -> str:
    """How the sender is named in that language: in English the first Latin-script alias, if they have one."""
    if lang == "en" and _CJK.search(display_name):
        return next((a for a in aliases if re.fullmatch(r"[A-Za-z][A-Za-z .'-]*", a)), display_name)
    return display_name


def question(asker: str, text: str, locale: str, aliases: tuple[str, ...] = ()) -> str:
    """An ask as its reader reads it: a question, or a request when the words are one."""
    lang = language(text, locale)
    name = name_in(lang, asker, aliases)
    if lang == "zh":
        return f"{name}请你{text}" if text.endswith("。") else f"{name}想了解：{text}"
    if _INDIRECT.match(text):
        return f"{name} would like to know {text}"
    if text.endswith(".") and not text.endswith("?"):
        return f"{name} asks you to {text}"
    return f"{name} would like to know: {text}"


def relay(sender: str, text: str, locale: str, aliases: tuple[str, ...] = ()) -> str:
    """Information passed on: who it is from, then the words."""
    lang = language(text, locale)
    name = name_in(lang, sender, aliases)
    return f"{name}让我转告：{text}" if lang == "zh" else f"{name} asked me to let you know: {text}"


def is_statement(text: str) -> bool:
    """Words that end as a statement (a request or information), not a question."""
    return bool(_STATEMENT.search(text))
