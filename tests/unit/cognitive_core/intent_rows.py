"""The tuning corpus as the classifier's training rows: `python -m tests.unit.cognitive_core.intent_rows` (or
`make intent-rows`) writes cognitive_core/language/intent_rows.json; test_classifier fails when the two part.

Each row is (masked text, intent): the corpus's people masked as the runtime masks the people a message names,
an ask-or-tell counted as an ask, thanks and chatter as `none`, and intents with fewer rows than folds left out
(they cannot be cross-validated). The held-out set is never read here. `sure` is chosen on out-of-fold
probabilities (guesses.choose_sure), and the cross-validated accuracy is kept beside it.
"""

from __future__ import annotations

import json
from collections import Counter

from cognitive_core.language import classifier, guesses
from cognitive_core.situation import PersonView
from tests.unit.cognitive_core.corpus import PEOPLE
from tests.unit.cognitive_core.corpus.away import AWAY_EN, AWAY_MIXED, AWAY_MORE, AWAY_ZH
from tests.unit.cognitive_core.corpus.en import EN
from tests.unit.cognitive_core.corpus.en_more import EN_MORE, MIXED, NONE_EN, SOCIAL_EN
from tests.unit.cognitive_core.corpus.gist import GIST, SOCIAL
from tests.unit.cognitive_core.corpus.none import NONE
from tests.unit.cognitive_core.corpus.zh import ZH
from tests.unit.cognitive_core.corpus.zh_more import NONE_ZH, SOCIAL_ZH, ZH_MORE

FOLDS = 5
BOSS = PersonView("p_boss", "老板", role="principal", aliases=("Boss",))
CAST = (BOSS, *(PersonView(pid, name, aliases=aliases) for pid, name, aliases in PEOPLE))


def rows() -> list[tuple[str, str]]:
    """Every tuning row as (masked text, intent), in corpus order."""
    tables = (ZH, ZH_MORE, EN, EN_MORE, MIXED, GIST, AWAY_ZH, AWAY_EN, AWAY_MIXED, AWAY_MORE)
    # A name nobody has is no intent of its own: the reply says so whatever was asked.
    labelled = [(row[0], row[1]) for table in tables for row in table if row[1] != "unknown_person"]
    labelled += [(text, "none") for text in (*NONE, *SOCIAL, *NONE_ZH, *SOCIAL_ZH, *NONE_EN, *SOCIAL_EN)]
    named = [(classifier.masked(text, CAST), "ask" if intent == "ask_or_tell" else intent) for text, intent in labelled]
    counts = Counter(intent for _, intent in named)
    return [(text, intent) for text, intent in named if counts[intent] >= FOLDS]


def export() -> dict:
    """The rows, the threshold chosen on them, and the cross-validated accuracy (what the JSON file holds)."""
    data = rows()
    predicted = classifier.out_of_fold(data, folds=FOLDS)
    truths = [intent for _, intent in data]
    tops = [max(p, key=p.__getitem__) for p in predicted]
    accuracy = sum(t == g for t, g in zip(truths, tops, strict=True)) / len(data)
    return {
        "rows": [list(row) for row in data],
        "sure": guesses.choose_sure(predicted, truths),
        "cross_validated": {"folds": FOLDS, "accuracy": round(accuracy, 4), "rows": len(data)},
    }


def dumped(data: dict) -> str:
    """The export as written: one row a line, so a corpus change reads as a small diff."""
    rows = ",\n".join(json.dumps(row, ensure_ascii=False) for row in data["rows"])
    rest = {k: v for k, v in data.items() if k != "rows"}
    return json.dumps(rest, ensure_ascii=False)[:-1] + f', "rows": [\n{rows}\n]}}\n'


def main() -> None:
    """Write the export beside the classifier."""
    classifier.ROWS.write_text(dumped(export()), encoding="utf-8")
    print(f"wrote {classifier.ROWS}")


if __name__ == "__main__":
    main()
