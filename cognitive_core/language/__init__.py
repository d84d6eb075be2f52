"""Reading what people write, zh and en: pure, no I/O, importing nothing of the core but its decision types.

The way in: `parsing.parse` (typed commands), `intents.read` (plain words against `intent_table`), `understood`
(a reading → one decision), `when.parse_when` (time expressions), `promises` (a promise in an answer, a deadline
in an ask), `reminding.read` (a reminder's time and text), `names` (people named anywhere), `phrasing`, `learned`
(a principal's phrasings learned from corrections; `shapes`: their slots and matching).
"""
