"""The vocabulary between deciding and doing: every command the concern engine carries out, as frozen data.

The cognitive core decides; a decision carries one command (or an answer the core gives itself: a reply, a brief, a
review, nothing). Chat messages, button presses, the optional LLM's proposals, the API and the console all produce
these commands, and `concern.handlers.handle` carries each out through one table.

Each command has a stable serialised form, `dump(command)` → `{"type": "ask", …fields}`, recorded in the decision
fact under `command`; `load` reads it back (a held LLM proposal is confirmed by loading what was recorded). Times
are ISO 8601 instants and durations whole seconds, as they are stored. `command.flat()` is the flat shape the
decision facts' `requested` entries had before commands existed (kept beside `command` for readers of the log), and
`from_requested` turns such an entry of an old fact back into its command.
"""

from concern.commands.answers import Answer, Brief, ConfirmProposal, DropProposal, Explain, Ignore, Reply, Review
from concern.commands.base import COMMANDS, Command, dump, load
from concern.commands.legacy import LEGACY_SHAPES, from_requested
from concern.commands.loops import (
    Acknowledge,
    Ask,
    AskSomeoneElse,
    Bind,
    Cancel,
    Commit,
    Decide,
    DeferToMorning,
    Done,
    Escalate,
    Extend,
    FewerMessages,
    Notify,
    NotMe,
    Nudge,
    Reassign,
    Remind,
    Resolve,
    SetAway,
    SetPolicy,
    Snooze,
    TakeEscalation,
    Tell,
    WaitForReturn,
)

__all__ = [
    "COMMANDS",
    "LEGACY_SHAPES",
    "Acknowledge",
    "Answer",
    "Ask",
    "AskSomeoneElse",
    "Bind",
    "Brief",
    "Cancel",
    "Command",
    "Commit",
    "ConfirmProposal",
    "Decide",
    "DeferToMorning",
    "Done",
    "DropProposal",
    "Explain",
    "Escalate",
    "Extend",
    "FewerMessages",
    "Ignore",
    "NotMe",
    "Notify",
    "Nudge",
    "Reassign",
    "Remind",
    "Reply",
    "Resolve",
    "Review",
    "SetAway",
    "SetPolicy",
    "Snooze",
    "TakeEscalation",
    "Tell",
    "WaitForReturn",
    "dump",
    "from_requested",
    "load",
]
