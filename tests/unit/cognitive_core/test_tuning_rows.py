"""Every tuning row (tests/unit/cognitive_core/corpus) is read right in every field it states; 600+ of them."""

from __future__ import annotations

from tests.heldout import scoring, tuning
from tests.unit.cognitive_core.test_away_words import ROWS as AWAY


def test_every_tuning_row_is_read_right_in_every_field_it_states():
    verdicts = tuning.score()
    assert all(v.right for v in verdicts), "\n" + scoring.misses(verdicts)


def test_the_tuning_corpus_holds_600_utterances_mostly_in_chinese_and_english():
    langs = [v.row["lang"] for v in tuning.score()]
    total = len(langs) + len(AWAY)
    assert total >= 600
    zh = langs.count("zh") + sum(1 for t, *_ in AWAY if not t.isascii())
    en = langs.count("en") + sum(1 for t, *_ in AWAY if t.isascii())
    assert zh / total >= 0.4 and en / total >= 0.3, (zh, en, total)
