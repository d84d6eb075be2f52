"""The principal's words rewritten for the person who will read them (zh / en). Pure, no I/O.

`rewrite` turns what the principal said about someone into what is said to them: the reader's 他 / 她 / he /
she / his / her become 你 / you / your (and the verb agrees: `he needs` → `you need`, `is she` → `are you`), the
principal's 我 / I / me / my become their name (`I need` → `Ming needs`; 我们 / we stay), fillers, emotional asides
and urgency words are left out (the priority was lifted already), a "reply within an hour" clause is left out (it
is the deadline), and the words end as what they are: a question with ？ / ? (an English one in indirect order,
`whether …`, with .), a request or information with 。/ . , a request passed on as a message starting with 请你
(`跟她说让她…`) or, in English, with its verb (`tell Bob to push …`); `concern.texts.forwarding` frames them.
"""

from __future__ import annotations

import re

from cognitive_core.language import forwarding_en
from concern.texts.forwarding import indirect, language, name_in

_CJK = r"\u3400-\u9fff"
# Fillers and asides a colleague passing the message on would leave out (zh: anywhere; en: as whole words).
_ZH_FILLERS = re.compile(
    r"那个啥|就是那个|就是说|那什么|哈哈+|嘿嘿|呵呵|急死了?|急急急|烦死了|嗯+|呃+|那个|啊|呗"
    r"|[哈呀](?=[\s，,。.!！?？]|$)"
)
_URGENT = re.compile(
    r"[\[【(（]\s*(?:urgent|asap|紧急|加急|急)\s*[\]】)）]\s*"  # a tag ([urgent], 【急】) goes with its brackets
    r"|赶紧|赶快|十万火急|十分火急|火速|尽快|不着急|不急|^急[!！\s]*|[\s，,。.?？]急[!！]?$"
    r"|\b(?:urgent(?:ly)?|asap|no rush)\b[,:!]?",
    re.I,
)
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
# 跟她说一声，让她把门禁卡还了 / 告诉王五把合同带过来: a request, passed on as a message.
_PASSED_REQUEST_ZH = re.compile(r"^(?:(?:让|叫|请)[他她](?!们)|把|记得|别忘了)")


def rewrite(body: str, *, intent: str, rule: str, speaker: str, aliases: tuple[str, ...] = (), words: str = "") -> str:
    """What the reader of an ask or a tell reads inside the frame (see the module docstring)."""
    text = _REPLY_BY.sub("", body)
    text = _URGENT.sub("", text)
    lang = language(text, "zh")
    name = name_in(lang, speaker, aliases)
    text = _tidy(text)
    passed_request = intent == "tell" and lang == "zh" and _PASSED_REQUEST_ZH.match(text) is not None
    text = _tidy(_zh(text, name) if lang == "zh" else forwarding_en.addressed(text, name))
    if not text:
        return body.strip()
    if passed_request:  # 把… / 记得… read as a request as they are; 先回家 needs its 请你
        return f"{text}。" if re.match(r"把|记得|别忘了", text) else f"请你{text.removeprefix('你')}。"
    asked = intent == "ask" and not rule.endswith("have_them")
    if lang == "zh":
        return _zh_end(text, asked, words, name)
    return _en_end(text, asked)


def _tidy(text: str) -> str:
    return re.sub(r"^[\s,，、:：;；.。!！-]+|[\s,，、:：;；.。!！?？~…-]+$", "", text).strip()


def _zh(text: str, name: str) -> str:
    text = re.sub(r"[他她]那个", "你的", text)
    text = re.sub(r"我那个", "我的", text)
    text = _ZH_FILLERS.sub("", text)
    text = re.sub(r"^(?:让|叫|请)[他她](?!们)", "", text)
    text = re.sub(r"^[他她]们", "你们", text)  # 问问王五他们组…: 王五's team, said to 王五
    text = re.sub(r"[他她](?!们|妈的|娘的)", "你", text)
    # 把周报发我 → 发给周明 (at a clause's end; 发我一份 → 发周明一份 reads well as it is)
    text = re.sub(r"(?<=[发寄传交])我(?=$|[\s，,。.!！?？])", "给我", text)
    text = re.sub(r"我(?![们司方])", name, text)
    return re.sub(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])", "", text) if " " in text.strip() else text


def _zh_end(text: str, asked: bool, words: str, name: str) -> str:
    question = _Q_END.search(text) is not None or _Q_WORD.search(text) is not None
    if asked and not question and "确认" in words:
        return f"确认一下{text}。"
    if asked and not question and "要" in words:  # 找张三要一下运营数据: a request for the thing
        return f"提供一下{text}。"
    if asked and question:
        return _question_then_statement(text, name)
    return f"{text}？" if asked else f"{text}。"


def _question_then_statement(text: str, name: str) -> str:
    """`你周三有没有空，周明想约你聊聊`: the question ends with ？, a sentence with its own subject after it with 。."""
    clauses = re.split(r"(?<=[，,])", text)
    asking = [i for i, c in enumerate(clauses) if _Q_END.search(c.rstrip("，,")) or _Q_WORD.search(c)]
    last = asking[-1] if asking else len(clauses) - 1
    rest = "".join(clauses[last + 1 :])
    if rest and re.match(rf"(?:{re.escape(name)}|我们|咱们|你)", rest):
        return f"{''.join(clauses[: last + 1]).rstrip('，,')}？{rest}。"
    return f"{text}？"


def _en_end(text: str, asked: bool) -> str:
    if not asked:
        return f"{text}."
    if indirect(text):
        return f"{text}."
    return f"{text}?"
