"""People in the console: the policy form validates as the API does, changes are audited, codes are shown once."""

from __future__ import annotations

import html as html_lib
import re
from datetime import UTC, datetime

import pytest

from person import service
from tests.console.conftest import facts_of

GOOD = {
    "allow_proactive_ping": "true",
    "max_proactive_contacts_per_day": "3",
    "preferred_channel": "telegram",
    "quiet_hours": "22:00-08:00, 12:00-13:30",
    "quiet_days": "6,7",
    "paused_until": "2026-03-20T10:00",
}
# A bad form value and the JSON the API's PATCH would get for it: both must be refused, naming the same field.
BAD = [
    ("max_proactive_contacts_per_day", "101", 101),
    ("max_proactive_contacts_per_day", "-1", -1),
    ("max_proactive_contacts_per_day", "three", "three"),
    ("quiet_hours", "25:00-08:00", [{"start": "25:00", "end": "08:00"}]),
    ("quiet_hours", "08:00-08:00", [{"start": "08:00", "end": "08:00"}]),
    ("quiet_days", "8", [8]),
    ("quiet_days", "6,6", [6, 6]),
    ("paused_until", "2100-01-02T00:00", "2100-01-02T00:00:00+08:00"),
    ("preferred_channel", "pigeon", "pigeon"),
    ("follow_up_stretch", "0.5", 0.5),
    ("follow_up_stretch", "5", 5.0),
    ("follow_up_stretch", "twice", "twice"),
]


def policy_of(ctx, person_id="p_zhangsan"):
    with ctx.reader() as uow:
        return service.policy_of(service.get_or_404(uow, person_id=person_id)).model_dump(mode="json")


def error_beside(html: str, field: str) -> str:
    match = re.search(rf'<p class="field-error" id="error-{field}" role="alert">([^<]*)</p>', html)
    assert match, f"no error slot for {field}"
    return html_lib.unescape(match.group(1))


def test_the_policy_form_shows_the_stored_policy_in_its_own_spelling(admin, ctx, zhangsan, client):
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy",
        json={
            "quiet_hours": [{"start": "22:00", "end": "08:00"}],
            "quiet_days": [6, 7],
            "paused_until": "2026-03-20T10:00:00+08:00",
        },
    )
    html = admin.get("/console/persons/p_zhangsan").text
    assert 'name="quiet_hours" value="22:00-08:00"' in html
    assert 'name="quiet_days" value="6,7"' in html
    assert 'name="paused_until" value="2026-03-20T10:00"' in html
    assert 'name="follow_up_stretch" value="1"' in html


def test_the_follow_up_stretch_is_set_from_the_form_and_left_alone_when_the_form_has_none(admin, ctx, zhangsan):
    assert admin.post("/console/persons/p_zhangsan/policy", {**GOOD, "follow_up_stretch": "2.5"}).status_code == 303
    assert policy_of(ctx)["follow_up_stretch"] == 2.5
    assert admin.post("/console/persons/p_zhangsan/policy", GOOD).status_code == 303
    assert policy_of(ctx)["follow_up_stretch"] == 2.5


@pytest.mark.parametrize("field,form_value,api_value", BAD, ids=[f"{b[0]}={b[1]}" for b in BAD])
def test_a_bad_policy_value_is_refused_beside_its_field_as_the_api_refuses_it(
    admin, ctx, zhangsan, client, field, form_value, api_value
):
    before, facts_before = policy_of(ctx), facts_of(ctx, "person_changed", zhangsan)
    response = admin.post("/console/persons/p_zhangsan/policy", {**GOOD, field: form_value})
    assert response.status_code == 422
    assert error_beside(response.text, field)
    if field != "preferred_channel":  # a select offers only real channels: a forged one has no option to keep
        assert f'value="{form_value}"' in response.text  # what was typed stays in the form
    assert "Nothing was saved" in response.text
    assert policy_of(ctx) == before and facts_of(ctx, "person_changed", zhangsan) == facts_before
    api = client.patch("/v1/persons/p_zhangsan/interaction_policy", json={field: api_value})
    assert api.status_code == 422 and api.json()["error"]["field"].split(".")[0] == field


