"""The intent table: how each request may be phrased (zh / en). Data and small pure helpers; `intents.read` uses it.

Adding an intent (or a phrasing of one) is adding a row:
- a request about a person: a `Frame` in FRAMES. `{P}` in the pattern is where the person stands (any name,
  alias, id or mention), `(?P<body>…)` the message passed on. `strong=True` frames also read an unknown name in
  `{P}` (the bot then asks "did you mean …?"); `soft=True` frames (跟…说, let … know) become "ask or tell?" when
  the body is a question. The decision is made in `understood.about_someone` (add a branch for a new intent).
- a request without a person: a `Phrase` in PHRASES, with a pattern over the whole message and an `args`
  function turning the match into the intent's arguments (None: "not this after all", the next row is tried).
  Its decision is made in `understood.own` (add a branch for a new intent).
A reminder for oneself ("提醒我…", "remind me…") is only ever read by PHRASES: the person frames are skipped
for it, so "提醒我" never tells someone called "我". Issue 13's phrasings (简报, 周报, 提醒我…) go in as PHRASES rows.
Rows are tried in order, the first match wins (so "不用问张三了" is a cancel before "问张三" can be an ask).
Patterns are matched on the simplified, emoji-free text (traditional characters and full-width punctuation
folded), case-insensitively, with optional politeness in front (请 / 麻烦 / please / can you …) and particles
after (吧 / 了 / thanks). Then run the corpus: tests/unit/cognitive_core/test_corpus.py (pytest -s prints it).
"""

# ruff: noqa: E501 (a phrasing reads best as one row; Chinese characters count double towards the width)

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from cognitive_core.language import phrasing
from cognitive_core.language.parsing import span

# Politeness before a request and particles after it: neither changes what is asked.
LEAD = (
    r"(?:(?:请|麻烦(?:你)?|劳驾|帮忙|你|的(?=[\s,])|hi|hey|ok|okay|pls|plz|please|can you|could you|can u|could u"
    r"|would you|would you mind|would you be (?:so kind as to|able to)|i was wondering if you could"
    r"|i wonder if you could|any chance you could|mind|"
    r"i need you to|i want you to|go|quickly|quick|有空(?:的时候|的话)?|方便(?:的话|时)?|回头|顺便)[\s,.:!]*)*"
)
END = r"[\s.!?,~…。]*(?:了|的|呢|吧|呀|啊|哈|哦|谢谢|thanks|thx|please|pls)?[\s.!?,~…]*"


@dataclass(frozen=True)
class Frame:
    """A way to ask for something about a person; see the module docstring."""

    intent: str
    pattern: str
    rule: str
    strong: bool = False
    soft: bool = False


@dataclass(frozen=True)
class Phrase:
    """A way to ask for something about the sender's own bot; see the module docstring."""

    intent: str
    pattern: str
    rule: str
    args: Callable[[re.Match, Context], dict | None] = lambda m, c: {}


@dataclass(frozen=True)
class Context:
    """What the `Phrase.args` functions may read: the clock and the sender's timezone."""

    now: datetime | None
    tz: str


