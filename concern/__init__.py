"""The concern engine: open loops waiting for someone — raise, follow up on a durable schedule, escalate, resolve,
bring the answer back (backflow). It acts only through the action layer.

The way in: `commands` (the vocabulary every door speaks) and `handlers.handle` (the one table that carries them
out, with an `Outcome`); `said` (what the actor reads of it); `outbound` and `buttons` (the façade: every reply and
notice queued, what the core reads of the action layer); `reads` (the loops a message may be about); `admin` (an
operator's commands); `timers.fire_due` and `outbox.drain.drain` (the processor's). Rooms: `escalation`, `kinds`
(reminders, commitments, the digest), `texts`, `outbox`.
"""