def test_a_preferred_channel_the_person_is_not_bound_on_is_refused_beside_it(admin, ctx, zhangsan):
    response = admin.post("/console/persons/p_zhangsan/policy", {**GOOD, "preferred_channel": "feishu"})
    assert response.status_code == 409  # as the API answers it: the stored bindings refuse it, not the form
    assert "not one of the person's bound channels" in error_beside(response.text, "preferred_channel")
    assert policy_of(ctx)["preferred_channel"] is None


def test_a_good_policy_is_saved_and_audited_with_the_admin_token_name(admin, ctx, zhangsan):
    response = admin.post("/console/persons/p_zhangsan/policy", GOOD)
    assert response.status_code == 303 and response.headers["location"].endswith("?saved=saved#policy")
    saved = policy_of(ctx)
    assert datetime.fromisoformat(saved.pop("paused_until")) == datetime(2026, 3, 20, 2, 0, tzinfo=UTC)  # 10:00 local
    assert saved == {
        "allow_proactive_ping": True,
        "max_proactive_contacts_per_day": 3,
        "preferred_channel": "telegram",
        "quiet_hours": [{"start": "22:00", "end": "08:00"}, {"start": "12:00", "end": "13:30"}],
        "quiet_days": [6, 7],
        # Not on the form: kept as they were.
        "daily_brief_at": "09:00",
        "weekly_review_at": None,
        "digest": False,
        "digest_max_wait": "4h",
        "follow_up_stretch": 1.0,
    }
    fact = facts_of(ctx, "person_changed", zhangsan)[0]
    assert fact.content["actor"] == "ops" and fact.content["change"] == "policy_changed"
    assert fact.content["before"]["interaction_policy"]["max_proactive_contacts_per_day"] == 5
    assert fact.content["after"]["interaction_policy"]["max_proactive_contacts_per_day"] == 3
    assert "Saved." in admin.get(response.headers["location"]).text


def test_an_unchecked_box_turns_proactive_contact_off_and_an_empty_pause_clears_it(admin, ctx, zhangsan):
    admin.post("/console/persons/p_zhangsan/policy", GOOD)
    form = {**GOOD, "allow_proactive_ping": "false", "paused_until": ""}
    assert admin.post("/console/persons/p_zhangsan/policy", form).status_code == 303
    assert policy_of(ctx)["allow_proactive_ping"] is False and policy_of(ctx)["paused_until"] is None


def test_saving_the_policy_unchanged_writes_no_fact(admin, ctx, zhangsan):
    admin.post("/console/persons/p_zhangsan/policy", GOOD)
    count = len(facts_of(ctx, "person_changed", zhangsan))
    response = admin.post("/console/persons/p_zhangsan/policy", GOOD)
    assert response.headers["location"].endswith("?saved=no_change#policy")
    assert len(facts_of(ctx, "person_changed", zhangsan)) == count


def test_inline_validation_names_every_field_and_saves_nothing(admin, ctx, zhangsan):
    before = policy_of(ctx)
    response = admin.post("/console/persons/p_zhangsan/policy/check", {**GOOD, "quiet_days": "9"})
    assert response.status_code == 200
    assert error_beside(response.text.replace(' hx-swap-oob="true"', ""), "quiet_days")
    assert error_beside(response.text.replace(' hx-swap-oob="true"', ""), "quiet_hours") == ""
    assert policy_of(ctx) == before


def test_the_profile_form_changes_the_person_as_the_api_would(admin, ctx, zhangsan):
    form = {
        "display_name": "张三丰",
        "aliases": "Zhang San, 老张",
        "role": "member",
        "manager_id": "",
        "timezone": "Europe/Berlin",
        "locale": "en",
    }
    assert admin.post("/console/persons/p_zhangsan/profile", form).status_code == 303
    with ctx.reader() as uow:
        person = service.get_or_404(uow, person_id=zhangsan)
        assert (person.display_name, person.aliases, person.manager_id, person.timezone, person.locale) == (
            "张三丰",
            ["Zhang San", "老张"],
            None,
            "Europe/Berlin",
            "en",
        )
    assert facts_of(ctx, "person_changed", zhangsan)[0].content["actor"] == "ops"
    bad = admin.post("/console/persons/p_zhangsan/profile", {**form, "manager_id": "p_nobody"})
    assert bad.status_code == 409 and "does not exist" in error_beside(bad.text, "manager_id")
    bad = admin.post("/console/persons/p_zhangsan/profile", {**form, "timezone": "Mars/Olympus"})
    assert bad.status_code == 422 and "IANA" in error_beside(bad.text, "timezone")


