"""The simulation's conversation check: information answered with its pair's words must never open a commitment; the
same question answered with a promise may."""

from __future__ import annotations

from types import SimpleNamespace

from tests.simulation.conversation import ConversationChecks


def _loops(answer: str | None) -> list[SimpleNamespace]:
    question = SimpleNamespace(concern_id="con_q", kind="question", question="问题30：你周末加班不？", answer=answer,
                               parent_id=None)  # fmt: skip
    commitment = SimpleNamespace(concern_id="con_c", kind="commitment", question=question.question, answer=None,
                                 parent_id="con_q")  # fmt: skip
    return [question, commitment]


def _checks() -> ConversationChecks:
    checks = ConversationChecks()
    checks.information["30"] = "周六上午加"
    return checks


def test_a_commitment_opened_by_the_pairs_information_is_a_violation():
    found = _checks().violations(_loops("周六上午加"))
    assert found == ["con_c: a commitment opened by information '周六上午加'"]


def test_a_commitment_opened_by_a_promise_to_an_information_question_is_not():
    assert _checks().violations(_loops("答复42：周五前给你")) == []


def test_a_commitment_whose_question_is_not_known_is_held_to_the_rule():
    loops = _loops(None)
    assert len(_checks().violations(loops[1:])) == 1
