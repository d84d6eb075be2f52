"""The held-out set judges understanding on words nobody tuned for (SPEC §6, turn 3).

Non-commands contact nobody, nobody is ever contacted in someone else's place, the share of rows right (every
stated field) never falls below the last recorded figure, and at least 90 % of the whole set is right (the issue's
bar).
"""

from __future__ import annotations

import pytest

from tests.heldout import scoring

# The last recorded held-out scores (docs/PERFORMANCE.md), raised as understanding improves: the first 234 rows
# (requests of every kind), and the away/back phrasings added later (ids away…), each held to its own figure.
FLOOR = 224 / 234
AWAY_FLOOR = 12 / 24


@pytest.fixture(scope="module")
def verdicts() -> list[scoring.Verdict]:
    return scoring.score()


def test_the_heldout_set_is_big_and_mixed_enough():
    rows = scoring.rows()
    share = {lang: sum(r["lang"] == lang for r in rows) / len(rows) for lang in ("zh", "en", "mixed")}
    chatter = sum(r["intent"] in ("social", "none") for r in rows) / len(rows)
    assert len(rows) >= 200 and share["zh"] >= 0.4 and share["en"] >= 0.3 and share["mixed"] >= 0.1
    assert chatter >= 0.1


def test_no_non_command_contacts_anyone(verdicts):
    spoken = [v for v in verdicts if v.row["intent"] in ("social", "none")]
    contacted = [v.row["id"] for v in spoken if v.got["intent"] in scoring.CONTACTS]
    assert not contacted, scoring.misses([v for v in spoken if v.row["id"] in contacted])


def test_nobody_is_contacted_in_place_of_the_person_meant(verdicts):
    wrongly = [v for v in verdicts if scoring.contacted_wrongly(v)]
    assert not wrongly, scoring.misses(wrongly)


def test_the_heldout_score_never_falls_below_the_recorded_floor(verdicts):
    for name, floor, part in (
        ("first rows", FLOOR, [v for v in verdicts if not v.row["id"].startswith("away")]),
        ("away rows", AWAY_FLOOR, [v for v in verdicts if v.row["id"].startswith("away")]),
    ):
        right = sum(v.right for v in part) / len(part)
        print(f"\nheld-out {name}: {sum(v.right for v in part)}/{len(part)} right (floor {floor:.1%})")
        assert right >= floor, scoring.table(part, title="held-out") + "\n" + scoring.misses(part)


def test_ninety_percent_of_the_heldout_set_is_understood_right(verdicts):
    right = sum(v.right for v in verdicts) / len(verdicts)
    assert right >= 0.9, scoring.table(verdicts, title="held-out")
