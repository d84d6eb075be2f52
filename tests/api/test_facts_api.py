"""`GET /v1/facts` and `GET /v1/facts/{fact_id}`: filters, newest first, stable cursors (SPEC §8)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from fact import service
from kernel.context import AppContext

FACT_FIELDS = {"fact_id", "fact_type", "source", "person_refs", "content", "timestamp", "causation_id"}


def _append(ctx: AppContext, clock, *, step: timedelta = timedelta(minutes=10), **values) -> str:
    clock.advance(step)
    values = {"fact_type": "system", "source": "system", "content": {"text": "tick"}, **values}
    with ctx.uow() as uow:
        fact, _ = service.append(uow, **values)
    return fact.fact_id


def _ids(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [item["fact_id"] for item in response.json()["items"]]


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def _walk(client, params: dict) -> list[str]:
    seen, cursor = [], None
    while True:
        page = client.get("/v1/facts", params={**params, **({"cursor": cursor} if cursor else {})}).json()
        seen += [i["fact_id"] for i in page["items"]]
        if not (cursor := page["next_cursor"]):
            return seen


@pytest.fixture
def seeded(ctx: AppContext, clock) -> dict[str, str]:
    """Facts 10 minutes apart from 10:10 (Shanghai) on, keyed by name."""
    return {
        "zhang_signal": _append(
            ctx,
            clock,
            fact_type="message_received",
            source="perception",
            person_refs=["p_zhang"],
            content={"text": "明天提测"},
        ),
        "decision": _append(
            ctx,
            clock,
            fact_type="decision",
            source="cognitive_core",
            person_refs=["p_zhang", "p_li"],
            causation_id="fact_20260318_001",
        ),
        "li_signal": _append(
            ctx,
            clock,
            fact_type="message_received",
            source="perception",
            person_refs=["p_li"],
            content={"text": "已上线"},
        ),
        "action": _append(
            ctx,
            clock,
            fact_type="action_result",
            source="action_layer",
            person_refs=["p_li"],
            causation_id="dec_20260318_001",
        ),
    }


def test_facts_are_listed_newest_first_with_the_fact_fields(client, seeded):
    response = client.get("/v1/facts")
    assert _ids(response) == [seeded["action"], seeded["li_signal"], seeded["decision"], seeded["zhang_signal"]]
    assert response.json()["next_cursor"] is None
    assert all(set(item) == FACT_FIELDS for item in response.json()["items"])


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"fact_type": "message_received"}, ["li_signal", "zhang_signal"]),
        ({"person_id": "p_zhang"}, ["decision", "zhang_signal"]),
        ({"person_id": "p_li", "fact_type": "message_received"}, ["li_signal"]),
        ({"causation_id": "dec_20260318_001"}, ["action"]),
        ({"since": "2026-03-18T10:20:00+08:00"}, ["action", "li_signal", "decision"]),
        ({"since": "2026-03-18T02:30:00Z"}, ["action", "li_signal"]),
        ({"until": "2026-03-18T10:30:00+08:00"}, ["decision", "zhang_signal"]),
        ({"since": "2026-03-18T10:20:00+08:00", "until": "2026-03-18T10:40:00+08:00"}, ["li_signal", "decision"]),
        ({"since": "15m"}, ["action", "li_signal"]),
        ({"q": "提测"}, ["zhang_signal"]),
        ({"person_id": "p_nobody"}, []),
    ],
)
def test_each_filter_narrows_the_list(client, seeded, params, expected):
    assert _ids(client.get("/v1/facts", params=params)) == [seeded[name] for name in expected]


def test_since_look_back_is_measured_from_now(ctx, client, clock):
    old = _append(ctx, clock, content={"text": "two days ago"})
    clock.advance(timedelta(days=2))
    recent = _append(ctx, clock, step=timedelta(hours=1), content={"text": "an hour ago"})
    clock.advance(timedelta(hours=1))
    assert _ids(client.get("/v1/facts", params={"since": "24h"})) == [recent]
    assert _ids(client.get("/v1/facts", params={"since": "3d"})) == [recent, old]


@pytest.mark.parametrize("field", ["since", "until"])
@pytest.mark.parametrize("value", ["2026-03-18T10:00:00", "yesterday", "24x", "99999999999d"])
def test_naive_or_unparseable_instant_is_a_validation_error_naming_the_field(client, seeded, field, value):
    error = _error(client.get("/v1/facts", params={field: value}), 422, "validation_error")
    assert error["field"] == field


def test_unknown_fact_type_filter_is_a_validation_error(client, seeded):
    assert (
        _error(client.get("/v1/facts", params={"fact_type": "gossip"}), 422, "validation_error")["field"] == "fact_type"
    )


def test_text_search_finds_chinese_and_treats_wildcards_literally(ctx, client, clock):
    # `q` reads human text only (fact.rules.FIELDS): these are messages, not system facts with made-up keys.
    def said(text: str) -> str:
        return _append(ctx, clock, fact_type="message_received", source="perception", content={"text": text})

    percent = said("进度 50%")
    said("进度 500")
    underscore = said("build_7 提测通过")
    said("buildX7")
    assert _ids(client.get("/v1/facts", params={"q": "50%"})) == [percent]
    assert _ids(client.get("/v1/facts", params={"q": "build_7"})) == [underscore]
    assert _ids(client.get("/v1/facts", params={"q": "提测通过"})) == [underscore]
    assert _ids(client.get("/v1/facts", params={"q": "%"})) == [percent]
    assert _ids(client.get("/v1/facts", params={"q": "未出现"})) == []


def test_limit_caps_the_page_and_over_500_is_rejected(client, seeded):
    page = client.get("/v1/facts", params={"limit": 2}).json()
    assert [i["fact_id"] for i in page["items"]] == [seeded["action"], seeded["li_signal"]]
    assert page["next_cursor"]
    assert len(_ids(client.get("/v1/facts", params={"limit": 500}))) == 4
    assert _error(client.get("/v1/facts", params={"limit": 501}), 422, "validation_error")["field"] == "limit"
    assert _error(client.get("/v1/facts", params={"limit": 0}), 422, "validation_error")["field"] == "limit"


def test_cursor_pages_walk_every_fact_once_in_order(ctx, client, clock):
    appended = [_append(ctx, clock, person_refs=["p_zhang"] if n % 2 else [], content={"n": n}) for n in range(11)]
    assert _walk(client, {"limit": 3}) == appended[::-1]
    assert _walk(client, {"limit": 1, "person_id": "p_zhang"}) == [f for n, f in enumerate(appended) if n % 2][::-1]
    assert _walk(client, {"limit": 500}) == appended[::-1]


def test_cursor_pages_stay_stable_when_facts_are_appended_between_fetches(ctx, client, clock):
    appended = [_append(ctx, clock, content={"n": n}) for n in range(7)]
    first = client.get("/v1/facts", params={"limit": 3}).json()
    newer = [_append(ctx, clock, content={"late": n}) for n in range(4)]
    second = client.get("/v1/facts", params={"limit": 3, "cursor": first["next_cursor"]}).json()
    _append(ctx, clock, content={"later": True})
    third = client.get("/v1/facts", params={"limit": 3, "cursor": second["next_cursor"]}).json()
    walked = [i["fact_id"] for page in (first, second, third) for i in page["items"]]
    assert walked == appended[::-1]
    assert third["next_cursor"] is None
    assert _walk(client, {"limit": 5})[1:5] == newer[::-1], "a fresh walk starts from the newest facts"


INVALID_CURSORS = ["garbage", "!!!", "eyJrIjogMX0", "-3", "1.5", " 12", "12 ", "1" * 20]


@pytest.mark.parametrize("cursor", INVALID_CURSORS)
def test_a_cursor_that_is_not_digits_is_a_400_invalid_cursor_error(client, seeded, cursor):
    _error(client.get("/v1/facts", params={"cursor": cursor}), 400, "invalid_cursor")


@pytest.mark.parametrize("cursor", ["", "9" * 19, str(2**63)])
def test_an_empty_cursor_or_one_above_every_key_is_the_first_page(client, seeded, cursor):
    assert _ids(client.get("/v1/facts", params={"cursor": cursor})) == _ids(client.get("/v1/facts"))


@pytest.mark.parametrize("cursor", ["0", "1", "000"])
def test_a_cursor_below_every_key_is_an_empty_last_page(client, seeded, cursor):
    assert client.get("/v1/facts", params={"cursor": cursor}).json() == {"items": [], "next_cursor": None}


def test_a_cursor_is_a_plain_position_leading_zeros_and_all(client, seeded):
    issued = client.get("/v1/facts", params={"limit": 1}).json()["next_cursor"]
    rest = _ids(client.get("/v1/facts", params={"cursor": issued}))
    assert rest == _ids(client.get("/v1/facts"))[1:]
    assert _ids(client.get("/v1/facts", params={"cursor": "000" + issued})) == rest


def test_one_fact_is_returned_with_its_timestamp_in_the_deployment_offset(client, seeded):
    response = client.get(f"/v1/facts/{seeded['decision']}")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == FACT_FIELDS
    assert body["fact_id"] == seeded["decision"] == "fact_20260318_002"
    assert body["timestamp"] == "2026-03-18T10:20:00+08:00"
    assert (body["fact_type"], body["source"], body["causation_id"]) == (
        "decision",
        "cognitive_core",
        "fact_20260318_001",
    )
    assert body["person_refs"] == ["p_zhang", "p_li"]


def test_unknown_fact_id_is_a_404_error(client, seeded):
    _error(client.get("/v1/facts/fact_20260318_999"), 404, "not_found")


def test_viewer_token_can_read_facts_and_a_missing_token_cannot(client, seeded, viewer_headers):
    assert len(_ids(client.get("/v1/facts", headers=viewer_headers))) == 4
    assert client.get(f"/v1/facts/{seeded['action']}", headers=viewer_headers).status_code == 200
    _error(client.get("/v1/facts", headers={"Authorization": ""}), 401, "unauthorized")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/facts"),
        ("PUT", "/v1/facts/fact_20260318_001"),
        ("PATCH", "/v1/facts/fact_20260318_001"),
        ("DELETE", "/v1/facts/fact_20260318_001"),
    ],
)
def test_facts_cannot_be_written_through_the_api(client, seeded, method, path):
    _error(client.request(method, path, json={"content": {}}), 405, "method_not_allowed")
    assert client.get("/v1/facts/fact_20260318_001").json()["content"] == {"text": "明天提测"}


def test_creating_a_person_is_recorded_as_a_person_changed_fact(client):
    created = client.post("/v1/persons", json={"person_id": "p_wang", "display_name": "王五"})
    assert created.status_code == 201, created.text
    items = client.get("/v1/facts", params={"person_id": "p_wang", "fact_type": "person_changed"}).json()["items"]
    assert len(items) == 1
    assert (items[0]["source"], items[0]["person_refs"], items[0]["content"]["change"]) == (
        "admin_api",
        ["p_wang"],
        "created",
    )
    assert items[0]["timestamp"] == "2026-03-18T10:00:00+08:00"


def test_look_back_before_year_one_is_422_not_500(client):
    response = client.get("/v1/facts", params={"since": "2000000d"})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "since"


@pytest.mark.parametrize("since", ["9999999999d", "24h\n", "-5m", "24 h", ""])
def test_what_the_document_refuses_is_refused(client, seeded, since):
    response = client.get("/v1/facts", params={"since": since})
    assert response.status_code == 422 and response.json()["error"]["field"] == "since"