_ASK_ZH = (
    r"(?:帮我|替我|帮偶|帮俺|帮忙|你)?(?:去|再)?"
    r"(?:问一下|问一问|问问看|问问|问一?哈|问下|问|ask(?=\s*(?:一下|下))|wen(?=一下|下)|[闻文](?=一下|下))"  # 闻/文: voice input's 问
)
_TELL_ZH = r"(?:帮我|替我|帮忙|你)?(?:去)?(?:告诉|通知|转告|提醒|知会)(?:一下|下)?"
_NUDGE_ZH = r"(?:帮我|替我|你)?(?:再)?(?:催一下|催一催|催催|催下|催)"
FRAMES: tuple[Frame, ...] = (
    # cancel before ask: "不用问张三了" is no ask
    Frame("cancel", r"(?:不用|别|不要|无需)(?:再)?(?:问|催|找|跟进)(?:了)?{P}(?P<body>.*?)了?", "cancel:zh:no_more", True),
    Frame("cancel", r"(?:取消|撤回|撤销)(?:一下)?(?:问|给|对|找)?{P}的?(?P<body>.*?)", "cancel:zh:cancel_to"),
    Frame("cancel", r"(?:cancel|drop|withdraw)\s+(?:the|my)\s+(?:question|ask|request)s?"
          r"\s+(?:to|for)\s+{P}(?P<body>.*)", "cancel:en:cancel_to"),
    Frame("cancel", r"(?:never\s?mind|forget)\s+(?:about\s+)?(?:asking\s+)?{P}(?P<body>.*)", "cancel:en:never_mind"),
    Frame("cancel", r"(?:stop|don't|do not)\s+(?:asking|chasing|pinging|bugging)\s+{P}(?P<body>.*)",
          "cancel:en:stop_asking"),
    Frame("cancel", r"(?:问|催|找|给){P}的?(?:那个|这个)?(?:事|问题)?(?:就)?(?:算了|不用了|不问了|取消(?:掉)?|撤了|撤回)",
          "cancel:zh:that_one_off"),
    Frame("nudge", r"(?:帮我|替我|你)?(?:再)?(?:去)?(?:追|跟催)(?:一下|下)?{P}(?:一下)?", "nudge:zh:chase"),
    Frame("nudge", r"(?:再|又)(?:去)?(?:问问|问一下|问下|找)(?:一下)?{P}(?:一下)?", "nudge:zh:again"),
    Frame("nudge", r"(?:follow up|chase|ping|nudge|bump|poke)\s+(?:with\s+)?{P}"
          r"(?:\s*(?:again|once more|on (?:that|it|this)|about (?:that|it|this)|pls|please))*", "nudge:en:bare"),
    Frame("nudge", r"bump\s+{P}", "nudge:en:bump", True),
    Frame("nudge", rf"{_NUDGE_ZH}(?:一下)?{{P}}(?:一下|下(?![周午个次班月面载单雨]))?(?:的)?(?P<body>.*)", "nudge:zh:cui", True),
    Frame("nudge", r"(?:nudge|chase|ping|poke|remind)\s+{P}\s+(?:again|once more)(?P<body>.*)", "nudge:en:again"),
    Frame("nudge", r"(?:nudge|poke)\s+{P}(?:\s+(?:about|on|for|re:?))?(?P<body>.*)", "nudge:en:nudge", True),
    Frame("nudge", r"chase\s+{P}", "nudge:en:chase", True),
    Frame("ask", rf"{_ASK_ZH}(?:一下|以下|下)?{{P}}(?:一下|下(?![周午个次班月面载单雨]))?(?:[啊嘛呀啦哈呗][\s,]*)?"
          r"(?:就是(?!说))?(?!的(?:那个|事|问题))(?P<body>.*)", "ask:zh:verb_first", True),
    Frame("ask", r"(?:帮我|替我|你)?(?:跟|和|向|找)(?:一下)?{P}(?:确认|核实|核对|了解|打听|问|要)(?:一下|下)?(?P<body>.+)",
          "ask:zh:confirm_with", True),
    Frame("ask", r"(?:帮我|替我)?(?:跟进|追)(?:一下|下)?{P}(?:的|那边的?)?(?P<body>.+)", "ask:zh:follow_up", True),
    Frame("ask", r"(?:帮我)?(?:让|叫|请){P}(?P<body>.{2,})", "ask:zh:have_them"),
    Frame("ask", r"{P}(?:那边|那里)?(?:的)?(?P<body>.+?)[\s,]*(?:帮我|你|麻烦)?(?:去)?(?:问一下|问问|问下)(?:他|她)?",
          "ask:zh:name_then_verb"),
    Frame("ask", r"(?P<body>.+?)[\s,]*(?:帮我|你|麻烦)?(?:去)?(?:问一下|问问|问下|确认一下|确认下)(?:一下)?{P}",
          "ask:zh:body_first"),
    Frame("tell", rf"{_TELL_ZH}{{P}}(?:一声|一下|下(?![周午个次班月面载单雨]))?(?P<body>.+)", "tell:zh:verb_first", True),
    Frame("tell", r"(?:帮我|替我|你)?(?:跟|和|给|对){P}(?:说|讲|带个话|带句话)(?:一声|一下|下)?(?P<body>.+)",
          "tell:zh:say_to", True, soft=True),
    Frame("tell", r"(?P<body>.+?)[\s,]*(?:帮我|你)?(?:告诉|通知|转告|转达给)(?:一下|下)?{P}(?:看一下|看下|一下|一声|下)?",
          "tell:zh:body_first"),
    Frame("ask", r"(?:ask|aks|asks|asking|check(?:ing)? with|find out from|follow up with|chase|query|confirm with"
          r"|check in with)\s+{P}(?:\b(?:about|abt|on|for|re)\b:?\s*)?(?P<body>.+)", "ask:en:verb_first", True),
    Frame("ask", r"(?:reach out to|ping|message|contact)\s+{P}\s+and\s+ask(?:\s+(?:him|her))?\s+(?P<body>.+)",
          "ask:en:reach_and_ask"),
    Frame("ask", r"(?:quick\s+(?:one|q|question)|q)\s+for\s+{P}\s*[:\-–—,]\s*(?P<body>.+)", "ask:en:q_for", True),
    Frame("ask", r"(?:find out|check|see|confirm)\s+(?:from|with)?\s*{P}\s+(?P<body>.+)", "ask:en:find_out"),
    Frame("ask", r"(?:find out|check|see|confirm)\s+(?P<body>.+?)\s+(?:from|with)\s+{P}", "ask:en:body_first"),
    Frame("ask", r"(?:have|get)\s+{P}\s+(?:to\s+)?(?P<body>.{4,})", "ask:en:have_them"),
    Frame("tell", r"(?:let)\s+{P}\s+know(?:\s+that)?(?P<body>.+)", "tell:en:let_know", True, soft=True),
    Frame("tell", r"(?:tell|inform|notify|remind|message|ping)\s+{P}(?:\s+(?:that|to|about))?(?P<body>.+)",
          "tell:en:verb_first", True),
    Frame("tell", r"give\s+{P}\s+a\s+heads[- ]up(?:\s+that|\s*:)?\s*(?P<body>.+)", "tell:en:heads_up"),
    Frame("tell", r"(?:fyi|heads up)\s*(?:to|for)\s+{P}\s*[:\-–—,]?\s*(?P<body>.+)", "tell:en:fyi_to"),
    Frame("tell", r"(?:pass on|pass along|relay|forward)\s+"
          r"(?:to\s+{P}\s+(?:that\s+)?(?P<body>.+)|(?P<b2>.+?)\s+to\s+{P})", "tell:en:pass_on"),
)  # fmt: skip


