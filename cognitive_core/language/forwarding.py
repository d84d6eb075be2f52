"""The principal's words rewritten for the person who will read them (zh / en). Pure, no I/O.

`rewrite` turns what the principal said about someone into what is said to them: the reader's 他 / 她 / he /
she / his / her become 你 / you / your, the principal's 我 / I / me / my become their name (我们 / we stay),
fillers, emotional asides and urgency words are left out (the priority was lifted already), a "reply within an
hour" clause is left out (it is the deadline), and the words end as what they are: a question with ？ / ?, a
request or information with 。/ . . `concern.texts.forwarding` puts the frame around them by that ending.
"""

from __future__ import annotations

import re

from concern.texts.forwarding import language, name_in

_CJK = r"\u3400-\u9fff"
# Fillers and asides a colleague passing the message on would leave out (zh: anywhere; en: as whole words).
_ZH_FILLERS = re.compile(
    r"那个啥|就是那个|就是说|那什么|哈哈+|嘿嘿|呵呵|急死了?|急急急|烦死了|嗯+|呃+|那个|啊|呗|哈(?=[\s，,]|$)"
)
_EN_FILLERS = re.compile(r"\b(?:lol|haha+|um+|uh+|pls|plz|please|like,)\s*", re.I)
_URGENT = re.compile(r"赶紧|赶快|十万火急|十分火急|火速|尽快|不着急|不急|^急[!！\s]*|[\s，,]急[!！]?$", re.I)
# A clause that only says when to answer: the deadline, lifted out of the words.
_REPLY_BY = re.compile(
    r"(?:^|[\s，,;；—-]+)[^\s，,;；]*(?:回我|答复|回复我|回个话|要答复|给我回音)[^\s，,;；]*"
    r"|(?:^|[，,;；—-]+\s*)(?:need an answer|i need (?:it|this|an answer)|answer|reply)?\s*"
    r"(?:within the hour|within an hour|(?:by|before) (?:today|tonight|tomorrow(?: morning| afternoon)?|end of day|eod"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|tomorrow morning at the latest|at the latest)\b",
    re.I,
)
_Q_END = re.compile(r"(?:[吗嘛么呢没不]|没有|了没|是吧|对吧|好吗|行吗|[?？])$")
_Q_WORD = re.compile(r"能不能|可不可以|是不是|有没有|要不要|会不会|什么|啥|几|哪|谁|怎么|多少|多久|为什么|是否|还.不.")
_EN_DIRECT = re.compile(
    r"^(?:is|are|was|were|can|could|will|would|should|did|do|does|has|have|had|shall|may|when|what|where|who|why"
    r"|how|which)\b",
    re.I,
)
_EN_INDIRECT = re.compile(r"^(?:if|whether)\b", re.I)
_EN_SWAPS = (
    (r"\b(?:he|she) is\b", "you are"),
    (r"\b(?:he|she)'s\b", "you're"),
    (r"\b(?:he|she) has\b", "you have"),
    (r"\b(?:he|she) was\b", "you were"),
    (r"\b(?:he|she) does\b", "you do"),
    (r"\b(?:he|she)\b", "you"),
    (r"\bhis\b", "your"),
    (r"\bher(?=\s+(?!(?:to|about|if|whether|that|and|back|know|on|at|up|a|the)\b)[A-Za-z])", "your"),
    (r"\b(?:him|her)\b", "you"),
    (r"\b(?:himself|herself)\b", "yourself"),
)


def rewrite(body: str, *, intent: str, rule: str, speaker: str, aliases: tuple[str, ...] = (), words: str = "") -> str:
    """What the reader of an ask or a tell reads inside the frame (see the module docstring)."""
    text = _REPLY_BY.sub("", body)
    text = _URGENT.sub("", text)
    lang = language(text, "zh")
    name = name_in(lang, speaker, aliases)
    text = _zh(text, name) if lang == "zh" else _en(text, name)
    text = re.sub(r"^[\s,，、:：;；.。!！-]+|[\s,，、:：;；.。!！?？~…-]+$", "", text).strip()
    if not text:
        return body.strip()
    asked = intent == "ask" and not rule.endswith("have_them")
    if lang == "zh":
        return _zh_end(text, asked, rule, words)
    return _en_end(text, asked)


def _zh(text: str, name: str) -> str:
    text = re.sub(r"[他她]那个", "你的", text)
    text = _ZH_FILLERS.sub("", text)
    text = re.sub(r"^让[他她]", "", text)
    text = re.sub(r"[他她](?![们妈爸])", "你", text)
    text = re.sub(r"我(?![们司方])", name, text)
    return re.sub(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])", "", text) if " " in text.strip() else text


def _zh_end(text: str, asked: bool, rule: str, words: str) -> str:
    question = _Q_END.search(text) is not None or _Q_WORD.search(text) is not None
    if asked and not question and "确认" in words:
        return f"确认一下{text}。"
    if asked and not question and "要" in words:  # 找张三要一下运营数据: a request for the thing
        return f"提供一下{text}。"
    if asked and question:
        return f"{text}？"
    if asked and rule.endswith("have_them"):
        return f"{text}。"
    return f"{text}？" if asked else f"{text}。"


def _en(text: str, name: str) -> str:
    text = _EN_FILLERS.sub("", text)
    text = re.sub(r"\b(?:ask|tell) (?:him|her)\b\s*$", "", text, flags=re.I)
    for pattern, word in _EN_SWAPS:
        text = re.sub(pattern, word, text, flags=re.I)
    text = re.sub(r"\bI'm\b|\bI am\b", f"{name} is", text)
    text = re.sub(r"\bI'll\b", f"{name} will", text)
    text = re.sub(r"\bI've\b|\bI have\b", f"{name} has", text)
    text = re.sub(r"\bI\b", name, text)
    text = re.sub(r"\bmy\b", f"{name}'s", text, flags=re.I)
    return re.sub(r"\bme\b", name, text, flags=re.I)


def _en_end(text: str, asked: bool) -> str:
    if not asked:
        return f"{text}."
    if _EN_INDIRECT.match(text):
        return f"{text}."
    if _EN_DIRECT.match(text):
        words = text.split()
        indirect = len(words) > 1 and words[0].lower() in ("when", "what", "where", "who", "why", "how", "which")
        second = words[1].lower() if len(words) > 1 else ""
        aux = ("is", "are", "was", "were", "can", "could", "will", "would", "should", "did", "do", "does", "has")
        if indirect and second not in (*aux, "have", "had", "much", "many", "long", "time"):
            return f"{text}."
        return f"{text}?"
    return f"{text}?"
