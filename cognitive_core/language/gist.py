"""The gist of a message the intent table did not read: cues and slots found wherever they stand. Pure, no I/O.

The frames of `intent_table` need a verb, a person and a body in one of a few orders; people also write the
person first (`刘洋 问问他合同寄出去没有`), run sentences on (`就是那个你帮我问一下刘洋啊…`), open politely
(`Would you be able to check with Priya whether…`, `Quick one for Tom: …`) or say status, cancel and nudge in
everyday words (`刘洋那个回了吗`, `跟赵敏那个事不用问了`, `give Sam a poke`). `read` looks for a known person
anywhere (`names.named`) and for the cue families below anywhere; the first family that is present decides,
the body is what is left once the person, the cue and the politeness are taken out. Anything that would contact
someone needs both a known person and an ask / tell cue; a message with neither contacts nobody.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from cognitive_core.language import names, phrasing, reminding
from cognitive_core.language.intents import Reading
from cognitive_core.language.parsing import span

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView

# Cue families, tried in this order (a cancel says 问 too; a status question says 回).
_CANCEL = (
    r"不用(?:再)?(?:问|催|找)了?|不用(?:再)?管了|别(?:再)?(?:问|催|找|管).{0,4}了|\bnm\b|不问了|算了|不用了|撤回|撤销|撤了|撤掉|取消"
    r"|\bdrop\b|never ?mind|forget (?:about )?|\bcancel\b|scrap|no need to (?:ask|chase)"
    r"|don'?t bother (?:asking|chasing)"
)
_NUDGE = r"再?催(?:一下|一催|催|下)?|再提醒(?:一?下)?|再问(?:一?下)?|follow ?up|\bchase\b|\bnudge\b|\bpoke\b"
_STATUS_ONE = (
    r"回(?:我)?了(?:吗|没有?)|回我了?没|有(?:消息|回音|回复|动静)(?:吗|没有?)|回复了(?:吗|没)|反馈了(?:吗|没)"
    r"|get back to me|gotten back|anything back|any (?:word|news|updates?)"
    r"|\b(?:has|have|did)\b.{1,30}\banswer(?:ed)?\b|有(?:消息|回音|回复)了(?:吗|没)"
    r"|\breplied\b|heard back|回了吗|回消息了(?:吗|没有?)"
    r"|^did\b.{1,30}\brepl(?:y|ied)\b"
)
_STATUS_ALL = (
    r"谁(?:还)?没回|还有谁|在等谁|在跟|都怎么样了|那些.*怎么样|outstanding|waiting on|hasn'?t replied|\bpending\b"
    r"|没\s?reply|still open|有(?:结果|回复|回音)了(?:吗|没)|没给我(?:答复|回复)|卡在谁|owes? me|where are we"
    r"|not (?:yet )?replied|没理我|ignoring me|any updates?"
)
_DID = (
    r"干了(?:啥|什么|些啥)|做了(?:什么|啥|哪些)|(?:联系|问)了(?:谁|哪些人)"
    r"|did you (?:do|contact|get done)|have you done|what have you"
)
_REMINDERS = r"(?:哪些|什么|看看|列出|查看|有啥).{0,4}提醒|提醒.{0,3}(?:有哪些|列表)|\breminders\b"
_REMIND = r"提醒(?:一下)?我(?:一下)?|叫我|remind me(?: to| about)?|ping me(?: about)?"
_BRIEF = r"简报|\bbrief\b|morning summary|有啥要我知道|今天有什么要我"
_REVIEW = r"回顾|weekly review|\breview\b"
_QUIET = (
    r"免打扰|别打扰|不要打扰|别给我发消息|don'?t bother|do not disturb|\bquiet\b|no (?:pings|messages|notifications)"
)
_PAUSE = r"别找我|暂停|\bmute\b|\bpause\b"
_RESUME = r"恢复|\bresume\b|i'?m back"
# Someone else's doing, or the sender's own plan ("Bob said he'd check", "I'll ask him later"): no request.
_THEIRS = r"(?<!'ll )(?<!'d )(?<!will )(?<!i )(?<!he )(?<!she )(?<!they )(?<!we )"
_ASK = (
    r"问一嘴|问一?下子|问一?下|问问|问一?哈|问他|问她|问(?![我题了过])|瞅瞅|看看"
    rf"|{_THEIRS}check(?:ing)?(?: with| w/)(?: 一下)?|{_THEIRS}(?<!to )\bcheck\b(?: 一下)?|find out(?: from)?"
    rf"|(?<![^帮]我)(?<!^我)(?:确认|核实)一?下|{_THEIRS}\bask\b|quick (?:one|q|question) for|\bq for\b|ping(?:一下)?"
)
_TELL = (
    r"说一?声|说一?下(?![周午个次班月])|告诉[他她]?|通知|转告|发个消息|let .{1,20}? know|heads up to|fyi to|pass it on"
    r"|\btell\b"
)
# What is taken out at either end of a body: politeness, pointers at the person, fillers, glue.
_LEADING = re.compile(
    r"^(?:[\s,，:：;；\-—]|would you be able to\b|could you(?: please)?\b|can (?:you|u)\b|please\b|pls\b|hey\b"
    r"|hi\b|but\b|and\b|so\b|ok(?:ay)?\b|i (?:need|want|'d like) to know\b|when you get a chance\b|with\b|from\b"
    r"|for\b|about\b|abt\b|w/|re:|him\b|her\b|[?？。.]|帮我|帮偶|帮俺|帮忙|麻烦|你去|就是那个|就是吧?|那个啥|那个|然后|嗯+|呃+"
    r"|啊|吧|嘛|哈|呗|啦|呀|的(?=[,，\s])|问他|问她|问问|问一?下|你|去|给|跟|和|那边"
    r"|在吗|在不在|一下|一声|说(?=[\u4e00-\u9fff]))+",
    re.I,
)
_TRAILING = re.compile(
    r"(?:[\s,，;；\-—?？]|ask (?:him|her)\b|can (?:you|u)(?: ask)?(?: (?:him|her))?\??|\b(?:him|her)\b|pls|please"
    r"|你帮我问问?|帮我问问?|问一?下"
    r"|你)+$",
    re.I,
)
_SEP = re.compile(r"^[\s,，、:：;；\-—.。!！]+|[\s,，、:：;；\-—]+$")


def read(
    text: str, *, people: tuple[PersonView, ...], sender_id: str | None, now: datetime | None, tz: str
) -> Reading | None:
    """The gist of `text` as a Reading (rule `gist:<family>`), or None when no family's cue is there."""
    stated = phrasing.priority(phrasing.without_emoji(text))
    original = stated.rest
    folded = phrasing.simplified(original).lower()
    if not folded.strip() or re.match(r"\s*(?:转发|fwd|fw)\s*[:：]", folded):  # a forwarded message is quoted
        return None
    found = [n for n in names.named(phrasing.simplified(original), people) if n.person.person_id != sender_id]
    who = found[0] if found else None
    mine = _has(_REMIND, folded) is not None and not re.search(r"再提醒", folded)
    reading = _about(original, folded, who) if who and not mine else _own(original, folded, now, tz)
    if reading is not None and stated.priority:
        reading = Reading(**{**reading.__dict__, "args": {**reading.args, "priority": stated.priority}})
    return reading


