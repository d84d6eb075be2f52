"""The intent classifier: trained from the tuning corpus's export, the same every time, people as one slot."""

from cognitive_core.language import classifier
from cognitive_core.situation import PersonView
from tests.unit.cognitive_core import intent_rows

TEXTS = ("张三那边最近咋样", "最近我交代的事都咋样了", "what's the latest?", "下周我都不在", "告诉大家周五团建")


def test_the_committed_training_rows_are_the_tuning_corpus_export_run_make_intent_rows_when_not():
    fresh = intent_rows.export()
    kept = classifier.stored()
    figures = fresh["cross_validated"]
    print(
        f"\nintent classifier, {figures['folds']}-fold cross-validated on the tuning corpus: accuracy "
        f"{figures['accuracy']:.1%} over {figures['rows']} rows; harmless guesses answered from p >= {fresh['sure']}"
    )
    assert kept["rows"] == fresh["rows"], "the corpus changed: run `make intent-rows`"
    assert (kept["sure"], kept["cross_validated"]) == (fresh["sure"], figures)
    assert intent_rows.dumped(fresh) == classifier.ROWS.read_text(encoding="utf-8")


def test_the_cross_validated_accuracy_is_far_above_always_guessing_the_commonest_intent():
    data = classifier.stored()
    intents = [intent for _, intent in data["rows"]]
    commonest = max(intents.count(i) for i in set(intents)) / len(intents)
    assert data["cross_validated"]["accuracy"] > 2 * commonest


def test_two_trainings_on_the_same_rows_give_identical_probabilities():
    rows = [(text, intent) for text, intent in classifier.stored()["rows"]]
    first, second = classifier.train(rows), classifier.train(list(rows))
    masked = [classifier.masked(t, intent_rows.CAST) for t in TEXTS]
    assert [first.probabilities(t) for t in masked] == [second.probabilities(t) for t in masked]
    assert first.intents == second.intents and "none" in first.intents


def test_the_process_model_is_trained_once_and_reads_the_committed_threshold():
    assert classifier.model() is classifier.model()
    assert classifier.model().sure == classifier.stored()["sure"]


def test_every_person_a_message_names_is_the_same_slot_to_the_model():
    team = (
        PersonView("p_liuyang", "刘洋", aliases=("Liu Yang",)),
        PersonView("p_priya", "Priya Nair", aliases=("Priya",)),
    )
    assert classifier.masked("问问刘洋合同寄了没", team) == classifier.masked("問問劉洋合同寄了没", team)
    assert classifier.masked("问问刘洋合同寄了没", team) == f"问问{classifier.PERSON}合同寄了没"
    assert classifier.masked("Ask Priya if it shipped 👍", team) == f"ask {classifier.PERSON} if it shipped"
    assert classifier.masked("问问张三合同寄了没", team) == "问问张三合同寄了没"  # nobody of this team
