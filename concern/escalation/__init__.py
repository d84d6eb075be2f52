"""Escalations: to the target's manager, repeated, climbing the chain; "I'll handle it" and "Remind them".
The way in: `steps` (start, step, reached, take_escalation, nudge, queue_nudge); `rules` is pure (the next step,
the next recipient); `texts` are its words.
"""
