"""The shape of a phrasing: a message with the person it names and the body it carries as slots. Pure, no I/O.

A principal's correction teaches the shape of the message that was missed: its words folded (simplified, lower
case, no emoji, no urgency words, no end punctuation) with the person named — anyone known, by name, alias, id or
mention (`names.named`) — as `{person}`, and what is asked or told as `{body}`; the cue words stay fixed. Where the
body starts is known when the request was worded again with it (`刘洋 看下报价单发了没`, then `问下刘洋报价单发了没`:
the body is `报价单发了没`); otherwise a short cue of the "do it a little" kind (`看下`, `瞄一眼`, `查查`, `确认下`)
or an English lead ending in a preposition (`eta on`, `any news re`) is the cue and what follows is the body; else
every word stays fixed (`{person}那事怎么说`). A shape keeps two fixed characters at least: `{person} {body}` would
read any sentence that names someone as a request.

`match` reads a message against a shape the same way: urgency words are lifted (the reading gets the priority),
a deadline stays in the body for the deadline reader, and the person is whoever the message names first.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cognitive_core.language import names, phrasing

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView

PERSON, BODY = "{person}", "{body}"
WITH_PERSON = frozenset({"ask", "tell", "nudge", "cancel", "status"})  # intents whose person is a slot
NEEDS_PERSON = frozenset({"ask", "tell", "nudge", "cancel"})
WITH_BODY = frozenset({"ask", "tell"})
MAX_CHARS = 120  # a longer message is a one-off, not a way of saying things
_MARK = "\ue001"  # where the person stood (a private-use character: never typed)
_SEP = r"[\s,，、:：;；\-—]*"
_ENDS = re.compile(r"^[\s,，。.!！?？~～…、:：;；\-—]+|[\s,，。.!！?？~～…、:：;；\-—]+$")
# A verb with 下 / 一下 / 一眼 or doubled (看下, 瞄一眼, 查查, 确认下); an English lead ending in a preposition.
_CUE_ZH = r"[\u4e00-\u9fff]{1,2}?(?:一下|一眼|一哈|下)|(?P<ch>[\u4e00-\u9fff])(?P=ch)"
_CUE_EN = r"(?:[a-z']+\s+){0,2}?(?:on|about|re|regarding)\b"
_CUE_AFTER = re.compile(rf"^{_SEP}(?:{_CUE_ZH}|{_CUE_EN}){_SEP}(?P<body>\S.*)$", re.I | re.S)
_CUE_BEFORE = re.compile(rf"^{_SEP}(?:{_CUE_ZH}|{_CUE_EN}){_SEP}$", re.I)
# Words too common to say that two messages are about the same thing.
_COMMON_WORDS = "一下 帮我 我们 你们 什么 怎么 这个 那个 一声 了吗 了没 没有 问下 问问 告诉 那边 现在 " + (
    "the and for you can did has have with that this what when ask tell"
)
_COMMON = frozenset(_COMMON_WORDS.split())


@dataclass(frozen=True)
class Said:
    """A message as shapes read it: its words (urgency lifted, ends trimmed), the same folded, the priority said."""

    words: str
    folded: str
    priority: str | None


@dataclass(frozen=True)
class Found:
    """A message a shape matched: the person in its slot, the body (what is asked or told) and the priority said."""

    person: PersonView | None
    body: str
    priority: str | None


def said(text: str) -> Said:
    """`text` as shapes read it (the folded form has the same length: positions carry over)."""
    stated = phrasing.priority(phrasing.without_emoji(text))
    words = _ENDS.sub("", stated.rest)
    return Said(words, phrasing.simplified(words), stated.priority)


def person_in(
    text: str, people: tuple[PersonView, ...], speaker_id: str | None, mentions: tuple = ()
) -> names.Named | None:
    """The first person `text` names other than the speaker (the one a person slot stands for)."""
    found = [n for n in names.named(phrasing.simplified(text), people, mentions) if n.person.person_id != speaker_id]
    return found[0] if found else None


def _fixed(shape: str) -> str:
    return re.sub(r"[\W_]", "", shape.replace(PERSON, "").replace(BODY, ""))


def _joined(folded: str, spans: list[tuple[int, int, str]]) -> str:
    out, at = [], 0
    for start, end, slot in sorted(spans):
        out += [re.sub(r"\s+", " ", folded[at:start].lower()), slot]
        at = end
    return "".join([*out, re.sub(r"\s+", " ", folded[at:].lower())])


def _body_span(folded: str, who: names.Named, body: str | None) -> tuple[int, int] | None:
    """Where the body stands: the words the reworded request carried, else what follows a cue next to the person."""
    wanted = _ENDS.sub("", phrasing.simplified(phrasing.priority(body).rest)) if body else ""
    if len(_fixed(wanted)) >= 2:
        for m in re.finditer(re.escape(wanted).replace(r"\ ", r"\s*"), folded, re.I):
            if m.end() <= who.start or m.start() >= who.end:
                return m.start(), m.end()
    after = folded[who.end :]
    if (m := _CUE_AFTER.match(after)) is not None:
        return who.end + m.start("body"), len(folded)
    rest = re.match(rf"{_SEP}(?P<body>\S.*)$", after, re.S)
    if _CUE_BEFORE.match(folded[: who.start]) and rest is not None and len(_fixed(rest["body"])) >= 2:
        return who.end + rest.start("body"), len(folded)
    return None


def shape_of(
    text: str,
    *,
    intent: str,
    people: tuple[PersonView, ...],
    speaker_id: str | None,
    mentions: tuple = (),
    body: str | None = None,
) -> str | None:
    """The shape `text` teaches for `intent` (None: too long, a brace in it, nobody named where someone must be,
    or fewer than two fixed characters); `body`: the words the request was worded again with, if known."""
    s = said(text)
    if not s.words or len(s.words) > MAX_CHARS or "{" in s.words or "}" in s.words:
        return None
    who = person_in(s.folded, people, speaker_id, mentions) if intent in WITH_PERSON else None
    if who is None and intent in NEEDS_PERSON:
        return None
    spans = [(who.start, who.end, PERSON)] if who is not None else []
    where = _body_span(s.folded, who, body) if who is not None and intent in WITH_BODY else None
    shape = _joined(s.folded, [*spans, (*where, BODY)]) if where is not None else ""
    if len(_fixed(shape)) < 2:  # the body slot would leave too little fixed: keep its words instead
        shape = _joined(s.folded, spans)
    return shape if len(_fixed(shape)) >= 2 else None


@functools.lru_cache(maxsize=2048)
def _regex(shape: str) -> re.Pattern:
    out = []
    for part in re.split(r"(\{person\}|\{body\})", shape):
        if part == PERSON:
            out.append(_SEP + _MARK + _SEP)
        elif part == BODY:
            out.append(_SEP + r"(?P<body>.+?)" + _SEP)
        elif fixed := part.strip(" ,，、:：;；-—"):
            out.append(re.escape(fixed).replace(r"\ ", r"\s*"))
    return re.compile("".join(out), re.I | re.S)


def match(
    text: str, shape: str, *, people: tuple[PersonView, ...], speaker_id: str | None, mentions: tuple = ()
) -> Found | None:
    """What `text` says through `shape`, or None when it does not have that shape."""
    s = said(text)
    who = person_in(s.folded, people, speaker_id, mentions) if PERSON in shape else None
    if PERSON in shape and who is None:
        return None
    masked = s.folded[: who.start] + _MARK + s.folded[who.end :] if who is not None else s.folded
    m = _regex(shape).fullmatch(masked)
    if m is None:
        return None
    if BODY in shape:
        start, end = m.span("body")
        shift = who.end - who.start - 1 if who is not None and start > who.start else 0
        body = s.words[start + shift : end + shift]
    else:
        body = s.words[: who.start] + s.words[who.end :] if who is not None else ""
    body = phrasing.tidy(re.sub(r"\s{2,}", " ", body))
    if BODY in shape and len(_fixed(body)) < 2:
        return None
    return Found(who.person if who is not None else None, body, s.priority)


def _words(text: str, people: tuple[PersonView, ...]) -> set[str]:
    folded = phrasing.simplified(text).lower()
    for n in reversed(names.named(folded, people)):
        folded = folded[: n.start] + " " + folded[n.end :]
    grams = {run[i : i + 2] for run in re.findall(r"[\u4e00-\u9fff]+", folded) for i in range(len(run) - 1)}
    return (grams | set(re.findall(r"[a-z][a-z']{2,}", folded))) - _COMMON


def related(a: str, b: str, people: tuple[PersonView, ...]) -> bool:
    """Do two messages share words (Chinese bigrams, English words), names and the commonest words left out?"""
    return bool(_words(a, people) & _words(b, people))
