"""Channel adapters that need no network: registry, in-memory and dry-run."""

import logging

import pytest

from app.settings import Settings
from app.wiring import default_channels
from channels.base import OutboundMessage
from channels.dryrun import DryRunChannel
from channels.errors import RateLimited
from tests.fakes.memory_channel import MemoryChannel

MSG = OutboundMessage(idempotency_key="act_20260318_001", external_user_id="ou_1", chat_id=None, text="hello")


def test_dry_run_channels_come_only_from_settings():
    assert default_channels(Settings(_env_file=None)).names() == []
    assert default_channels(Settings(_env_file=None, dry_run_channels="telegram")).names() == ["telegram"]


def test_dry_run_channel_logs_instead_of_sending(caplog):
    with caplog.at_level(logging.INFO, logger="deputy.channels.dryrun"):
        receipt = DryRunChannel("feishu").send(MSG)
    assert receipt.message_id == "dryrun_act_20260318_001"
    assert receipt.detail == {"dry_run": True, "text": "hello", "buttons": []}  # the sandbox shows what it would say
    assert caplog.records[0].text == "hello"


def test_memory_channel_fails_once_or_always_as_scripted():
    channel = MemoryChannel("telegram")
    channel.fail_with("ou_1", RateLimited("slow down", retry_after=3))
    with pytest.raises(RateLimited):
        channel.send(MSG)
    assert channel.send(MSG).message_id == "telegram_msg_1"
    channel.fail_with("ou_1", RateLimited("slow down"), always=True)
    for _ in range(2):
        with pytest.raises(RateLimited):
            channel.send(MSG)
    assert channel.texts_to("ou_1") == ["hello"]


def test_errors_record_their_kind_and_platform_details():
    attempt = RateLimited("Too Many Requests", code=429, retry_after=5).to_attempt()
    assert attempt == {"error": "rate_limited", "message": "Too Many Requests", "code": 429, "retry_after": 5}
