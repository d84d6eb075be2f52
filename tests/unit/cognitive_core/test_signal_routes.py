"""The signal routes table: loaded from inline JSON or a YAML file, every mistake named by its route."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from app.settings import Settings
from cognitive_core.signals import routes as signal_routes

EXAMPLES = {
    "task_overdue": {
        "action": "notify",
        "recipient": "person_id",
        "notification_type": "task_overdue",
        "brief_manager": True,
        "template": {"zh": "任务逾期：{title}", "en": "Task overdue: {title}"},
    },
    "approval_pending": {
        "action": "raise",
        "recipient": "content.approver_id",
        "originator": "p_boss",
        "deadline": "content.due_at",
        "template": {"zh": "请审批：{title}", "en": "Please approve: {title}"},
    },
    "meeting_moved": {"action": "notify", "recipient": "content.attendee_ids", "notification_type": "meeting_moved"},
}


def test_inline_json_loads_the_three_examples():
    routes = signal_routes.load(json.dumps(EXAMPLES))
    assert routes["approval_pending"].originator == "p_boss"
    assert routes["meeting_moved"].recipient == "content.attendee_ids"


def test_a_yaml_file_after_an_at_sign_loads(tmp_path):
    path = tmp_path / "routes.yaml"
    path.write_text(
        "meeting_moved:\n  action: notify\n  recipient: content.attendee_ids\n  notification_type: meeting_moved\n"
    )
    routes = Settings(_env_file=None, signal_routes=f"@{path}").signal_routes
    assert list(routes) == ["meeting_moved"]


@pytest.mark.parametrize(
    ("route", "words"),
    [
        ({"action": "raise", "recipient": "content.approver_id"}, "needs an originator"),
        ({"action": "notify", "recipient": "approver_id"}, "recipient"),
        ({"action": "mail", "recipient": "person_id"}, "action"),
        ({"action": "notify", "recipient": "person_id", "colour": "red"}, "colour"),
        ({"action": "notify", "recipient": "person_id", "template": {"zh": "{a.b}"}}, "plain content field"),
    ],
)
def test_a_bad_route_fails_start_up_naming_the_route(route, words):
    with pytest.raises(ValidationError) as caught:
        Settings(_env_file=None, signal_routes=json.dumps({"approval_pending": route}))
    message = str(caught.value)
    assert "signal route 'approval_pending'" in message and words in message


def test_a_missing_file_or_bad_json_is_a_clear_error(tmp_path):
    with pytest.raises(ValidationError, match="signal routes file"):
        Settings(_env_file=None, signal_routes=f"@{tmp_path}/none.yaml")
    with pytest.raises(ValidationError, match="not valid JSON"):
        Settings(_env_file=None, signal_routes="{task_overdue")


def test_recipients_from_the_top_level_person_or_a_content_list():
    routes = signal_routes.load(EXAMPLES)
    signal = {"person_id": "p_a", "content": {"attendee_ids": ["p_b", "p_c", "p_b", 7], "approver_id": "p_d"}}
    assert signal_routes.recipients(routes["task_overdue"], signal) == ["p_a"]
    assert signal_routes.recipients(routes["meeting_moved"], signal) == ["p_b", "p_c"]
    assert signal_routes.recipients(routes["approval_pending"], signal) == ["p_d"]


def test_the_text_uses_the_readers_language_and_a_generic_line_otherwise():
    routes = signal_routes.load(EXAMPLES)
    signal = {"signal_type": "meeting_moved", "source": "calendar", "content": {"title": "周会"}}
    assert signal_routes.text(routes["task_overdue"], signal, "en") == "Task overdue: 周会"
    assert signal_routes.text(routes["meeting_moved"], signal, "zh") == "来自 calendar 的消息：周会"


def test_a_template_without_the_readers_language_reads_the_deployments_default_never_another():
    routes = signal_routes.load(
        {"x": {"action": "notify", "recipient": "person_id", "template": {"zh": "逾期：{title}"}}}
    )
    signal = {"signal_type": "x", "source": "tracker", "content": {"title": "周报"}}
    assert signal_routes.text(routes["x"], signal, "en") == "逾期：周报"  # the default locale, zh
    routes = signal_routes.load(
        {"x": {"action": "notify", "recipient": "person_id", "template": {"en": "Late: {title}"}}}
    )
    assert signal_routes.text(routes["x"], signal, "zh") == "来自 tracker 的消息：周报"