def test_creating_a_person_validates_as_the_api_and_refuses_a_taken_id_beside_it(admin, ctx, zhangsan):
    form = {
        "person_id": "p_lisi",
        "display_name": "李四",
        "role": "member",
        "locale": "zh",
        "channel": "telegram",
        "external_user_id": "4001",
        "chat_id": "4001",
        "aliases": "",
        "manager_id": "",
        "timezone": "",
    }
    assert admin.post("/console/persons", form).status_code == 303
    with ctx.reader() as uow:
        assert [b.external_user_id for b in service.bindings_of(uow, person_id="p_lisi")] == ["4001"]
    taken = admin.post("/console/persons", form)
    assert taken.status_code == 409 and "already exists" in error_beside(taken.text, "person_id")
    bad = admin.post("/console/persons", {**form, "person_id": "Li Si"})
    assert bad.status_code == 422 and error_beside(bad.text, "person_id")
    nul = admin.post("/console/persons", {**form, "person_id": "p_wu", "display_name": "Wu\x00"})
    assert nul.status_code == 422 and "NUL" in error_beside(nul.text, "display_name")


def test_a_bind_code_is_shown_once_and_its_issue_is_audited(admin, ctx, zhangsan):
    response = admin.post("/console/persons/p_zhangsan/bind_codes")
    code = re.search(r'<span class="code-big mono">([A-Z2-9]{10})</span>', response.text).group(1)
    assert f"/start {code}" in response.text
    assert code not in admin.get("/console/persons/p_zhangsan").text
    fact = facts_of(ctx, "person_changed", zhangsan)[0]
    assert fact.content["change"] == "bind_code_issued" and fact.content["actor"] == "ops"
    assert code not in str(fact.content)


def test_an_unreachable_binding_can_be_marked_reachable_again(admin, ctx, zhangsan):
    with ctx.uow(actor="test") as uow:
        service.mark_unreachable(uow, person_id=zhangsan, channel="telegram", reason="blocked")
    page = admin.get("/console/persons/p_zhangsan").text
    assert "Mark reachable" in page
    response = admin.post(
        "/console/persons/p_zhangsan/bindings/reachable", {"channel": "telegram", "external_user_id": "1001"}
    )
    assert response.status_code == 303
    with ctx.reader() as uow:
        assert [b.reachable for b in service.bindings_of(uow, person_id=zhangsan)] == [True]
    fact = facts_of(ctx, "person_changed", zhangsan)[0]
    assert fact.content["change"] == "bindings_changed" and fact.content["actor"] == "ops"


def test_the_persons_list_shows_channels_cap_quiet_hours_and_pause_and_searches(viewer, ctx, zhangsan, client):
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy",
        json={
            "max_proactive_contacts_per_day": 2,
            "paused_until": "2026-03-25T09:00:00+08:00",
            "quiet_hours": [{"start": "23:00", "end": "08:00"}],
        },
    )
    html = viewer.get("/console/persons").text
    row = re.search(r"<tr class=\"\">\s*<td[^>]*><a href=\"/console/persons/p_zhangsan\".*?</tr>", html, re.S).group(0)
    assert "Telegram ✓" in row and "王五" in row and ">2<" in row and "23:00–08:00" in row
    assert "2026-03-25 09:00" in row
    found = viewer.get("/console/persons?q=王", headers={"HX-Request": "true"}).text
    assert "p_wangwu" in found and "p_zhangsan" not in found and "<html" not in found


def test_an_unknown_person_is_a_404_page(viewer):
    response = viewer.get("/console/persons/p_nobody")
    assert response.status_code == 404 and "p_nobody does not exist" in response.text and "<html" in response.text
