"""`person.importer.import_file`: YAML and CSV, managers in any order, bad rows skipped, idempotent."""

from __future__ import annotations

import pytest

from person import importer, service
from tests.integration.person_files import CSV_HEADER, YAML_TEXT, csv_file, person_changed_count, write


def outcomes(results):
    return {r.person_id: r.outcome for r in results}


def load(ctx, person_id):
    with ctx.reader() as uow:
        person = service.get(uow, person_id=person_id)
        return None if person is None else service.to_out(uow, person).model_dump(mode="json")


def test_yaml_import_creates_whole_persons_even_when_the_manager_comes_later(ctx, tmp_path):
    results = importer.import_file(ctx, write(tmp_path, "persons.yaml", YAML_TEXT))
    assert [(r.row, r.person_id, r.outcome) for r in results] == [(1, "p_report", "created"), (2, "p_boss", "created")]
    report = load(ctx, "p_report")
    assert (report["manager_id"], report["timezone"], report["locale"], report["aliases"]) == (
        "p_boss",
        "Europe/Berlin",
        "en",
        ["Xiao Wang", "wang"],
    )
    assert report["channel_bindings"] == [
        {"channel": "feishu", "external_user_id": "ou_report", "chat_id": "oc_report", "reachable": True}
    ]
    assert report["interaction_policy"] == {
        "allow_proactive_ping": True,
        "max_proactive_contacts_per_day": 2,
        "preferred_channel": "feishu",
        "quiet_hours": [{"start": "22:00", "end": "07:00"}],
        "quiet_days": [6, 7],
        "paused_until": None,
        "daily_brief_at": "09:00",
        "weekly_review_at": None,
        "digest": False,
        "digest_max_wait": "4h",
        "follow_up_stretch": 1.0,
    }
    assert load(ctx, "p_boss")["role"] == "principal" and load(ctx, "p_boss")["timezone"] == "Asia/Shanghai"
    assert person_changed_count(ctx) == 2


def test_csv_import_maps_columns_and_skips_bad_rows_with_their_row_number(ctx, tmp_path):
    results = importer.import_file(ctx, csv_file(tmp_path))
    assert [(r.row, r.person_id, r.outcome) for r in results] == [
        (1, "p_dev", "created"),
        (2, "p_bad", "error"),
        (3, "p_lead", "created"),
        (4, "p_cap", "error"),
    ]
    assert "timezone" in results[1].message and "max_proactive_contacts_per_day" in results[3].message
    dev, lead = load(ctx, "p_dev"), load(ctx, "p_lead")
    assert (dev["manager_id"], dev["aliases"], dev["locale"], dev["timezone"]) == (
        "p_lead",
        ["Developer", "dev one"],
        "en",
        "Asia/Shanghai",
    )
    assert dev["channel_bindings"] == [
        {"channel": "feishu", "external_user_id": "ou_dev", "chat_id": "oc_dev", "reachable": True}
    ]
    assert (
        dev["interaction_policy"]["preferred_channel"],
        dev["interaction_policy"]["max_proactive_contacts_per_day"],
    ) == ("feishu", 3)
    assert [b["channel"] for b in lead["channel_bindings"]] == ["feishu", "telegram"]
    assert (lead["role"], lead["timezone"], lead["interaction_policy"]["max_proactive_contacts_per_day"]) == (
        "principal",
        "Asia/Tokyo",
        5,
    )
    assert load(ctx, "p_bad") is None and load(ctx, "p_cap") is None
    assert person_changed_count(ctx) == 2


UNQUOTED_DATES = (
    "- {person_id: p_d, display_name: D, work_state: {status: on_leave, until: 2026-04-01T09:00:00+08:00}, "
    "interaction_policy: {paused_until: 2026-03-20T10:00:00+08:00}}\n"
)


@pytest.mark.parametrize(
    "name,text", [("persons.yaml", YAML_TEXT), ("persons.csv", None), ("dates.yml", UNQUOTED_DATES)]
)
def test_importing_the_same_file_twice_changes_nothing(ctx, tmp_path, name, text):
    path = write(tmp_path, name, text) if text else csv_file(tmp_path)
    first = importer.import_file(ctx, path)
    count = person_changed_count(ctx)
    second = importer.import_file(ctx, path)
    assert {o for p, o in outcomes(second).items() if outcomes(first)[p] != "error"} == {"unchanged"}
    assert person_changed_count(ctx) == count


