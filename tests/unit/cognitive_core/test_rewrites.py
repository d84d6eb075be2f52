"""The rewrite corpus end to end: the principal's message through `decide`, framed as the engine sends it.

Each row of `corpus/rewrites.py` is read as 周明's direct message; the ask's question goes through
`concern.notices.question_text` and the tell's text through `messages.relay`, the functions the engine sends with,
and the result must equal the row exactly.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from cognitive_core.rules import PersonView, SignalView, Situation, decide
from concern import notices
from concern.texts import messages
from tests.unit.cognitive_core.corpus import PEOPLE as CAST
from tests.unit.cognitive_core.corpus.rewrites import REWRITES

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # Wednesday 10:00 in Shanghai
MING = PersonView("p_ming", "周明", role="principal", timezone="Asia/Shanghai", aliases=("Ming",))
PEOPLE = (
    MING,
    *(PersonView(pid, name, aliases=aliases, locale="en" if name.isascii() else "zh") for pid, name, aliases in CAST),
)
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{2,}")


def sent(message: str) -> tuple[str, str]:
    """(ask | tell, the text its recipient reads) for one message of the principal's."""
    [decision] = decide(Situation(SignalView("fact_20260318_001", "feishu", message), MING, PEOPLE, (), NOW))
    params = decision.params
    target = next((p for p in PEOPLE if p.person_id == params.get("target_person_id")), None)
    assert target is not None, f"{message!r} reached nobody: {decision.rule}"
    if decision.kind.value == "raise_concern":
        return "ask", notices.question_text(MING, target, params["question"], approval=False)
    assert params.get("action") == "notify", f"{message!r} was read as {decision.rule}"
    return "tell", messages.relay(MING.display_name, params["text"], target.locale, MING.aliases)


@pytest.mark.parametrize(("message", "intent", "read"), REWRITES, ids=[f"row{i:03d}" for i in range(len(REWRITES))])
def test_the_recipient_reads_the_principals_words_addressed_to_them(message, intent, read):
    assert sent(message) == (intent, read)


def test_the_corpus_holds_both_languages_and_mixed_words():
    zh = [m for m, _, _ in REWRITES if _CJK.search(m) and not _LATIN.search(m)]
    en = [m for m, _, _ in REWRITES if not _CJK.search(m)]
    assert len(REWRITES) >= 130 and len(set(REWRITES)) == len(REWRITES)
    assert len(zh) >= 0.4 * len(REWRITES) and len(en) >= 0.35 * len(REWRITES)
    assert len(REWRITES) - len(zh) - len(en) >= 10  # Chinese with English words, or English with Chinese
    assert {intent for _, intent, _ in REWRITES} == {"ask", "tell"}