def _has(pattern: str, folded: str) -> re.Match | None:
    return re.search(pattern, folded, re.I)


def _about(original: str, folded: str, who: names.Named) -> Reading | None:
    told = _has(_TELL, folded)
    for intent, cue in (("cancel", _CANCEL), ("nudge", _NUDGE), ("status", _STATUS_ONE)):
        # After "说一下" a 取消 is what is said ("…说一下，下午的会取消了"), not a cancel.
        if (m := _has(cue, folded)) is not None and (told is None or told.start() > m.start()):
            return Reading(intent, {"text": ""}, f"gist:{intent}", m.group(0), who.person)
    if _has(_REMIND, folded) and not re.search(r"再提醒", folded):
        return None  # "提醒我给Sam发合同": the sender's own reminder (read by `_own`), never a message to Sam
    ask, tell = _has(_ASK, folded), _has(_TELL, folded)
    if ask is None and tell is None:
        return None
    intent = "tell" if tell is not None and (ask is None or tell.start() < ask.start()) else "ask"
    if intent == "tell" and ask is not None and re.match(r"问", ask.group(0)):
        intent = "ask"  # "跟Sam说…问他…": the question wins
    cue = ask if intent == "ask" else tell
    body = _body(original, folded, who, cue)
    return Reading(intent, {"text": body}, f"gist:{intent}", cue.group(0), who.person)


