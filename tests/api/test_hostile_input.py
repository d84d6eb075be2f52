"""Hostile input is a 4xx that writes nothing, identically on SQLite and PostgreSQL (SPEC §8)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from action.models import ActionRow
from concern.models import Concern
from fact.models import Fact
from kernel.limits import MAX_JSON_DEPTH

ASK = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": "提测什么时候能给？", "priority": "P1"}
SIGNAL = {"source": "ci", "signal_type": "build_failed", "external_id": "b1", "person_id": "p_boss"}
JSON_HEADERS = {"content-type": "application/json"}


def counts(ctx) -> tuple[int, int, int]:
    """(facts, concerns, actions) as stored."""
    with ctx.reader() as uow:
        return tuple(uow.session.scalar(select(func.count()).select_from(t)) for t in (Fact, Concern, ActionRow))


def post_raw(client, path: str, raw: str | bytes):
    return client.post(path, content=raw if isinstance(raw, bytes) else raw.encode(), headers=JSON_HEADERS)


def assert_refused(response, status: int, code: str, field: str | None = None) -> None:
    assert response.status_code == status, response.text[:300]
    error = response.json()["error"]
    assert error["code"] == code and isinstance(error["message"], str)
    if field is not None:
        assert error["field"] == field, error


def nested(depth: int) -> str:
    """A JSON value that is `depth` arrays deep."""
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "deadline", ["9999-12-31T23:00:00+00:00", "9999-12-31T00:00:00+00:00", "0001-01-01T00:00:00+14:00"]
)
def test_a_deadline_outside_the_sane_range_is_422_naming_deadline_and_writes_nothing(ctx, client, team, deadline):
    before = counts(ctx)
    assert_refused(client.post("/v1/concerns", json={**ASK, "deadline": deadline}), 422, "validation_error", "deadline")
    assert counts(ctx) == before and team[1].sent == []
    assert client.get("/v1/concerns").status_code == 200


def test_a_deadline_more_than_a_year_ahead_is_409_and_one_within_a_year_is_accepted(ctx, client, clock, team):
    before = counts(ctx)
    too_far = (clock.now() + timedelta(days=367)).isoformat()
    assert_refused(client.post("/v1/concerns", json={**ASK, "deadline": too_far}), 409, "conflict", "deadline")
    assert counts(ctx) == before
    within = clock.now() + timedelta(days=365)
    response = client.post("/v1/concerns", json={**ASK, "deadline": within.isoformat()})
    assert response.status_code == 201 and datetime.fromisoformat(response.json()["deadline"]) == within


def test_a_stored_instant_beyond_local_time_is_listed_in_utc_instead_of_a_500(ctx, client, team):
    extreme = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)  # written before deadlines were bounded
    with ctx.uow() as uow:
        uow.session.add(
            Concern(
                concern_id="con_20260318_900",
                originator_id="p_boss",
                target_person_id="p_zhangsan",
                question="q",
                priority="P1",
                state="waiting_reply",
                follow_up_count=0,
                deadline=extreme,
                created_at=uow.now,
                updated_at=uow.now,
            )
        )
    listed = client.get("/v1/concerns")
    assert listed.status_code == 200
    [item] = listed.json()["items"]
    assert item["deadline"] == "9999-12-31T23:59:59+00:00" and item["created_at"].endswith("+08:00")
    assert client.get("/v1/concerns/con_20260318_900").json()["deadline"] == "9999-12-31T23:59:59+00:00"


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/v1/notifications", {"target_person_id": "p_zhangsan", "text": "明早\u0000开会"}, "text"),
        ("/v1/concerns", {**ASK, "question": "提测\u0000?"}, "question"),
        ("/v1/signals", {**SIGNAL, "content": {"build": {"log": ["ok", "bad\u0000byte"]}}}, "content.build.log.1"),
        ("/v1/signals", {**SIGNAL, "content": {"k\u0000ey": 1}}, "content"),
    ],
    ids=["notification_text", "concern_question", "signal_content", "signal_content_key"],
)
def test_nul_in_any_text_is_422_naming_the_field_before_anything_is_written(ctx, client, team, path, body, field):
    before = counts(ctx)
    response = client.post(path, json=body)
    assert_refused(response, 422, "validation_error", field)
    assert "NUL" in response.json()["error"]["message"]
    assert counts(ctx) == before and team[0].sent == team[1].sent == []


def test_a_raw_nul_byte_in_a_body_is_422_too(ctx, client, team):
    before = counts(ctx)
    raw = json.dumps({"target_person_id": "p_zhangsan", "text": "ab"}).encode().replace(b"ab", b"a\x00b")
    assert_refused(post_raw(client, "/v1/notifications", raw), 422, "validation_error", "body")
    assert counts(ctx) == before


def test_an_escaped_backslash_before_u0000_is_ordinary_text(client, team):
    text = "C:\\u0000\\dir"  # a backslash, then the letters u0000: no NUL anywhere
    response = client.post("/v1/notifications", json={"target_person_id": "p_zhangsan", "text": text})
    assert response.status_code == 200 and team[1].texts_to("tg_zs") == [text]


@pytest.mark.parametrize(
    "url, field", [("/v1/facts?person_id=p_a%00", "person_id"), ("/v1/actions?since=24h%00", "since")]
)
def test_nul_in_a_query_parameter_is_422_naming_it(client, url, field):
    assert_refused(client.get(url), 422, "validation_error", field)


@pytest.mark.parametrize("url", ["/v1/concerns/con_20260318_001%00", "/v1/facts/fact%00x", "/v1/actions/act%00/trace"])
def test_nul_in_a_path_is_404_on_every_route(client, url):
    assert_refused(client.get(url), 404, "not_found", "path")


def test_a_lone_surrogate_in_signal_content_is_422(ctx, client, team):
    before = counts(ctx)
    raw = json.dumps({**SIGNAL, "content": {"note": "\ud800"}})  # ensure_ascii writes the escape \\ud800
    assert_refused(post_raw(client, "/v1/signals", raw), 422, "validation_error", "content.note")
    assert counts(ctx) == before
    emoji = json.dumps({**SIGNAL, "external_id": "b2", "content": {"note": "构建失败 😀"}})  # a valid surrogate pair
    accepted = post_raw(client, "/v1/signals", emoji)
    assert accepted.status_code == 202 and accepted.json()["content"]["content"] == {"note": "构建失败 😀"}


def test_json_nested_deeper_than_the_limit_is_400_too_deep_and_writes_nothing(ctx, client, team):
    before = counts(ctx)
    for depth in (MAX_JSON_DEPTH - 1, 900):  # the body object and `content` add two levels
        raw = json.dumps({**SIGNAL, "content": {}}).replace("{}", f'{{"x": {nested(depth)}}}')
        assert_refused(post_raw(client, "/v1/signals", raw), 400, "too_deep", "body")
    assert counts(ctx) == before


def test_json_nested_up_to_the_limit_is_accepted_and_brackets_in_strings_do_not_count(ctx, client, team):
    raw = json.dumps({**SIGNAL, "content": {"note": "[{" * 500}})
    assert post_raw(client, "/v1/signals", raw).status_code == 202
    deepest = json.dumps({**SIGNAL, "external_id": "b2", "content": {}})
    deepest = deepest.replace("{}", f'{{"x": {nested(MAX_JSON_DEPTH - 2)}}}')
    assert post_raw(client, "/v1/signals", deepest).status_code == 202


@pytest.mark.parametrize("path, field", [("/v1/facts", "since"), ("/v1/facts", "until"), ("/v1/actions", "since")])
@pytest.mark.parametrize(
    "value", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "2100-01-01T00:00:00+00:00", "9999999h"]
)
def test_an_instant_filter_outside_the_sane_range_is_422_naming_the_field(client, path, field, value):
    assert_refused(client.get(path, params={field: value}), 422, "validation_error", field)


def test_an_instant_filter_inside_the_range_still_works(client):
    params = {"since": "1970-01-01T00:00:00+00:00", "until": "2099-12-31T23:59:59+00:00"}
    assert client.get("/v1/facts", params=params).status_code == 200


@pytest.mark.parametrize("occurred_at", ["9999-12-31T23:59:59-14:00", "1969-12-31T23:59:59+00:00"])
def test_a_signal_occurred_at_outside_the_sane_range_is_422(ctx, client, team, occurred_at):
    before = counts(ctx)
    response = client.post("/v1/signals", json={**SIGNAL, "occurred_at": occurred_at})
    assert_refused(response, 422, "validation_error", "occurred_at")
    assert counts(ctx) == before
