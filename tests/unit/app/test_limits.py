"""The SPEC §8 limits as pure rules: JSON depth read from bytes, NUL and surrogate detection, the instant range."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from pydantic import TypeAdapter, ValidationError

from app.api.guards import screen_url
from kernel.errors import DeputyError, Invalid
from kernel.limits import EARLIEST, LATEST, MAX_JSON_DEPTH, SaneInstant, json_too_deep, local_isoformat
from kernel.screening import TooDeep, screen_json


def test_depth_counts_arrays_and_objects_but_not_brackets_inside_strings():
    at_limit = ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH).encode()
    assert not json_too_deep(at_limit) and json_too_deep(b"[" + at_limit + b"]")
    assert json_too_deep(b'{"a": ' * (MAX_JSON_DEPTH + 1))  # unterminated: still refused before any parser sees it
    tricky = json.dumps({"s": '[[[{{{ \\" [[[', "t": "\\"}).encode()  # escaped quotes and a trailing backslash
    assert not json_too_deep(tricky, limit=1)


@pytest.mark.parametrize(
    "raw, field",
    [
        (rb'{"a": "x\u0000"}', "a"),
        (rb'{"a": ["ok", {"b": "\\\u0000"}]}', "a.1.b"),  # an escaped backslash, then a real \u0000 escape
        (b'{"a": "x\x00"}', "body"),  # a raw NUL byte is not even valid JSON, and still a NUL
        (rb'{"a": "\ud800"}', "a"),  # a lone surrogate: no UTF-8 column stores it
        (b'{"a": "\xed\xa0\x80"}', "a"),  # the same surrogate, raw (Python's decoder lets it through)
        (rb'["\u0000"]', "0"),
    ],
)
def test_text_no_backend_can_store_is_refused_naming_the_field(raw, field):
    with pytest.raises(Invalid) as refused:
        screen_json(raw)
    assert refused.value.field == field and refused.value.status == 422


@pytest.mark.parametrize(
    "raw", [rb'{"a": "C:\\u0000"}', rb'{"a": "\ud83d\ude00"}', b'{"a": "\\\\\\\\u0000"}', b"not json \\u"]
)
def test_escaped_backslashes_surrogate_pairs_and_non_json_pass(raw):
    screen_json(raw)


def test_too_deep_is_a_400_too_deep():
    with pytest.raises(TooDeep) as refused:
        screen_json(b"[" * 1000)
    assert (refused.value.status, refused.value.code) == (400, "too_deep")


@pytest.mark.parametrize(
    "path, query, status, field",
    [
        ("/v1/x\x00", b"", 404, "path"),
        ("/v1/facts", b"since=1h&person_id=a%00b", 422, "person_id"),
        ("/v1/facts", b"a%00=1", 422, "query"),
    ],
)
def test_nul_in_the_url_is_refused_naming_the_parameter(path, query, status, field):
    with pytest.raises(DeputyError) as refused:
        screen_url({"path": path, "query_string": query})
    assert (refused.value.status, refused.value.field) == (status, field)


def test_the_instant_range_is_inclusive_below_and_exclusive_above():
    sane = TypeAdapter(SaneInstant)
    assert sane.validate_python(EARLIEST) == EARLIEST
    for outside in (LATEST, "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "1969-12-31T23:59:59Z"):
        with pytest.raises(ValidationError):
            sane.validate_python(outside)


def test_a_stored_instant_beyond_local_time_is_shown_in_utc():
    shanghai = ZoneInfo("Asia/Shanghai")
    assert local_isoformat(datetime(2026, 3, 18, 2, tzinfo=UTC), shanghai) == "2026-03-18T10:00:00+08:00"
    assert local_isoformat(datetime(9999, 12, 31, 23, 59, tzinfo=UTC), shanghai) == "9999-12-31T23:59:00+00:00"
    assert local_isoformat(datetime(1, 1, 1, tzinfo=UTC), ZoneInfo("America/New_York")) == "0001-01-01T00:00:00+00:00"
