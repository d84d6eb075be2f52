"""What people mean in plain words (zh / en, no LLM): `read` a message against the intent table. Pure, no I/O.

`read` lifts priority words out, finds the people the message names (`names.named`), marks each in turn and tries
the FRAMES of `intent_table` (requests about a person: ask, tell, nudge, cancel), then its PHRASES (the sender's
own requests: status, did, quiet, pause, resume, snooze, help), then the strong frames with a name nobody has.
The first row that matches wins; its `rule` and the frame's words go into the decision (see `understood`).
How to add an intent or a phrasing: the docstring of `cognitive_core/intent_table.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cognitive_core.language import away, names, phrasing, when
from cognitive_core.language.intent_table import END, FRAMES, LEAD, PHRASES, Context

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView

_SENTENCE = re.compile(r"(?<=[.!?;\n])\s*")  # where a request may start inside a longer message
_Q = (
    r"(?:[?]\s*$|[吗嘛么呢]\s*$|了没有?\s*$|能不能|可不可以|是不是|有没有|是否"
    r"|什么时候|何时|几点|多久|怎么样|为什么|哪|谁)"
)
_EN_Q = r"(?:\?|^(?:when|what|whether|if|is|are|can|could|will|would|did|does|do|how|who|where|why)\b)"
_PRONOUN = re.compile(r"^(?:你|我|他|她|它|咱|大家|自己|一下|一声|这|那|谁)")
# A name nobody has: two or three Chinese characters, an @handle, capitalised words ("Bob", "Wang Fang"), or a
# lower-case word before a dash ("q for kevin - …").
_UNKNOWN = r"(?P<who>[\u4e00-\u9fff]{2,3}?|@\w+|(?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)|(?-i:[a-z]{3,})(?=\s+[-–—]\s))"
_NOBODY = ("me", "us", "them", "him", "her", "everyone", "everybody", "someone", "anyone", "all", "team")
_MARK = "\ue000"


@dataclass(frozen=True)
class Reading:
    """What a message means: intent, its arguments, which table row matched and on which words."""

    intent: str
    args: dict[str, Any] = field(default_factory=dict)
    rule: str = ""
    words: str = ""
    person: PersonView | None = None
    who: str | None = None  # the name as written when nobody has it
    suggestions: tuple[PersonView, ...] = ()
    ambiguous: bool = False  # could be an ask or a tell


def _compiled(pattern: str, marker: str) -> re.Pattern:
    spaced = r"\s*" + marker + r"\s*"
    return re.compile(LEAD + pattern.replace("{P}", spaced) + END, re.I | re.S)


_KNOWN = [(f, _compiled(f.pattern, f"@?{_MARK}++")) for f in FRAMES]
_STRANGER = [(f, _compiled(f.pattern, rf"@?{_UNKNOWN}\s*[,:]?\s*")) for f in FRAMES if f.strong]
_PHRASES = [(p, re.compile(rf"{LEAD}(?:{p.pattern}){END}", re.I | re.S)) for p in PHRASES]
_QUOTE = re.compile(r"^(?:>.*\n|「[^」]*」\s*|“[^”]*”\s*\n|-{3,}.*\n|—{2,}.*\n)+")
_REMINDER_FOR_ME = re.compile(r"^(?:请|麻烦)?(?:你)?(?:提醒我|remind me\b)", re.I)


def _starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _SENTENCE.finditer(text) if 0 < m.end() < len(text))]


def _body(original: str, m: re.Match, start: int) -> str:
    group = "body" if m.groupdict().get("body") is not None else "b2"
    body = phrasing.tidy(original[m.start(group) : m.end(group)]) if m.groupdict().get(group) else ""
    context = phrasing.tidy(original[:start])  # a request late in a long message: what came before is context
    glue = " " if context and context[-1].isascii() and context[-1].isalnum() else ""
    return f"{context}{glue}{body}".strip() if context else body


def _words(original: str, m: re.Match) -> str:
    """The frame's own words: the match without the message it carries."""
    group = "body" if m.groupdict().get("body") is not None else "b2"
    if m.groupdict().get(group) is None:
        return original[m.start() : m.end()].strip()
    return f"{original[m.start() : m.start(group)]}…{original[m.end(group) : m.end()]}".strip()


