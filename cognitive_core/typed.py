"""Typed commands (`/ask …`, `问一下张三：…`, `/quiet 22:00-08:00`): an intent → decision table; pure, no I/O.

Each row turns a parsed intent and the situation into one decision; a command nobody has is its usage line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from cognitive_core.language import forwarding, promises, reminding
from cognitive_core.language.names import find_person
from cognitive_core.language.parsing import Intent
from cognitive_core.language.phrasing import PLAIN_PRIORITY, priority, return_moment
from cognitive_core.language.when import parse_when
from cognitive_core.situation import Decision, Situation, WaitingConcern
from concern import commands as c


def answered_concern(situation: Situation) -> WaitingConcern | None:
    """The waiting concern a message answers: the one it quotes, else the one most recently contacted."""
    if not situation.waiting:
        return None
    if situation.signal.reply_to:
        for concern in situation.waiting:
            if situation.signal.reply_to in concern.message_refs:
                return concern
    epoch = datetime.min.replace(tzinfo=situation.now.tzinfo) if situation.now else None
    return max(situation.waiting, key=lambda w: (w.last_contact_at or epoch, w.concern_id))


def _reply(rule: str, template: str, **values) -> Decision:
    return Decision(rule, c.Reply(template, values))


def _ask_or_tell(intent: Intent, situation: Situation) -> Decision:
    sender, name, args = situation.sender, intent.name, intent.args
    if sender.role != "principal":
        return _reply(f"{name}:not_principal", "not_principal")
    target = find_person(args["who"], situation.people, situation.signal.mentions)
    if target is None:
        return _reply(f"{name}:unknown_person", "unknown_person", who=args["who"])
    if target.person_id == sender.person_id:
        return _reply(f"{name}:self", "ask_self")
    text = forwarding.rewrite(args["text"], intent=name, rule=name, speaker=sender.display_name, aliases=sender.aliases)
    prio = (args.get("prio") or _said_priority(args["text"])).upper()
    if name == "tell":
        return Decision("tell", c.Tell(target.person_id, text, prio))
    deadline = promises.deadline(args["text"], timezone=sender.timezone, now=situation.now)
    question = c.Ask(target.person_id, text, prio, **deadline)
    return Decision("ask", question)


def _said_priority(text: str) -> str:
    """`问一下张三：…急` → P0: urgency words in the body (rewrite lifts them); a `P1` in the body is its words."""
    said = priority(text)
    return said.priority if said.priority and not re.fullmatch(r"[Pp][0-3]", said.words or "") else PLAIN_PRIORITY


def _remind(intent: Intent, situation: Situation) -> Decision:
    """A reminder for the sender themselves; its time must be ahead (a past one is said back, nothing set)."""
    read = reminding.read(intent.args["rest"], now=situation.now, tz=situation.sender.timezone)
    if read is None:
        return usage("remind")
    at, text, words = read
    if at <= situation.now:
        return _reply("remind:past", "remind_past", at=at.isoformat())
    return Decision("remind", c.Remind(at.isoformat(), text, words))


def _snooze(intent: Intent, situation: Situation) -> Decision:
    concern = answered_concern(situation)
    if concern is None:
        return _reply("snooze:nothing_waiting", "nothing_to_snooze")
    return Decision("snooze", c.Snooze(concern.concern_id, int(intent.args["duration"].total_seconds())))


def _pause(intent: Intent, situation: Situation) -> Decision:
    until = situation.now + intent.args["duration"]
    return Decision("self_service:pause", c.SetPolicy({"paused_until": until.isoformat()}))


def _away(intent: Intent, situation: Situation) -> Decision:
    """`/away [until Friday] [note]`: away from now, until the time said (open-ended without one)."""
    rest = intent.args.get("rest", "")
    found = parse_when(rest, now=situation.now, tz=situation.sender.timezone) if rest else None
    ahead = found is not None and found.at > situation.now
    until = return_moment(found, text=rest, tz=situation.sender.timezone) if ahead else None
    status = "on_leave" if re.search(r"假|leave|vacation|holiday|sick", rest, re.I) else "away"
    return Decision("self_service:away", c.SetAway(status, until.astimezone(UTC).isoformat() if until else None, rest))


def _did(intent: Intent, situation: Situation) -> Decision:
    args = intent.args
    values = {
        "today": bool(args.get("today")),
        "window_s": int(args["window"].total_seconds()) if "window" in args else 86400,
        **({"everything": True} if args.get("all") else {}),
    }
    if args.get("who"):
        who = find_person(args["who"], situation.people, situation.signal.mentions)
        values["person_id"] = who.person_id if who else None
    return _reply("did", "did", **values)


Row = Callable[[Intent, Situation], Decision]

# intent name → decision; an intent without a row is answered by its template of the same name (help, concerns …).
TYPED: dict[str, Row] = {
    "ask": _ask_or_tell,
    "tell": _ask_or_tell,
    "remind": _remind,
    "cancel": lambda i, s: Decision("cancel", c.Cancel(i.args["concern_id"])),
    "snooze": _snooze,
    "quiet": lambda i, s: Decision(
        "self_service:quiet", c.SetPolicy({"quiet_hours": [{"start": i.args["start"], "end": i.args["end"]}]})
    ),
    "pause": _pause,
    "resume": lambda i, s: Decision("self_service:resume", c.SetPolicy({"paused_until": None})),
    "away": _away,
    "did": _did,
    "brief": lambda i, s: Decision("brief", c.Brief(everything=bool(i.args.get("all")))),
    "review": lambda i, s: Decision("review", c.Review()),
}


def command(intent: Intent, situation: Situation) -> Decision:
    """The decision a typed command asks for (the sender is known)."""
    row = TYPED.get(intent.name)
    return row(intent, situation) if row is not None else _reply(intent.name, intent.name)


def usage(command_name: str) -> Decision:
    """A malformed command gets the hint for that command only; an unknown one says so."""
    if command_name.startswith("/"):
        return _reply("unknown_command", "unknown_command", command=command_name)
    return _reply(f"usage:{command_name}", f"usage:{command_name}")
