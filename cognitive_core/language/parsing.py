"""Pure parsing of chat commands (zh and en) into intents; no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta

_UNITS = {"m": 60, "h": 3600, "d": 86400, "分钟": 60, "分": 60, "小时": 3600, "个小时": 3600, "天": 86400, "日": 86400}
_SPAN = r"(\d{1,4})\s*(个小时|小时|分钟|分|天|日|[mhd])"
_HHMM = r"([01]?\d|2[0-3]):([0-5]\d)"
CONCERN_ID = r"con_\d{8}_\d{3,}"


@dataclass(frozen=True)
class Intent:
    """What a message asks for: a name and its arguments."""

    name: str
    args: dict = field(default_factory=dict)


def span(amount: str, unit: str) -> timedelta:
    """`2`, `h` → 2 hours (units m/h/d and 分钟/小时/天)."""
    return timedelta(seconds=int(amount) * _UNITS[unit])


_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("ask", re.compile(r"^/ask\s+(?P<who>\S+)\s+(?:(?P<prio>P[0-3])\s+)?(?P<text>.+)$", re.S | re.I)),
    ("ask", re.compile(r"^(?:帮我)?(?:问一下|问问|问下)\s*(?P<who>[^：:，,\s]+?)\s*[：:，,]\s*(?P<text>.+)$", re.S)),
    ("ask", re.compile(r"^ask\s+(?P<who>[^:：]+?)\s*[:：]\s*(?P<text>.+)$", re.S | re.I)),
    ("tell", re.compile(r"^/tell\s+(?P<who>\S+)\s+(?:(?P<prio>P[0-3])\s+)?(?P<text>.+)$", re.S | re.I)),
    ("tell", re.compile(r"^(?:帮我)?(?:告诉|通知)\s*(?P<who>[^：:，,\s]+?)\s*[：:，,]\s*(?P<text>.+)$", re.S)),
    ("tell", re.compile(r"^tell\s+(?P<who>[^:：]+?)\s*[:：]\s*(?P<text>.+)$", re.S | re.I)),
    ("concerns", re.compile(r"^(?:/concerns|在等谁[？?]?|who am i waiting for\??)$", re.I)),
    ("cancel", re.compile(rf"^(?:/cancel|取消|cancel)\s*(?P<concern_id>{CONCERN_ID})$", re.I)),
    ("did", re.compile(r"^/did(?:\s+(?P<rest>.*))?$", re.I | re.S)),
    ("today", re.compile(r"^(?:今天做了什么|今天干了什么|what did you do(?: today)?)[？?]?$", re.I)),
    ("bind", re.compile(r"^(?:/start|bind|绑定)\s+(?P<code>[A-Za-z0-9]{8,32})$", re.I)),
    ("quiet", re.compile(rf"^(?:/quiet|免打扰)\s*(?P<start>{_HHMM})\s*[-~～到至]\s*(?P<end>{_HHMM})$", re.I)),
    ("pause", re.compile(rf"^(?:/pause|暂停|pause)\s*{_SPAN}$", re.I)),
    ("resume", re.compile(r"^(?:/resume|/back|恢复|resume)$", re.I)),
    ("away", re.compile(r"^/away(?:\s+(?P<rest>.*))?$", re.I | re.S)),
    ("snooze", re.compile(rf"^(?:/later|later|稍后|晚点)\s*{_SPAN}$", re.I)),
    ("brief", re.compile(r"^(?:/brief|简报|今天的简报|今日简报)(?:\s*(?P<all>all|全部))?$", re.I)),
    ("review", re.compile(r"^(?:/review|周报|本周回顾)$", re.I)),
    ("help", re.compile(r"^(?:/help|/start|帮助|help|\?|？)$", re.I)),
    ("reminders", re.compile(r"^(?:/reminders|我的提醒|提醒列表|my reminders)[？?]?$", re.I)),
    ("remind", re.compile(r"^(?:/remind|remind me(?:\s+to)?)\s+(?P<rest>.+)$", re.S | re.I)),
    ("remind", re.compile(r"^(?:帮我)?提醒我\s*(?P<rest>.+)$", re.S)),
]


# Commands the bot knows by their slash name (`/later` is the snooze command).
SLASH_COMMANDS = {
    "ask": "ask",
    "tell": "tell",
    "concerns": "concerns",
    "cancel": "cancel",
    "did": "did",
    "start": "start",
    "quiet": "quiet",
    "pause": "pause",
    "resume": "resume",
    "back": "resume",
    "away": "away",
    "later": "later",
    "snooze": "later",
    "brief": "brief",
    "review": "review",
    "help": "help",
    "remind": "remind",
    "reminders": "reminders",
}
_SLASH = re.compile(r"^/([A-Za-z_]+)(?:@\w+)?(?=\s|$)")
# A keyword command written without a slash, when what follows cannot be read: its usage hint, not the help.
_KEYWORD_HEADS = re.compile(
    r"^(?:(免打扰|暂停|取消|稍后|绑定|提醒我)(?=[\s\d:：]|$)|(bind|pause|cancel|later)\b)", re.I
)
_KEYWORD_COMMAND = {
    "免打扰": "quiet",
    "暂停": "pause",
    "取消": "cancel",
    "稍后": "later",
    "绑定": "bind",
    "提醒我": "remind",
    "bind": "bind",
    "pause": "pause",
    "cancel": "cancel",
    "later": "later",
}
# Bare acknowledgements: not an answer (compared without spaces, punctuation or emoji, case-folded).
ACKNOWLEDGEMENTS = frozenset(
    {
        "收到",
        "收到了",
        "好的",
        "好",
        "好滴",
        "好哒",
        "嗯",
        "嗯嗯",
        "哦",
        "知道了",
        "明白",
        "明白了",
        "了解",
        "我看下",
        "我看看",
        "我看一下",
        "稍等",
        "等下",
        "马上",
        "在看了",
        "谢谢",
        "好的谢谢",
        "收到谢谢",
        "ok",
        "okay",
        "okk",
        "k",
        "kk",
        "gotit",
        "gotcha",
        "noted",
        "roger",
        "willdo",
        "sure",
        "thanks",
        "thx",
        "thankyou",
        "illcheck",
        "letmecheck",
        "onit",
        "👍",
    }
)


def slash_command(text: str) -> str | None:
    """`/ask@deputy_bot …` → `ask`; an unknown `/foo` → `/foo`; None when the text is not a slash command."""
    match = _SLASH.match(text.strip())
    if not match:
        return None
    return SLASH_COMMANDS.get(match.group(1).lower(), f"/{match.group(1)}")


def keyword_command(text: str) -> str | None:
    """The command a slash-less keyword (`免打扰 …`, `暂停 …`) starts, or None."""
    match = _KEYWORD_HEADS.match(text.strip())
    return _KEYWORD_COMMAND[(match.group(1) or match.group(2)).lower()] if match else None


def is_acknowledgement(text: str) -> bool:
    """`收到` / `好的👌` / `OK.` / `got it`: a bare acknowledgement, not an answer."""
    bare = re.sub(r"[\W_]+", "", text.casefold())
    return bare in ACKNOWLEDGEMENTS or (not bare and bool(text.strip()) and text.strip() not in ("?", "？"))


def _norm_time(value: str) -> str:
    hours, minutes = value.split(":")
    return f"{int(hours):02d}:{minutes}"


def parse(text: str) -> Intent | None:
    """The command in `text`, or None when it is free text."""
    text = re.sub(r"^/([A-Za-z_]+)@\w+", r"/\1", text.strip())  # `/ask@deputy_bot` in groups
    for name, pattern in _PATTERNS:
        match = pattern.match(text)
        if not match:
            continue
        groups = {k: v for k, v in match.groupdict().items() if v is not None}
        if name in ("pause", "snooze"):
            amount, unit = match.groups()[-2:]
            return Intent(name, {"duration": span(amount, unit)})
        if name == "quiet":
            return Intent(name, {"start": _norm_time(groups["start"]), "end": _norm_time(groups["end"])})
        if name in ("remind", "away"):
            return Intent(name, {"rest": groups.get("rest", "").strip()})
        if name == "did":
            return Intent(name, _did_args(groups.get("rest", "")))
        if name == "today":
            return Intent("did", {"today": True})
        if "text" in groups:
            groups["text"] = groups["text"].strip()
        return Intent(name, groups)
    return None


def _did_args(rest: str) -> dict:
    args: dict = {"window": timedelta(hours=24)}
    for token in rest.split():
        if match := re.fullmatch(r"(\d{1,4})([mhd])", token):
            args["window"] = span(*match.groups())
        elif token.startswith("@") or token.startswith("p_"):
            args["who"] = token
        elif token.lower() in ("all", "全部"):
            args["all"] = True
    return args


def strip_bot_mention(text: str) -> str:
    """Drop leading @-mentions (the bot's name in a group message)."""
    return re.sub(r"^(?:@\S+\s*)+", "", text.strip())
