"""DEPUTY_FEISHU_URGENT and DEPUTY_FEISHU_READ_POLL_INTERVAL: what they accept, and a clear refusal of the rest."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from app.settings import Settings


def test_urgency_is_off_and_reads_are_looked_up_every_five_minutes_by_default():
    settings = Settings(_env_file=None)
    assert (settings.feishu_urgent, settings.feishu_read_poll_interval) == ((), timedelta(minutes=5))


@pytest.mark.parametrize(
    "value,modes",
    [("off", ()), ("app", ("app",)), ("app,sms", ("app", "sms")), (" APP, sms ,phone", ("app", "sms", "phone"))],
)
def test_urgency_levels_add_sms_then_calls(monkeypatch, value, modes):
    monkeypatch.setenv("DEPUTY_FEISHU_URGENT", value)
    assert Settings(_env_file=None).feishu_urgent == modes


@pytest.mark.parametrize("value", ["sms", "phone", "app,phone", "sms,app", "yes", "app,app"])
def test_any_other_urgency_is_refused_naming_the_setting(monkeypatch, value):
    monkeypatch.setenv("DEPUTY_FEISHU_URGENT", value)
    with pytest.raises(ValidationError, match="feishu_urgent"):
        Settings(_env_file=None)


def test_a_read_lookup_more_often_than_a_minute_is_refused(monkeypatch):
    monkeypatch.setenv("DEPUTY_FEISHU_READ_POLL_INTERVAL", "30s")
    with pytest.raises(ValidationError, match="feishu_read_poll_interval"):
        Settings(_env_file=None)
    monkeypatch.setenv("DEPUTY_FEISHU_READ_POLL_INTERVAL", "10m")
    assert Settings(_env_file=None).feishu_read_poll_interval == timedelta(minutes=10)
