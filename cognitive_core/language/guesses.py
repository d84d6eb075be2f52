"""What the classifier's guess about a message the rules read nothing in becomes: an answer, buttons, or nothing.

Pure, no I/O: `offer` weighs the probabilities; `decide` turns an offer into a decision. A confident guess of a
harmless read (status, did, brief, review, reminders, help) is answered at once. Otherwise the plausible readings
(at most three, each at least FLOOR) become a did-you-mean whose buttons carry what one press needs: the pending
request of an ask or tell to the person the message names (the `ask_or_tell` press completes it, as for the rules'
own ask-or-tell question), the open question a nudge or cancel is about (`nudge_pick`, `cancel_pick`), or the
intent (`guess`: answered, or the one missing thing asked). A guess never contacts anyone without that press.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cognitive_core.language import names, phrasing, understood
from cognitive_core.language.intents import Reading
from cognitive_core.situation import Decision
from concern import commands as c

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView

HARMLESS = frozenset({"status", "did", "brief", "review", "reminders", "help"})  # only read: answered when sure
# Intents one press carries out or asks the missing part of (how long, when): their own replies.
_ASKED = {"pause": "usage:pause", "quiet": "usage:quiet", "remind": "usage:remind", "snooze": "usage:later"}
FLOOR = 0.15  # below this a reading is not offered (about 2x the share of one of a dozen intents)
LIMIT = 3


@dataclass(frozen=True)
class Offer:
    """`answer`: the intent answered at once; else `choices`, the readings offered as buttons (best first)."""

    answer: str | None = None
    choices: tuple[str, ...] = ()


def offer(probabilities: dict[str, float], *, sure: float, offerable: frozenset[str]) -> Offer:
    """The answer or the buttons the probabilities call for (`offerable`: the intents this message can be)."""
    ranked = sorted(probabilities.items(), key=lambda kv: (-kv[1], kv[0]))
    top, p = ranked[0]
    if top in HARMLESS and p >= sure:
        return Offer(answer=top)
    if top == "none" and p >= sure:
        return Offer()
    return Offer(choices=tuple(i for i, q in ranked if i in offerable and q >= FLOOR)[:LIMIT])


def choose_sure(probabilities: list[dict[str, float]], truths: list[str], *, precision: float = 1.0) -> float:
    """The lowest probability (0.30, 0.35 … 0.95) at or above which the out-of-fold guesses of a harmless intent are
    right `precision` of the time (all of them by default), over at least five; 1.0 (never) when none is."""
    for step in range(6, 20):
        sure = step / 20
        right = [
            truth == top
            for p, truth in zip(probabilities, truths, strict=True)
            if (top := max(p, key=p.__getitem__)) in HARMLESS and p[top] >= sure
        ]
        if len(right) >= 5 and sum(right) >= precision * len(right):
            return sure
    return 1.0


def command(intent: str, person_id: str | None = None) -> c.Command:
    """What a guess of `intent` carries out when answered or pressed (a harmless read, or the question back)."""
    if intent == "status":
        return c.Reply("concerns", {"target_person_id": person_id} if person_id else {})
    if intent == "did":
        return c.Reply("did", {"today": False, "window_s": 86400})
    if intent == "brief":
        return c.Brief(everything=False)
    if intent == "review":
        return c.Review()
    if intent == "resume":
        return c.SetPolicy({"paused_until": None})
    return c.Reply(_ASKED.get(intent, intent))  # help, reminders: their replies; the rest ask how long, when


def _buttons(
    choices: tuple[str, ...], who: PersonView | None, request: dict[str, Any], open_asks: tuple, missed: str | None
) -> list[dict[str, Any]]:
    target = who.person_id if who else None
    taught = {"missed": missed} if missed else {}  # the message a press corrects (a phrasing learned from it)
    mine = [cid for cid, tid, _ in open_asks if tid == target]
    out = []
    for intent in choices:
        if intent in ("ask", "tell"):
            args = {"person_id": target, **request, "as": intent, **taught}
            out.append({"intent": intent, "verb": "ask_or_tell", "person_id": target, "args": args})
        elif intent in ("nudge", "cancel"):
            out.append(
                {
                    "intent": intent,
                    "verb": f"{intent}_pick",
                    "person_id": target,
                    "args": {"concern_id": mine[0], **taught},
                }
            )
        elif intent == "status" and target:  # how someone named is doing is their status
            args = {"intent": intent, "person_id": target, **taught}
            out.append({"intent": "status_of", "verb": "guess", "person_id": target, "args": args})
        else:
            out.append({"intent": intent, "verb": "guess", "args": {"intent": intent, **taught}})
    return out


def _offerable(who: PersonView | None, body: str, open_asks: tuple) -> frozenset[str]:
    """Readings one press can complete: contacts need a named person (and a body, or one open question)."""
    own = HARMLESS | set(_ASKED) | {"resume"}
    if who is None:
        return frozenset(own)
    mine = [cid for cid, tid, _ in open_asks if tid == who.person_id]
    return frozenset(own | ({"ask", "tell"} if body else set()) | ({"nudge", "cancel"} if len(mine) == 1 else set()))


def decide(
    text: str,
    probabilities: dict[str, float],
    *,
    sure: float,
    people: tuple[PersonView, ...],
    speaker: PersonView,
    open_asks: tuple[tuple[str, str, str], ...],
    tz: str,
    now: datetime | None,
    missed: str | None = None,
) -> Decision | None:
    """The decision a guess makes of `text` (None: nothing plausible, the rules' one line stands); `missed`: the
    message's fact id, which its buttons carry (a press teaches the sender's phrasing, `language.learned`)."""
    original = phrasing.without_emoji(text).strip()
    found = [n for n in names.named(phrasing.simplified(original), people) if n.person.person_id != speaker.person_id]
    who = found[0].person if found else None
    body = phrasing.tidy(original[: found[0].start] + original[found[0].end :]) if found else ""
    made = offer(probabilities, sure=sure, offerable=_offerable(who, body, open_asks))
    top = max(probabilities, key=probabilities.__getitem__)
    notes = {"guess": {"intent": top, "p": round(probabilities[top], 3)}}
    if made.answer is not None:
        status_of = who.person_id if made.answer == "status" and who else None
        return Decision(f"guess:{made.answer}", command(made.answer, status_of), notes)
    if not made.choices:
        return None
    reading = Reading("ask", {"text": body}, "guess:ask", "", who)
    request = understood.request_of(reading, message=text, tz=tz, now=now, speaker=speaker) if who else {}
    guesses = _buttons(made.choices, who, request, open_asks, missed)
    return Decision("did_you_mean:guess", c.Reply("did_you_mean", {"guesses": guesses, "hint": made.choices[0]}), notes)
