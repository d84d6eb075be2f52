"""The cognitive core: the single place that decides. Rules first (deterministic, no network), the optional LLM only
proposing; every decision (dec_…) is a fact carrying the command it asks the concern engine to carry out. It never
talks to channels or the action layer and owns no concern state.

The way in: `inbox.process_pending` (recorded signals, in order: messages, presses, LLM proposals, external
signals), `presses.door.toast` (while a platform waits for a press's answer), `reports.briefs.send_due` /
`reports.reviews.send_due` (on schedule), `llm.worker.dispatch`. Rooms: `language` (pure reading of what people
write), `presses`, `llm`, `reports`, `signals`; `rules` and `typed` decide; `flows` is the chat door.
"""
