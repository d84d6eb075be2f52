"""`work_state` (SPEC §3.3): one validated shape; away and on leave both mean away until `until` (or open-ended)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from person import work_state
from person.work_state import WorkState

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)

BAD = {
    "unknown_status": ({"status": "vacation"}, "status"),
    "until_without_offset": ({"status": "away", "until": "2026-03-20T09:00:00"}, "until"),
    "until_a_date_only": ({"status": "away", "until": "2026-03-20"}, "until"),
    "until_a_unix_timestamp": ({"status": "away", "until": 1774000000}, "until"),
    "until_out_of_range": ({"status": "away", "until": "2200-01-01T00:00:00+00:00"}, "until"),
    "stand_in_not_a_person_id": ({"status": "away", "stand_in_id": "lisi"}, "stand_in_id"),
    "note_too_long": ({"status": "away", "note": "x" * 501}, "note"),
    "note_not_text": ({"status": "away", "note": 5}, "note"),
    "unknown_field": ({"status": "away", "backup": "p_lisi"}, "backup"),
    "until_while_available": ({"status": "available", "until": "2026-03-20T09:00:00+08:00"}, ""),
    "stand_in_while_available": ({"stand_in_id": "p_lisi"}, ""),
}


@pytest.mark.parametrize("raw,field", BAD.values(), ids=BAD.keys())
def test_a_bad_work_state_names_its_field(raw, field):
    with pytest.raises(ValidationError) as exc:
        WorkState.model_validate(raw)
    assert field in {".".join(str(p) for p in e["loc"]) for e in exc.value.errors()}


def test_an_empty_work_state_means_available():
    assert WorkState.model_validate({}) == WorkState(status="available", until=None, stand_in_id=None, note="")


@pytest.mark.parametrize(
    "raw,away",
    [
        ({"status": "available"}, False),
        ({"status": "away"}, True),  # open-ended
        ({"status": "on_leave", "until": "2026-03-20T09:00:00+08:00"}, True),
        ({"status": "on_leave", "until": "2026-03-18T10:00:00+08:00"}, False),  # back exactly now
        ({"status": "away", "until": "2026-03-17T09:00:00+08:00"}, False),  # came back yesterday
    ],
)
def test_away_and_on_leave_both_mean_away_until_until(raw, away):
    assert WorkState.model_validate(raw).away_at(NOW) is away


@pytest.mark.parametrize(
    "raw,expected",
    [
        ({}, {"status": "available"}),
        ({"status": "on_leave", "until": "2026-04-01"}, {"status": "on_leave", "until": None}),
        ({"status": "holiday", "until": "2026-04-01"}, {"status": "available"}),
        (
            {"status": "away", "stand_in_id": "p_li", "n": 1, "until": "2026-04-01T00:00:00+00:00"},
            {"status": "away", "stand_in_id": "p_li", "until": datetime(2026, 4, 1, tzinfo=UTC)},
        ),
    ],
)
def test_a_row_stored_before_validation_reads_back_what_still_makes_sense(raw, expected):
    state = work_state.read(raw)
    assert {name: getattr(state, name) for name in expected} == expected
