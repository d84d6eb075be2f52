"""The answer to "why am I getting this?" under a proactive message, and to "too many messages" (zh / en). Pure.

`explain` says who asked, when (in the reader's timezone), what this message is (the question, its n-th follow-up,
an escalation, a promise's check-in, a message passed on) and what comes next: the next reminder and when, that the
person's manager would be asked to follow up and when, or that nothing more will come.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from kernel.catalogue import Catalogue
from kernel.moments import when

_TEXTS: dict[str, dict[str, str]] = {
    "question": {
        "zh": "{asker}在 {asked} 请我问你：“{text}”。",
        "en": "{asker} asked me {asked} to ask you: “{text}”.",
    },
    "follow_up": {
        "zh": "{asker}在 {asked} 请我问你：“{text}”，这是第{n}次跟进。",
        "en": "{asker} asked me {asked} to ask you: “{text}”. This is follow-up {n}.",
    },
    "check_in": {
        "zh": "你答应过{asker}：“{text}”（{asker}在 {asked} 问的），这是到期的确认。",
        "en": "You promised {asker}: “{text}” ({asker} asked {asked}); this is the check-in now it's due.",
    },
    "escalation": {
        "zh": "{asker}在 {asked} 请我问{target}：“{text}”，{target}一直没有回复，所以请你帮忙跟进。",
        "en": "{asker} asked me {asked} to ask {target}: “{text}”. {target} hasn't answered, so I asked you to "
        "follow up.",
    },
    "relay": {
        "zh": "{asker}在 {asked} 请我把这条消息转告你。",
        "en": "{asker} asked me {asked} to pass this message on to you.",
    },
    "next_follow_up": {
        "zh": "还没回复的话，下一次提醒在 {at}。",
        "en": "If there's no answer, the next reminder comes {at}.",
    },
    "next_escalation": {
        "zh": "之后不会再提醒你；到 {at} 还没有回复的话，会请{manager}跟进。",
        "en": "There will be no more reminders; if there's still no answer by {at}, {manager} will be asked to "
        "follow up.",
    },
    "next_repeat": {
        "zh": "没有人接手的话，{at} 会再提醒你一次。",
        "en": "If nobody takes it, I'll remind you once more {at}.",
    },
    "next_none": {"zh": "之后不会再为这件事提醒你。", "en": "You won't get more reminders about this."},
    "closed": {"zh": "这件事已经结束了，不会再有提醒。", "en": "This is closed now; no more reminders will come."},
    # "Too many messages": what changed, in the person's words.
    "fewer_cap": {
        "zh": "好的，以后每天最多给你发 {after} 条主动消息。",
        "en": "OK, from now on at most {after} messages a day from me.",
    },
    "fewer_stretch": {
        "zh": "好的，以后跟进会隔得更久一些（间隔为原来的 {after} 倍）。",
        "en": "OK, I'll wait longer between reminders from now on ({after}× the usual gap).",
    },
    "fewer_told": {"zh": "我会在{asker}的简报里说一声。", "en": "I'll mention it in {asker}'s daily brief."},
    "fewer_at_most": {
        "zh": "已经调到最少了：每天最多 1 条，跟进间隔也已最长。想暂停一段时间的话，发“/pause 3d”即可。",
        "en": "That's already the least: at most 1 a day and the longest gaps. To pause for a while, send /pause 3d.",
    },
}
TEXTS = Catalogue("concern.why", _TEXTS)
CLIP = 60  # the question, quoted: the message it explains is right above


@dataclass(frozen=True)
class Why:
    """What the trace says about one message: who asked and when, what it is, and what comes next."""

    kind: str  # question | follow_up | check_in | escalation | relay
    asker: str
    asked_at: datetime
    text: str = ""
    number: int = 0  # which follow-up this is (follow_up)
    target: str = ""  # who was asked (escalation)
    next_kind: str | None = None  # follow_up | escalation | repeat; None: nothing more comes
    next_at: datetime | None = None
    manager: str = ""  # who would be asked to follow up (next_kind escalation)
    closed: bool = False  # the loop ended: nothing more comes


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= CLIP else text[: CLIP - 1] + "…"


def _next(why: Why, locale: str, tz: ZoneInfo, now: datetime) -> str:
    if why.closed:
        return TEXTS.text("closed", locale)
    at = when(why.next_at, tz, locale, now=now) if why.next_at is not None else ""
    if why.next_kind == "follow_up" and at:
        return TEXTS.text("next_follow_up", locale, at=at)
    if why.next_kind == "escalation" and at and why.manager:
        return TEXTS.text("next_escalation", locale, at=at, manager=why.manager)
    if why.next_kind == "repeat" and at:
        return TEXTS.text("next_repeat", locale, at=at)
    return TEXTS.text("next_none", locale)


def explain(why: Why, locale: str, *, tz: ZoneInfo, now: datetime) -> str:
    """The answer to "why this?" in the reader's language, times in their timezone."""
    asked = when(why.asked_at, tz, locale, now=now)
    head = TEXTS.text(
        why.kind, locale, asker=why.asker, asked=asked, text=_clip(why.text), n=str(why.number), target=why.target
    )
    return f"{head}{'' if locale == 'zh' else ' '}{_next(why, locale, tz, now)}"


def fewer(field: str | None, after: float | None, locale: str, *, told: str | None = None) -> str:
    """What "too many messages" changed (the daily cap, the follow-up stretch, or nothing: both at their limit), and
    whose brief will mention it (`told`, a display name; None: nobody's)."""
    if field is None or after is None:
        return TEXTS.text("fewer_at_most", locale)
    key = "fewer_cap" if field == "max_proactive_contacts_per_day" else "fewer_stretch"
    said = TEXTS.text(key, locale, after=f"{after:g}")
    if told is None:
        return said
    return f"{said}{'' if locale == 'zh' else ' '}{TEXTS.text('fewer_told', locale, asker=told)}"