def test_a_changed_row_is_updated_with_exactly_one_fact(ctx, tmp_path):
    importer.import_file(ctx, write(tmp_path, "persons.yaml", YAML_TEXT))
    count = person_changed_count(ctx)
    changed = YAML_TEXT.replace("display_name: 老板", "display_name: 大老板")
    results = importer.import_file(ctx, write(tmp_path, "persons.yaml", changed))
    assert outcomes(results) == {"p_report": "unchanged", "p_boss": "updated"}
    assert person_changed_count(ctx) == count + 1
    assert load(ctx, "p_boss")["display_name"] == "大老板"


def test_a_row_whose_manager_is_missing_everywhere_is_an_error(ctx, tmp_path):
    results = importer.import_file(
        ctx, csv_file(tmp_path, ["p_x,X,,member,p_nobody,,zh,,,,,,\n", "p_y,Y,,member,,,zh,,,,,,\n"])
    )
    assert [(r.row, r.outcome) for r in results] == [(1, "error"), (2, "created")]
    assert "manager" in results[0].message


def test_a_binding_owned_by_another_person_fails_only_that_row(ctx, tmp_path):
    rows = ["p_one,One,,member,,,zh,ou_same,,,,,\n", "p_two,Two,,member,,,zh,ou_same,,,,,\n"]
    results = importer.import_file(ctx, csv_file(tmp_path, rows))
    assert [r.outcome for r in results] == ["created", "error"] and "ou_same" in results[1].message
    assert load(ctx, "p_two") is None


@pytest.mark.parametrize(
    "name,text",
    [
        ("persons.txt", "person_id\n"),
        ("persons.yaml", "just text"),
        ("persons.csv", CSV_HEADER.replace("locale", "locael")),
    ],
)
def test_a_file_that_cannot_be_read_as_persons_is_refused_whole(ctx, tmp_path, name, text):
    with pytest.raises(ValueError):
        importer.import_file(ctx, write(tmp_path, name, text + "p_z,Z,,,,,,,,,,,\n"))
    assert load(ctx, "p_z") is None


def test_yaml_rows_that_are_not_mappings_are_reported(ctx, tmp_path):
    results = importer.import_file(
        ctx, write(tmp_path, "p.yaml", "- just a string\n- {person_id: p_ok, display_name: OK}\n")
    )
    assert [(r.row, r.outcome) for r in results] == [(1, "error"), (2, "created")]


def test_unquoted_yaml_times_are_read_as_text(ctx, tmp_path):
    text = (
        "- person_id: p_t\n  display_name: T\n  interaction_policy:\n"
        "    quiet_hours: [{start: 23:00, end: 08:00}, {start: 12:30, end: 13:45}]\n"
    )
    results = importer.import_file(ctx, write(tmp_path, "p.yaml", text))
    assert [r.outcome for r in results] == ["created"], results
    assert load(ctx, "p_t")["interaction_policy"]["quiet_hours"] == [
        {"start": "23:00", "end": "08:00"},
        {"start": "12:30", "end": "13:45"},
    ]


def test_csv_import_reads_the_follow_up_stretch_column_and_names_a_bad_one(ctx, tmp_path):
    header = CSV_HEADER.rstrip("\n") + ",follow_up_stretch\n"
    values = (("slow", 2.5), ("fast", 0.5), ("x", "x"))
    rows = [f"p_{name},{name},,member,,,zh,,,,,,,{value}\n" for name, value in values]
    results = importer.import_file(ctx, write(tmp_path, "persons.csv", header + "".join(rows)))
    assert [r.outcome for r in results] == ["created", "error", "error"]
    assert all("interaction_policy.follow_up_stretch" in r.message for r in results[1:])
    assert load(ctx, "p_slow")["interaction_policy"]["follow_up_stretch"] == 2.5
    assert load(ctx, "p_fast") is None and load(ctx, "p_x") is None
