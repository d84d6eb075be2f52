"""The tuning corpus (tests/unit/cognitive_core/corpus) scored like the held-out set: right = every stated field.

Its rows state intent, person, the text passed on, priority and deadline words (None: not stated / the default),
and the no-command rows state only that nothing is a command; a `remind` row's text is the reminder's, an
`unknown_person` row's person is the name the reply must say it does not know. Scored per intent and per
language beside the held-out set by `python -m tests.heldout`.
"""

from __future__ import annotations

from cognitive_core.language.phrasing import PLAIN_PRIORITY
from tests.heldout.scoring import Verdict
from tests.unit.cognitive_core.corpus.en import EN
from tests.unit.cognitive_core.corpus.en_more import EN_MORE, MIXED, NONE_EN, SOCIAL_EN
from tests.unit.cognitive_core.corpus.gist import GIST, SOCIAL
from tests.unit.cognitive_core.corpus.none import NONE
from tests.unit.cognitive_core.corpus.zh import ZH
from tests.unit.cognitive_core.corpus.zh_more import NONE_ZH, SOCIAL_ZH, ZH_MORE
from tests.unit.cognitive_core.test_corpus import COMMANDS, _norm, intent_of, person_of, understood


def _row(text: str, lang: str, expected: tuple) -> Verdict:
    intent, person, body, priority, deadline = expected
    d = understood(text)
    got = {"intent": intent_of(d), "person": person_of(d), "rule": d.rule}
    if intent == "unknown_person":  # "I don't know X": the reply names the name as written
        got.update(intent="unknown_person" if d.params.get("template") == intent else got["intent"])
        got["person"] = d.params.get("who")
        return Verdict({"id": "", "text": text, "intent": intent, "lang": lang}, got, _unknown(got, person))
    wrong = [] if got["intent"] == intent else ["intent"]
    if not wrong and intent == "remind" and body is not None and _norm(d.params.get("text")) != _norm(body):
        wrong.append("say")
    if not wrong and intent in ("ask", "tell", "ask_or_tell", "nudge", "cancel") and person is not None:
        wrong += [] if got["person"] == person else ["person"]
    if not wrong and intent in ("ask", "tell") and person is not None and d.kind.value != "reply":
        said = d.params.get("question", d.params.get("text"))
        got["say"] = said
        if body is not None and _norm(said) != _norm(body):
            wrong.append("say")
        if d.params.get("priority") != (priority or PLAIN_PRIORITY):
            wrong.append("priority")
        if intent == "ask" and d.params.get("deadline_words") != deadline:
            wrong.append("deadline")
    return Verdict({"id": "", "text": text, "intent": intent, "lang": lang}, got, wrong)


def _unknown(got: dict, name: str) -> list[str]:
    return [] if got["intent"] == "unknown_person" and got["person"] == name else ["intent"]


def _chatter(text: str) -> Verdict:
    got = intent_of(understood(text))
    return Verdict(
        {"id": "", "text": text, "intent": "none", "lang": "none"},
        {"intent": got},
        [] if got not in COMMANDS else ["intent"],
    )


def score() -> list[Verdict]:
    """Every tuning-corpus row's verdict (zh, en, and the chatter that is no command)."""
    return [
        *(_row(text, "zh", rest) for text, *rest in (*ZH, *ZH_MORE)),
        *(_row(text, "en", rest) for text, *rest in (*EN, *EN_MORE)),
        *(_row(text, "mixed", rest) for text, *rest in MIXED),
        *(_chatter(text) for text in (*NONE, *NONE_ZH, *NONE_EN)),
        *(_row(text, "gist", rest) for text, *rest in GIST),
        *(_social(text) for text in (*SOCIAL, *SOCIAL_ZH, *SOCIAL_EN)),
    ]


def _social(text: str) -> Verdict:
    d = understood(text)
    template = d.params.get("template", "")
    wrong = [] if template in ("social_thanks", "social_ack") else ["intent"]
    return Verdict({"id": "", "text": text, "intent": "social", "lang": "social"}, {"intent": template}, wrong)
