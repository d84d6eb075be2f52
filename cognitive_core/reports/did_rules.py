"""What `/did` says, from plain outcomes per person: a one-sentence summary first, details after. Pure, no I/O.

A principal asking "what did you do" wants what an assistant would say back: whom it contacted and where each
stands (`今天替你联系了 3 个人：张三已回复，李四还在等，王五的消息会在 08:00 发出。`), then one line per person,
then "and N more" with the way to see them. No record ids, no counters of results: ids live on the console.
"""

from __future__ import annotations

from dataclasses import dataclass

from cognitive_core.reports.did_texts import text
from concern.texts.messages import clip

NAMED = 2  # a group of at most this many people is named in the summary, a larger one counted
MAX_LINES = 8  # detail lines on one screen; the rest is "… and N more"
_UNITS = ((86400, "天", "day"), (3600, "小时", "hour"), (60, "分钟", "minute"))
# Where each outcome stands, in the order the summary tells them (what needs nothing from the principal last).
KINDS = ("not_done", "escalated", "promise_due", "answered", "promised", "waiting", "held", "told", "closed")


@dataclass(frozen=True)
class Outcome:
    """Where one person contacted in the window stands; `note` and `until` are already the reader's words."""

    who: str
    kind: str  # one of KINDS
    about: str  # the question asked, or what was passed on
    answer: str = ""  # answered: what they said
    # held: why it waits ("away": they are away) · not_done: why not · escalated: to whom · closed: how it ended
    note: str = ""
    until: str = ""  # held: when it goes out · promised: by when
    follow_ups: int = 0  # waiting: follow-ups sent so far
    via: str = ""  # the platform the latest message went out on, as its plugin names it


def span_words(seconds: int, locale: str) -> str:
    """A look-back window in words: `7天` / `7 days`, `24小时` / `24 hours`, `30分钟` / `30 minutes`."""
    size, zh, en = next((u for u in _UNITS if seconds >= u[0] and seconds % u[0] == 0), _UNITS[-1])
    n = max(1, seconds // size)
    return f"{n}{zh}" if locale == "zh" else f"{n} {en}{'s' if n != 1 else ''}"


def _names(people: list[str], locale: str) -> str:
    if locale == "zh":
        return "、".join(people)
    return people[0] if len(people) == 1 else ", ".join(people[:-1]) + " and " + people[-1]


def summary(outcomes: list[Outcome], *, locale: str, span: str | None) -> str:
    """`今天替你联系了 3 个人：…。` / `Today I contacted 3 people for you: ….`; span None = today."""
    if not outcomes:
        return text("nothing_today" if span is None else "nothing", locale, span=span or "")
    # Each person is told once, by where their most pressing loop stands.
    first: dict[str, str] = {}
    for o in sorted(outcomes, key=lambda o: KINDS.index(o.kind)):
        first.setdefault(o.who, o.kind)
    people = list(dict.fromkeys(o.who for o in outcomes))
    parts = []
    for kind in KINDS:
        group = [who for who in people if first[who] == kind]
        if group and len(group) <= NAMED:
            parts.append(text(f"named_{kind}", locale, names=_names(group, locale)))
        elif group:
            parts.append(text(f"counted_{kind}", locale, n=len(group)))
    joined = "，".join(parts) if locale == "zh" else "; ".join(parts)
    head = "head_today" if span is None else "head"
    return text(head, locale, n=len(people), people=text("people" if len(people) > 1 else "person", locale),
                span=span or "", parts=joined)  # fmt: skip


def line(outcome: Outcome, *, locale: str) -> str:
    """One person's detail line: what was asked or said, and where it stands, in plain words."""
    values = {
        "who": outcome.who,
        "about": clip(outcome.about),
        "answer": clip(outcome.answer),
        "note": outcome.note,
        "until": outcome.until,
        "n": outcome.follow_ups,
    }
    key = f"line_{outcome.kind}"
    if outcome.kind == "waiting" and outcome.follow_ups:
        key = "line_waiting_followed"
    elif outcome.kind == "held" and outcome.note == "away":
        key = "line_held_away"
    said = text(key, locale, **values)
    return said + text("via", locale, channel=outcome.via) if outcome.via else said


def reply(outcomes: list[Outcome], *, locale: str, span: str | None, everything: bool, link: str | None) -> str:
    """The whole `/did` answer: summary, detail lines (at most MAX_LINES unless `everything`), then how to see more."""
    lines = [summary(outcomes, locale=locale, span=span)]
    shown = outcomes if everything else outcomes[:MAX_LINES]
    lines += [line(o, locale=locale) for o in shown]
    hidden = len(outcomes) - len(shown)
    if hidden:
        lines.append(text("more_link", locale, n=hidden, url=link) if link else text("more", locale, n=hidden))
    return "\n".join(lines)
