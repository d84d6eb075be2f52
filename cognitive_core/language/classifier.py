"""The intent classifier: TF-IDF over character and word n-grams, a logistic regression, trained from the corpus.

The training rows are the tuning corpus exported to `intent_rows.json` beside this module (`make intent-rows`; a
test fails when the export and the corpus part). The model is trained from them the first time a process needs
it — deterministically: fixed features, the lbfgs solver, no random state left open — so every process that
decides reads the same model, and nothing is pickled or written. It runs on one BLAS thread: on a shared 2-core
machine the default thread pool made a training 3.2 s instead of 0.15 s. scikit-learn (with numpy and scipy) is imported
only then: the web process, which never decides, never loads it (tests/unit/app/test_lazy_imports.py).

The people a message names are one slot: each is masked to one placeholder before the n-grams are counted, so
`问问张三…` and `问问刘洋…` are the same words to the model, whoever the team is.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognitive_core.language import names, phrasing

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView

ROWS = Path(__file__).with_name("intent_rows.json")
PERSON = "\ue001"  # the placeholder a named person becomes (a private-use character: never typed)
_LOCK = threading.Lock()


def masked(text: str, people: tuple[PersonView, ...]) -> str:
    """`text` folded (simplified, lower case, no emoji) with every person it names replaced by the placeholder."""
    folded = phrasing.simplified(phrasing.without_emoji(text))
    for found in reversed(names.named(folded, people)):
        folded = folded[: found.start] + PERSON + folded[found.end :]
    return folded.lower().strip()


def _pipeline() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), sublinear_tf=True)  # Chinese has no spaces
    words = TfidfVectorizer(analyzer="word", ngram_range=(1, 2), token_pattern=r"(?u)\b[a-z][a-z']+\b")
    return make_pipeline(make_union(chars, words), LogisticRegression(C=10.0, solver="newton-cg"))


@dataclass(frozen=True)
class Model:
    """A trained pipeline and its intents; `sure`: the probability above which a harmless guess is answered."""

    pipeline: Any
    intents: tuple[str, ...]
    sure: float

    def probabilities(self, text: str) -> dict[str, float]:
        """Each intent's probability for an already masked text."""
        row = self.pipeline.predict_proba([text])[0]
        return {intent: float(p) for intent, p in zip(self.intents, row, strict=True)}


def train(rows: list[tuple[str, str]], *, sure: float = 1.0) -> Model:
    """A model trained on (masked text, intent) rows; the same rows always give the same model."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        pipeline = _pipeline().fit([t for t, _ in rows], [i for _, i in rows])
    return Model(pipeline, tuple(str(i) for i in pipeline.classes_), sure)


def out_of_fold(rows: list[tuple[str, str]], *, folds: int = 5) -> list[dict[str, float]]:
    """Each row's probabilities from a model that did not see it (stratified folds, a fixed shuffle)."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from threadpoolctl import threadpool_limits

    texts, intents = [t for t, _ in rows], [i for _, i in rows]
    split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    with threadpool_limits(1):
        predicted = cross_val_predict(_pipeline(), texts, intents, cv=split, method="predict_proba")
    classes = sorted(set(intents))  # cross_val_predict orders the columns as the sorted labels
    return [{c: float(p) for c, p in zip(classes, row, strict=True)} for row in predicted]


def stored() -> dict[str, Any]:
    """The committed export: `rows` ([masked text, intent]), `sure`, and the cross-validated figures."""
    return json.loads(ROWS.read_text(encoding="utf-8"))


@cache
def _model() -> Model:
    data = stored()
    return train([(t, i) for t, i in data["rows"]], sure=data["sure"])


def model() -> Model:
    """This process's model, trained on first use (one training even when several threads ask at once)."""
    with _LOCK:
        return _model()


def warm() -> None:
    """Train the model in the background, so the first message the rules cannot read does not wait for it."""
    threading.Thread(target=model, name="deputy-intent-model", daemon=True).start()