def _dur(m: re.Match, _: Context) -> dict | None:
    if m.groupdict().get("n") is None:
        return None
    unit = m.group("u").lower()
    unit = {"hour": "h", "hours": "h", "hr": "h", "hrs": "h", "day": "d", "days": "d", "min": "m", "mins": "m",
            "minute": "m", "minutes": "m", "周": "d", "星期": "d", "week": "d", "weeks": "d"}.get(unit, unit)  # fmt: skip
    n = phrasing_number(m.group("n"))
    if m.group("u") in ("周", "星期", "week", "weeks"):
        n *= 7
    return {"duration": span(str(n), unit)} if 0 < n < 10000 else None


def phrasing_number(words: str) -> int:
    """`3`, `三`, `两`, `半`… → int (半 counts 0: callers treat it as 30 minutes)."""
    table = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
             "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
             "a couple of": 2}  # fmt: skip
    return int(words) if words.isdigit() else table.get(words.lower(), 0)


def _snooze(m: re.Match, ctx: Context) -> dict | None:
    if m.groupdict().get("n"):
        return _dur(m, ctx)
    if m.groupdict().get("half"):
        return {"duration": timedelta(minutes=30)}
    return {"duration": timedelta(hours=2)}  # "晚点再说": the follow-up's own "later" button is 2 hours


