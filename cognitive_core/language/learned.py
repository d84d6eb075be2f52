"""Phrasings a principal taught by correcting the bot: reading a message through them, and what a correction teaches.

Pure, no I/O. `decide`: a message the table, the gist and the rules read nothing in, that one of the sender's learned
shapes matches (newest first), is understood at once. A read (status, did, brief, review, reminders, help) and resume
are answered; a contact (ask, tell, nudge, cancel) is carried out directly only once a contact through that shape
was confirmed: until then the principal gets what it would do with one button, the did-you-mean's own verb
(`ask_or_tell`, `nudge_pick`, `cancel_pick`) carrying exactly that, and the phrasing's id (the press door records the
confirmation). `taught`: a request the rules understood, after a message of the same principal that was missed less
than WINDOW ago and is plausibly the same request — the same person named (or nobody in both), and shared words or
the miss's closest reading being this one — notes the lesson on its decision (`taught`), which the inbox records.
`pressed`: what a pressed did-you-mean button teaches.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from cognitive_core.language import guesses, shapes, understood
from cognitive_core.language.intents import Reading
from cognitive_core.situation import Decision, Missed, Phrasing, Situation
from concern import commands as c

WINDOW = timedelta(minutes=10)  # a request worded again within it corrects the miss
MISSES = frozenset({"not_understood", "did_you_mean:guess"})  # the rules of a message the rules did not understand
CONTACTS = understood.ABOUT_SOMEONE  # ask, tell, nudge, cancel: the first one through a shape is confirmed
DIRECT = frozenset({"status", "did", "brief", "review", "reminders", "help", "resume"})  # answered at once, always
LEARNABLE = CONTACTS | DIRECT  # pause, quiet hours, a reminder, a snooze: a press only asked for the missing part


def decide(situation: Situation, text: str) -> Decision | None:
    """The decision a learned phrasing makes of `text`, or None when none of the sender's matches it."""
    sender = situation.sender
    for taught in situation.phrasings:
        found = shapes.match(
            text, taught.shape, people=situation.people, speaker_id=sender.person_id, mentions=situation.signal.mentions
        )
        if found is not None:
            return _read(taught, found, situation, text)
    return None


def _read(taught: Phrasing, found: shapes.Found, situation: Situation, text: str) -> Decision:
    rule = f"learned:{taught.intent}"
    notes: dict[str, Any] = {"matched": {"rule": rule, "words": taught.shape}, "learned": taught.phrasing_id}
    if taught.intent not in CONTACTS:
        about = found.person.person_id if found.person is not None and taught.intent == "status" else None
        return Decision(rule, guesses.command(taught.intent, about), notes)
    sender = situation.sender
    args = {"text": found.body, **({"priority": found.priority} if found.priority else {})}
    open_asks = tuple((a.concern_id, a.target_person_id, a.question) for a in situation.open_asks)
    decided = understood.about_someone(
        Reading(taught.intent, args, rule, taught.shape, found.person),
        message=text,
        sender_id=sender.person_id,
        open_asks=open_asks,
        tz=sender.timezone,
        now=situation.now,
        speaker=sender,
    )
    notes = {**decided.notes, "learned": taught.phrasing_id}
    if taught.confirmed or not isinstance(decided.command, c.Ask | c.Tell | c.Nudge | c.Cancel):
        return Decision(decided.rule, decided.command, notes)
    button = _button(decided, taught.phrasing_id)
    question = next((q for cid, _, q in open_asks if cid == button["args"].get("concern_id")), "")
    values = {"intent": button["intent"], "target_person_id": button["person_id"], "text": question, "button": button}
    if "text" in button["args"]:
        values["text"] = button["args"]["text"]
    return Decision("learned:confirm", c.Reply("learned_confirm", values), notes)


