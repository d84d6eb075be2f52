"""The document's instant pattern admits only instants inside SPEC §8's range, and every one off its edge days."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel.instants import INSTANT_FORM, INSTANT_PATTERN
from kernel.limits import in_range

PATTERN = re.compile(INSTANT_PATTERN)
EDGE_DAYS = {"1969-12-31", "1970-01-01", "2099-12-31", "2100-01-01"}
offsets = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1).map(lambda m: timezone(timedelta(minutes=m)))
local_times = st.datetimes(min_value=datetime(1960, 1, 1), max_value=datetime(2110, 1, 1))
near_edges = st.sampled_from([datetime.fromisoformat(day) for day in sorted(EDGE_DAYS)])
in_a_day = st.integers(0, 86400 * 10**6 - 1).map(lambda micros: timedelta(microseconds=micros))
edge_times = st.builds(lambda day, into: day + into, near_edges, in_a_day)


def written(local: datetime, offset: timezone) -> str:
    """RFC 3339 text as a client writes it: `Z` for UTC, seconds always, microseconds when there are any."""
    text = local.replace(tzinfo=offset).isoformat()
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text


@settings(max_examples=1000, deadline=None)
@given(st.one_of(local_times, edge_times), offsets)
def test_every_instant_the_pattern_admits_lies_inside_the_range(local, offset):
    text = written(local, offset)
    assert INSTANT_FORM.fullmatch(text)
    instant = datetime.fromisoformat(text)
    if PATTERN.fullmatch(text):
        assert in_range(instant), text
    elif text[:10] not in EDGE_DAYS:
        assert not in_range(instant), f"{text} lies inside but the pattern refuses it"


@pytest.mark.parametrize(
    "text",
    [
        "1970-01-01T00:00:00Z",
        "1970-01-01T00:00:00-05:00",
        "1970-01-01T23:59:59.999999+00:00",
        "1970-01-02T00:00:00+23:59",
        "2099-12-31T23:59:59Z",
        "2099-12-31T00:00:00+14:00",
        "2099-12-30T23:59:59-23:59",
    ],
)
def test_the_edge_days_admit_every_offset_that_keeps_the_whole_day_inside(text):
    assert PATTERN.fullmatch(text) and in_range(datetime.fromisoformat(text))


@pytest.mark.parametrize(
    "text",
    ["1970-01-01T00:30:00+01:00", "1969-12-31T23:59:59Z", "2100-01-01T00:00:00Z", "2099-12-31T23:00:00-02:00"],
)
def test_the_pattern_refuses_edge_instants_that_lie_outside(text):
    assert not PATTERN.fullmatch(text) and not in_range(datetime.fromisoformat(text).astimezone(UTC))


@pytest.mark.parametrize(
    "text",
    ["2026-03-18T10:00+08:00", "2026-03-18 10:00:00+08:00", "2026-03-18t10:00:00Z", "2026-03-18T10:00:00", "0"],
)
def test_other_iso_spellings_are_not_the_written_form(text):
    assert not INSTANT_FORM.fullmatch(text) and not PATTERN.fullmatch(text)
