"""FeishuChannel.readers and .urge through the real lark-oapi client, against Feishu's documented refusals."""

from __future__ import annotations

import pytest

from channels.base import OutboundMessage
from channels.errors import InvalidRequest
from channels.feishu import FeishuChannel
from channels.feishu.pacing import LocalPacer
from tests.fakes import feishu_server as fs


@pytest.fixture
def fake():
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


@pytest.fixture
def feishu(fake) -> FeishuChannel:
    channel = FeishuChannel(
        app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=fake.domain, pacer=LocalPacer(max_wait=0)
    )
    channel.api.forget_token()
    return channel


def sent(feishu: FeishuChannel, to: str = "ou_zs") -> str:
    message = OutboundMessage(idempotency_key="act_20260318_001", external_user_id=to, chat_id=None, text="提测？")
    return feishu.send(message).message_id


def test_only_the_bots_own_messages_are_looked_up_or_made_urgent(feishu):
    with pytest.raises(InvalidRequest) as lookup:
        feishu.readers("om_someone_elses")
    with pytest.raises(InvalidRequest) as urge:
        feishu.urge(message_id="om_someone_elses", user_id="ou_zs", mode="app")
    assert (lookup.value.code, lookup.value.permanent) == ("not_sent_by_bot", True)
    assert urge.value.code == "not_sent_by_bot" and urge.value.detail == {"feishu_code": 230012}


def test_someone_outside_the_chat_cannot_be_urged(fake, feishu):
    message_id = sent(feishu)
    with pytest.raises(InvalidRequest) as refused:
        feishu.urge(message_id=message_id, user_id="ou_stranger", mode="app")
    assert refused.value.code == "invalid_user_id_list"
    assert fake.urgents == [{"message_id": message_id, "mode": "app", "user_ids": []}]  # nobody was urged


def test_readers_are_listed_with_when_they_read(fake, feishu):
    message_id = sent(feishu)
    assert feishu.readers(message_id) == {}
    fake.mark_read(message_id, "ou_zs", at_ms=1773799320000)
    [(who, when)] = feishu.readers(message_id).items()
    assert who == "ou_zs" and when.isoformat() == "2026-03-18T02:02:00+00:00"
    assert fake.requests[-1].query == {"user_id_type": "open_id", "page_size": "100"}
