"""The frame around words passed on for someone: chosen by what they are and the language they are in. Pure.

The words arrive already rewritten for their reader (`cognitive_core.language.forwarding`): a question ends with
？ / ? (an English one in indirect word order, `whether …` / `when you …`, with .), a request with 。/ . , a
request passed on as a message starts with 请你 / 把 / its verb (`push your changes.`), information ends with 。/ . .
The frame follows the language of the words, not the reader's setting, so `老板 would like to know: 那个deck…`
never happens. Words that carry no mark (an API caller's question, an old loop) keep the question frame in the
reader's language.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff]")
_WH = frozenset({"when", "what", "where", "who", "whom", "whose", "why", "how", "which"})
# After a question word, one of these first makes a direct question (`when will …`), a subject an indirect one.
_AUX_WORDS = r"is|are|was|were|am|can|could|will|would|should|shall|may|might|must|did|do|does|has|have|had"
_AUX = re.compile(rf"(?:{_AUX_WORDS}|about|isn't|aren't|wasn't|weren't|can't|couldn't|won't|wouldn't|shouldn't"
                  r"|didn't|don't|doesn't|hasn't|haven't|hadn't)")  # fmt: skip
_SUBJECT = re.compile(
    r"(?:you|we|they|i|it|he|she|there|the|a|an|my|your|our|their|his|her|its|this|that|these|those)"
    r"(?:'(?:s|re|ve|ll|d|m))?"
)
# English words passed on that start with one of these are a request (`tell Bob to push…` → `push your changes`).
_IMPERATIVE = re.compile(
    r"^(?:send|bring|push|call|check|review|update|book|come|join|submit|finish|prepare|make|get|take|pick|fix"
    r"|share|post|email|ping|print|sign|grab|reply|respond|confirm|schedule|cancel|move|merge|deploy|close|clean"
    r"|order|buy|add|remove|upload|forward|loop|cc|stop|start|keep|remember|be|wear|use|try|ask|let)\s+"
    r"(?!(?:\w+\s+)?(?:is|are|was|were|has|have|had|will|got|moved|starts|ends)\b)\w",  # not `book club is off`
    re.I,
)
_ZH_REQUEST = re.compile(r"(?:请你|把|记得|别忘了).*(?<!了)。$")  # 把发票寄出去。: a request passed on as a message
_STATEMENT = re.compile(r"[。.]$")


def language(text: str, locale: str) -> str:
    """zh when the words are mostly Chinese, en when mostly English (`whether the 周报 is done`), else the locale."""
    cjk, latin = len(_CJK.findall(text)), len(re.findall(r"[A-Za-z]+", text))
    if cjk and cjk >= latin:
        return "zh"
    return "en" if latin else ("zh" if locale.startswith("zh") else "en")


def name_in(lang: str, display_name: str, aliases: tuple[str, ...] = ()) -> str:
    """How the sender is named in that language: in English the first Latin-script alias, if they have one."""
    if lang == "en" and _CJK.search(display_name):
        return next((a for a in aliases if re.fullmatch(r"[A-Za-z][A-Za-z .'-]*", a)), display_name)
    return display_name


def indirect(text: str) -> bool:
    """An English question in indirect word order: `if …`, `whether …`, `when you can …`, `how much it costs`."""
    words = re.findall(r"[\w']+", text.replace("’", "'"))
    if not words or words[0].lower() in ("if", "whether"):
        return bool(words)
    if words[0].lower() not in _WH:
        return False
    for word in words[1:4]:
        if _AUX.fullmatch(word.lower()):
            return False
        if _SUBJECT.fullmatch(word.lower()) or word[0].isupper() or word[0].isdigit():
            return True
    return True


def question(asker: str, text: str, locale: str, aliases: tuple[str, ...] = ()) -> str:
    """An ask as its reader reads it: a question, or a request when the words are one."""
    lang = language(text, locale)
    name = name_in(lang, asker, aliases)
    if lang == "zh":
        return (
            f"{name}请你{text.removeprefix('你')}"
            if text.endswith("。") and "？" not in text
            else f"{name}想了解：{text}"
        )
    if not text.endswith("?") and indirect(text):
        return f"{name} would like to know {text}"
    if text.endswith("."):
        return f"{name} asks you to {text}"
    return f"{name} would like to know: {text}"


def relay(sender: str, text: str, locale: str, aliases: tuple[str, ...] = ()) -> str:
    """Information passed on: who it is from, then the words; a request passed on is asked in their name."""
    lang = language(text, locale)
    name = name_in(lang, sender, aliases)
    if lang == "zh":
        if _ZH_REQUEST.match(text):
            return f"{name}请你{text.removeprefix('请你')}"
        return f"{name}让我转告：{text}"
    if _IMPERATIVE.match(text):
        return f"{name} asks you to {text}"
    return f"{name} asked me to let you know: {text}"


def unframed(message: str, sender: str, aliases: tuple[str, ...] = ()) -> str:
    """What `relay` framed, without its frame: the words a confirmation quotes (the message itself if unframed)."""
    for lang in ("zh", "en"):
        name = name_in(lang, sender, aliases)
        for frame in (f"{name}让我转告：", f"{name}请你", f"{name} asked me to let you know: ", f"{name} asks you to "):
            if message.startswith(frame):
                return message.removeprefix(frame)
    return message


def is_statement(text: str) -> bool:
    """Words that end as a statement (a request or information), not a question."""
    return bool(_STATEMENT.search(text))