def _is_question(body: str) -> bool:
    folded = phrasing.simplified(body).strip()
    return bool(re.search(_Q, folded) or re.search(_EN_Q, folded, re.I))


def _frames(original: str, folded: str, people: tuple, mentions: tuple) -> Reading | None:
    for who in names.named(folded, people, mentions):
        marked = folded[: who.start] + _MARK * (who.end - who.start) + folded[who.end :]
        for start in _starts(marked):
            for frame, pattern in _KNOWN:
                m = pattern.fullmatch(marked, start)
                if m is None or (start and frame.intent != "ask"):
                    continue
                body = _body(original, m, start)
                ambiguous = frame.soft and _is_question(body)
                words = _words(original, m)
                return Reading(frame.intent, {"text": body}, frame.rule, words, who.person, ambiguous=ambiguous)
    return None


def _unknown(original: str, folded: str, people: tuple, sender_id: str | None) -> Reading | None:
    for frame, pattern in _STRANGER:
        m = pattern.fullmatch(folded)
        if m is None or _PRONOUN.match(m.group("who")) or m.group("who").lower() in _NOBODY:
            continue
        who = original[m.start("who") : m.end("who")]
        longer = original[m.start("who") : m.end("who") + 1]
        if "的" in who:  # "问张伟的那个…": a known name and its thing, not a stranger
            continue
        timed = names.looks_like_name(longer) and _time_next(original, m.end("who") + 1)
        if len(who) == 2 and (names.three_character_name(longer) or timed):
            who = longer  # "马冬梅明天开会" names 马冬梅, not 马冬
        suggestions = tuple(names.suggest(who, people, exclude=sender_id))
        after = folded[m.end("who") :]
        separated = re.match(r"\s*[,:.!\s]", after) is not None or (who.isascii() and not after.strip())
        if not suggestions and not separated and not names.nickname(who) and not names.looks_like_name(who):
            continue  # "问题是…" names nobody
        body = _body(original, m, 0)
        return Reading(frame.intent, {"text": body}, frame.rule, _words(original, m), who=who, suggestions=suggestions)
    return None


def _time_next(text: str, at: int) -> bool:
    """A time expression starts right at `at` (so the character before it still belongs to the name)."""
    found = when.parse_when(text[at:], now=datetime(2026, 1, 1, tzinfo=UTC), tz="UTC")  # any moment: only where
    return found is not None and found.span[0] == 0


def _away(said: away.Said, original: str) -> Reading:
    """One's own absence or return (`away.read`): read before the frames, so "ping Bob while I'm out" asks nobody."""
    words = original.strip()
    if said.intent == "resume":
        return Reading("resume", {"back": True}, "resume:words", words)
    helper = said.stand_in.person_id if said.stand_in is not None else None
    args = {"status": said.status, "until": said.until, "note": words, "stand_in_id": helper}
    return Reading("away", args, "away:words", words)


def read(
    text: str,
    *,
    people: tuple[PersonView, ...],
    mentions: tuple[tuple[str | None, str], ...] = (),
    sender_id: str | None = None,
    now: datetime | None = None,
    tz: str = "UTC",
) -> Reading | None:
    """What `text` asks for, or None when it is no request the table knows."""
    stated = phrasing.priority(_QUOTE.sub("", phrasing.without_emoji(text)).strip())
    original = stated.rest
    folded = phrasing.simplified(original)
    if not folded:
        return None
    # "提醒我…" is for the sender (a reminder: a PHRASES row), never a tell to someone called "我".
    for_me = _REMINDER_FOR_ME.match(folded) is not None
    said = (
        None if for_me else away.read(original, people=people, mentions=mentions, sender_id=sender_id, now=now, tz=tz)
    )
    reading = _away(said, original) if said is not None else None
    if reading is None and not for_me:
        reading = _frames(original, folded, people, mentions)
    if reading is None:
        ctx = Context(now, tz)
        for phrase, pattern in _PHRASES:
            if (m := pattern.fullmatch(folded)) is not None and (args := phrase.args(m, ctx)) is not None:
                reading = Reading(phrase.intent, args, phrase.rule, original[m.start() : m.end()].strip())
                break
    if reading is None and not for_me:
        reading = _unknown(original, folded, people, sender_id)
    if reading is None:
        return None
    if stated.priority:
        reading = Reading(**{**reading.__dict__, "args": {**reading.args, "priority": stated.priority}})
    return reading