def _body(original: str, folded: str, who: names.Named, cue: re.Match) -> str:
    """The message once the person, the cue and the politeness are out (positions are the same in both)."""
    start, end = cue.start(), cue.end()
    if (before := re.search(r"(?:你帮我|帮我|你去|你|麻烦|帮忙)\s*$", original[:start])) and before.start() >= who.end:
        start = before.start()  # "…你问下他…": the words around the cue are the cue's
    # "问下他 今天…" / "ask him if…": the pronoun is whom to ask; in "问问他报销单交了没" it is also who did it
    end += len(m.group(0)) if (m := re.match(r"\s*(?:[他她](?=[\s,，])|him\b|her\b)", original[end:], re.I)) else 0
    cut = sorted([(who.start, who.end), (start, end)])
    kept = original
    for start, end in reversed(cut):
        kept = kept[:start] + " " + kept[end:]
    for _ in range(3):  # the ends may nest: "，你帮我问问"
        kept = _TRAILING.sub("", _LEADING.sub("", kept.strip()))
    return _SEP.sub("", re.sub(r"\s{2,}", " ", kept)).strip()


def _own(original: str, folded: str, now: datetime | None, tz: str) -> Reading | None:
    if _has(_REMINDERS, folded):
        return Reading("reminders", {}, "gist:reminders", "")
    if (m := _has(_REMIND, folded)) is not None and now is not None:
        rest = (original[: m.start()] + " " + original[m.end() :]).strip()
        rest = re.sub(r"(?i)^(?:记得|别忘了|等下|等会儿?|待会儿?|please|pls)\s*", "", rest)
        rest = re.sub(r"^过\s*(\S{1,4}?(?:分钟|小时|钟头))(?!后)", r"\1后", rest)  # "过10分钟提醒我…"
        if reminding.read(rest, now=now, tz=tz) is not None:
            return Reading("remind", {"rest": rest}, "gist:remind", m.group(0))
        if (alone := reminding.read(f"{rest} {original}", now=now, tz=tz)) is not None and alone[2] == rest:
            return Reading("remind", {"rest": f"{rest} {original}"}, "gist:remind", m.group(0))  # "10分钟后提醒我"
        return None
    for intent, cue in (("status", _STATUS_ALL), ("did", _DID), ("brief", _BRIEF), ("review", _REVIEW)):
        if (m := _has(cue, folded)) is not None:
            args = {"today": True} if intent == "did" and re.search(r"今天|today", folded) else {}
            return Reading(intent, args, f"gist:{intent}", m.group(0))
    if _has(_QUIET, folded) and now is not None:
        windows = phrasing.quiet_windows(original, now=now, tz=tz)
        after = re.search(r"after (\d{1,2})\s*(pm|am)?|(\d{1,2}|[一二三四五六七八九十])点(?:以后|之后|后)", folded)
        if not windows and after:
            said = after.group(1) or after.group(3)
            hour = int(said) if said.isdigit() else "一二三四五六七八九十".index(said) + 1
            hour += 12 if (after.group(2) or "pm") == "pm" else 0  # "九点以后" / "after 9": the evening
            windows = [{"start": f"{hour % 24:02d}:00", "end": "08:00"}]
        if windows:
            return Reading("quiet", {"windows": windows}, "gist:quiet", "")
    if _has(_PAUSE, folded) and (days := _days(folded)) is not None:
        return Reading("pause", {"duration": days}, "gist:pause", "")
    if _has(_RESUME, folded):
        return Reading("resume", {}, "gist:resume", "")
    return None


def _days(folded: str) -> timedelta | None:
    m = re.search(r"(\d{1,3}|[一二两三四五六七八九十])\s*(?:个)?\s*(天|days?|小时|hours?)", folded)
    if m is None:
        return None
    n = int(m.group(1)) if m.group(1).isdigit() else "一二三四五六七八九十".find(m.group(1).replace("两", "二")) + 1
    return span(str(n), "d" if m.group(2)[0] in "天d" else "h")