def _pause(m: re.Match, ctx: Context) -> dict | None:
    if ctx.now is None:
        return None
    said = m.group(0)
    if m.groupdict().get("n"):
        return _dur(m, ctx)
    if re.search(r"这周|本周|this week|rest of the week", said, re.I):
        return {"until": phrasing.next_monday(ctx.now, ctx.tz)}
    if re.search(r"今天|今晚|today|tonight|rest of the day", said, re.I):
        return {"until": phrasing.tomorrow(ctx.now, ctx.tz)}
    until = phrasing.until(said, now=ctx.now, tz=ctx.tz)
    return {"until": until} if until else None


def _quiet(m: re.Match, ctx: Context) -> dict | None:
    if ctx.now is None:
        return None
    windows = phrasing.quiet_windows(m.group(0), now=ctx.now, tz=ctx.tz)
    return {"windows": windows} if windows else None


def _did(m: re.Match, _: Context) -> dict:
    said = m.group(0)
    if re.search(r"这周|本周|this week|past week|last week", said, re.I):
        return {"window": timedelta(days=7)}
    if re.search(r"今天|today", said, re.I):
        return {"today": True}
    return {"window": timedelta(hours=24)}


_N = r"(?P<n>\d{1,4}|[一二两三四五六七八九十]|an?|one|two|three|four|five|six|a couple of)"
_UNIT_ZH = r"\s*(?:个)?\s*(?P<u>小时|分钟|天|周|星期|h|m|d)"
_UNIT_EN = r"\s*(?P<u>hours?|hrs?|minutes?|mins?|days?|weeks?|h|m|d)\b"
_DISTURB_ZH = r"(?:别|不要|不用|勿|先别)(?:再)?(?:打扰|烦|找|联系|吵|给我发(?:消息|信息|通知)?|发(?:消息|信息|通知)给|发我|通知)我?"
_DISTURB_EN = (
    r"(?:don'?t|do not|no)\s+(?:bother|disturb|message|ping|contact|notify|text)(?:\s+me)?|no messages|mute|silence"
)
PHRASES: tuple[Phrase, ...] = (
    Phrase("quiet", rf".*[\d一二两三四五六七八九十].*(?:{_DISTURB_ZH}|免打扰|静音|安静).*", "quiet:zh:range", _quiet),
    Phrase("quiet", r"(?:免打扰|静音)(?:时间|时段)?(?:改成|改为|设为|设置为|设成)?.*[\d一二两三四五六七八九十].*", "quiet:zh:set",
           _quiet),
    Phrase("quiet", rf".*(?:{_DISTURB_EN}|quiet hours?|do not disturb|dnd|quiet)\b.*\d.*", "quiet:en:range", _quiet),
    Phrase("pause", rf"(?:暂停|{_DISTURB_ZH})(?:消息|通知)?\s*{_N}{_UNIT_ZH}(?:内|以内|之内)?", "pause:zh:for", _dur),
    Phrase("pause", rf".*?(?:接下来|未来)?{_N}{_UNIT_ZH}(?:内|以内|之内)?(?:都)?(?:{_DISTURB_ZH}|暂停(?:消息|通知)?)",
           "pause:zh:for_first", _dur),
    Phrase("pause", rf".*?(?:这周|本周|今天|今晚|.{{1,8}}(?:之前|以前|前))(?:都|先)?(?:{_DISTURB_ZH}|暂停)",
           "pause:zh:until", _pause),
    Phrase("pause", rf".*?(?:{_DISTURB_ZH}|暂停)(?:到|直到)(?P<rest>.+)", "pause:zh:until_after", _pause),
    Phrase("pause", rf"(?:pause|{_DISTURB_EN}|snooze (?:all|everything|notifications))"
           rf"(?:\s+(?:me|messages|notifications))?\s+(?:for\s+)?(?:the next\s+)?{_N}{_UNIT_EN}", "pause:en:for", _dur),
    Phrase("pause", rf"(?:pause|{_DISTURB_EN})(?:\s+(?:me|messages|notifications))?\s+(?:for\s+)?"
           r"(?:the\s+)?(?:rest of\s+)?(?:this week|today|the week|the day|tonight|until .+|till .+)",
           "pause:en:until", _pause),
    Phrase("pause", r"(?:i'?m|i am)\s+(?:off|out)\s+(?:until|till|for)\s+.+", "pause:en:away", _pause),
    Phrase("resume", r"(?:恢复(?:消息|通知|提醒)?|取消(?:暂停|免打扰)|可以(?:给我)?发(?:消息|通知)了|我回来了|继续(?:发|提醒)吧?)",
           "resume:zh"),
    Phrase("resume", r"(?:resume|unpause|unmute)(?:\s+(?:messages|notifications))?|i'?m back|you can message me again",
           "resume:en"),
    Phrase("snooze", rf"(?:稍后|晚点|过|等)\s*(?:{_N}{_UNIT_ZH}|(?P<half>半个?小时))?(?:后|以后|之后)?(?:再)(?:问我|提醒我|找我|说|联系我|催我)",
           "snooze:zh", _snooze),
    Phrase("snooze", rf"{_N}{_UNIT_ZH}(?:后|以后|之后)(?:再)(?:问我|提醒我|找我|说|联系我|催我)", "snooze:zh:after", _dur),
    Phrase("snooze", rf"(?:later|snooze|give me)\s*{_N}{_UNIT_EN}", "snooze:en:later", _snooze),
    Phrase("snooze", rf"(?:ask|remind|ping|check with) me (?:again )?(?:in|after)\s+{_N}{_UNIT_EN}(?: or so)?",
           "snooze:en:ask_me_in", _snooze),
    Phrase("snooze", r"(?:ask|ping|check with) me (?:again )?later|later please|not now,? later",
           "snooze:en:later_bare", _snooze),
    Phrase("status", r"(?:现在|目前|还)?(?:我们|我|你)?(?:都|还)?(?:在)?等(?:着)?(?:谁|哪些人|什么|哪些)(?:的)?(?:回复|回音|答复|回)?(?:呢|啊)?",
           "status:zh:waiting"),
    Phrase("status", r"(?:现在|目前)?(?:还)?有(?:哪些|什么|几个)(?:事|事情|问题)?(?:还)?(?:没(?:有)?(?:回|回复|答复|结束|搞定)|在等|在跟进|待回复)(?:的)?",
           "status:zh:open"),
    Phrase("status", r"(?:谁还没(?:回|回复|答复)|(?:跟进|待办|进展)(?:情况|列表)|有什么进展|进展(?:怎么样|如何)(?:了)?)",
           "status:zh:progress"),
    Phrase("status", r"(?:what|who) (?:are|am) (?:you|we|i) (?:still )?waiting (?:on|for)|"
           r"what'?s (?:still )?(?:pending|open|outstanding)|"
           r"(?:any|what) (?:open|pending|outstanding) (?:questions|items|requests|loops)|"
           r"who hasn'?t (?:replied|answered)(?: yet)?|"
           r"status(?: update)?|what'?s the status|where are we(?: at)?", "status:en"),
    Phrase("did", r"(?:你)?(?:今天|今日|这周|本周|最近|刚才)?(?:都|一共)?(?:做|干|办)了(?:(?:些|哪些)?(?:什么|啥)|哪些)(?:事|事情)?", "did:zh", _did),
    Phrase("did", r"what (?:did|have) you (?:do|done|been doing|been up to|get done)"
           r"(?: (?:today|this week|lately|so far))?|"
           r"what have you done(?: today| this week)?", "did:en", _did),
    Phrase("help", r"(?:你是谁|你(?:都)?能(?:做|干)(?:什么|啥|些什么)|你会(?:做)?(?:什么|啥)|怎么用(?:你)?|(?:怎么|如何)使用|有什么功能|帮助|使用说明)",
           "help:zh"),
    Phrase("help", r"(?:who are you|what can you do|what do you do|how do i use (?:you|this)|help me\??"
           r"|how does this work)", "help:en"),
)  # fmt: skip