def _button(decided: Decision, phrasing_id: str) -> dict[str, Any]:
    """The one button that carries out exactly `decided`'s command (a did-you-mean's verb and args)."""
    command = decided.command
    if isinstance(command, c.Ask | c.Tell):
        intent = "ask" if isinstance(command, c.Ask) else "tell"
        request = {
            "intent": intent,
            "text": command.question if isinstance(command, c.Ask) else command.text,
            "priority": command.priority,
            **{k: v for k in ("deadline", "deadline_words") if (v := getattr(command, k, None))},
            "matched": decided.notes.get("matched", {}),
        }
        args = {"person_id": command.target_person_id, **request, "as": intent, "phrasing_id": phrasing_id}
        return {"intent": intent, "verb": "ask_or_tell", "person_id": command.target_person_id, "args": args}
    assert isinstance(command, c.Nudge | c.Cancel)
    intent = "nudge" if isinstance(command, c.Nudge) else "cancel"
    args = {"concern_id": command.concern_id, "phrasing_id": phrasing_id}
    return {
        "intent": intent,
        "verb": f"{intent}_pick",
        "person_id": decided.notes.get("target_person_id"),
        "args": args,
    }


def understood_as(decision: Decision) -> tuple[str, str | None] | None:
    """The intent (and the person it is about) of a decision the rules understood; None for anything else."""
    command = decision.command
    if isinstance(command, c.Ask | c.Tell):
        return ("ask" if isinstance(command, c.Ask) else "tell"), command.target_person_id
    if isinstance(command, c.Nudge | c.Cancel) and decision.notes.get("target_person_id"):
        return ("nudge" if isinstance(command, c.Nudge) else "cancel"), decision.notes["target_person_id"]
    if isinstance(command, c.Brief | c.Review):
        return ("brief" if isinstance(command, c.Brief) else "review"), None
    if isinstance(command, c.SetPolicy) and command.patch == {"paused_until": None}:
        return "resume", None
    if isinstance(command, c.Reply) and command.template in ("concerns", "did", "help", "reminders"):
        if command.template == "concerns":
            return "status", command.values.get("target_person_id")
        return command.template, None
    return None


def _same_request(miss: Missed, intent: str, person_id: str | None, said: str, situation: Situation) -> bool:
    """Is `miss` plausibly what the understood request (`said`, about `person_id`) asked for?"""
    named = shapes.person_in(miss.text, situation.people, situation.sender.person_id, miss.mentions)
    if (named.person.person_id if named is not None else None) != person_id:
        return False
    return miss.hint == intent or shapes.related(miss.text, said, situation.people)


def taught(decision: Decision, situation: Situation, *, body: str | None) -> Decision:
    """`decision` with the lesson it teaches in its notes (`taught`: the miss, its shape, the intent), if any;
    `body`: the words the understood request carries (what is asked or told), when it has them."""
    if not situation.missed or situation.now is None or "learned" in decision.notes:
        return decision
    read = understood_as(decision)
    if read is None:
        return decision
    intent, person_id = read
    said = body if body and intent in shapes.WITH_BODY else situation.signal.text
    for miss in situation.missed:
        if not timedelta(0) <= situation.now - miss.at <= WINDOW or not teachable(miss.text):
            continue
        if not _same_request(miss, intent, person_id, said, situation):
            continue
        shape = shapes.shape_of(
            miss.text,
            intent=intent,
            people=situation.people,
            speaker_id=situation.sender.person_id,
            mentions=miss.mentions,
            body=body if intent in shapes.WITH_BODY else None,
        )
        if shape is not None:
            lesson = {"missed": miss.fact_id, "shape": shape, "intent": intent, "example": miss.text}
            return Decision(decision.rule, decision.command, {**decision.notes, "taught": lesson})
    return decision


def teachable(text: str) -> bool:
    """Only a request that was missed teaches: never thanks, a nod or a greeting."""
    return understood.nothing_matched(text, principal=True).rule == "not_understood"


def pressed(
    text: str, *, verb: str | None, args: dict[str, Any], people: tuple, speaker_id: str, mentions: tuple = ()
) -> dict[str, str] | None:
    """The lesson a pressed did-you-mean button teaches about the message `text` it was offered for, if any."""
    if verb == "ask_or_tell":
        intent = args.get("as")
    elif verb in ("nudge_pick", "cancel_pick"):
        intent = verb.removesuffix("_pick")
    else:
        intent = args.get("intent") if verb == "guess" else None
    if intent not in LEARNABLE or not teachable(text):
        return None
    shape = shapes.shape_of(text, intent=intent, people=people, speaker_id=speaker_id, mentions=mentions)
    return {"shape": shape, "intent": intent, "example": text} if shape is not None else None
