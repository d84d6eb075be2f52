"""The one handler table: every command, from any door (chat, a press, the LLM, the API, the console), carried out.

`handle(uow, command, origin)` looks the command's type up in HANDLERS and returns an `Outcome`. The handler changes
loops and people and queues what the change sends; how the actor hears the outcome is the door's (`concern.said`
has the words). A new button is a label row (`concern.buttons`), a verb → command row (the core's press table) and,
only when its effect is new, a command here with its handler.
"""

from __future__ import annotations

from concern import commands as c
from concern import recipients
from concern.handlers import loops, starts
from concern.handlers.origin import Handler, Origin
from concern.outcomes import Outcome
from kernel.context import UnitOfWork

__all__ = ["HANDLERS", "Origin", "handle"]

HANDLERS: dict[type[c.Command], Handler] = {
    c.Ask: starts.ask,
    c.Escalate: starts.escalate,
    c.Tell: starts.tell,
    c.Notify: starts.notify,
    c.Remind: starts.remind,
    c.Commit: starts.commit,
    c.Resolve: loops.resolve,
    c.Acknowledge: loops.acknowledge,
    c.Snooze: loops.snooze,
    c.DeferToMorning: loops.defer,
    c.Cancel: loops.cancel,
    c.Nudge: loops.nudge,
    c.NotMe: loops.not_me,
    c.AskSomeoneElse: loops.ask_someone_else,
    c.Reassign: loops.reassign,
    c.TakeEscalation: loops.take,
    c.Decide: loops.decide,
    c.Done: loops.done,
    c.Extend: loops.extend,
    c.Bind: starts.bind,
    c.SetPolicy: starts.set_policy,
    c.SetAway: starts.set_away,
    c.WaitForReturn: loops.wait_for_return,
    c.FewerMessages: lambda uow, command, origin: recipients.fewer(  # the presser's own policy, one step less
        uow, command=command, person_id=origin.actor_id or "", decision_id=origin.decision_id
    ),
}


def handle(uow: UnitOfWork, command: c.Command, origin: Origin) -> Outcome:
    """Carry out one command in the caller's transaction (what it sends is queued, not sent)."""
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"no handler for {type(command).__name__}: answers are the core's, not the engine's")
    return handler(uow, command, origin)
