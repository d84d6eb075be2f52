"""Channels are plugins: the installed ones are the valid channels; a platform is a plugin and one line."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app import plugins
from app.main import create_app
from app.settings import Settings
from channels.base import Channel
from channels.inbound import InboundMessage
from channels.plugin import ChannelPlugin, WebhookReply, WebhookRequest
from kernel import channel_names
from tests.conftest import ADMIN_TOKEN
from tests.fakes.memory_channel import MemoryChannel


class WeComPlugin(ChannelPlugin):
    """A third platform as a test would add it: a sender and a webhook, nothing else touched."""

    name = "wecom"

    def __init__(self) -> None:
        self.channel = MemoryChannel("wecom")

    def sender(self, settings: Any, *, redis: Any = None) -> Channel | None:
        return self.channel

    def webhook(self, settings: Any, *, sender: Channel | None) -> Any:
        class Hook:
            def handle(self, request: WebhookRequest) -> WebhookReply:
                message = InboundMessage(
                    channel="wecom",
                    event_id="w1",
                    message_id="m1",
                    chat_id="u1",
                    chat_type="p2p",
                    external_user_id="wx_boss",
                    text="/concerns",
                    occurred_at=request.now,
                )
                return WebhookReply(answer=lambda recorded: {"errcode": 0, "recorded": recorded}, messages=[message])

        return Hook()


def test_the_installed_plugins_are_the_valid_channels_configured_or_not():
    assert channel_names.installed() == tuple(p.name for p in plugins.PLUGINS) == ("telegram", "feishu")
    assert plugins.senders(Settings(_env_file=None)).names() == []  # installed, not configured: nothing sends


def test_a_binding_to_a_channel_no_plugin_provides_is_refused_naming_the_installed_ones(client):
    body = {
        "person_id": "p_x",
        "display_name": "X",
        "channel_bindings": [{"channel": "wecom", "external_user_id": "1"}],
    }
    response = client.post("/v1/persons", json=body)
    assert response.status_code == 422 and "installed: telegram, feishu" in response.json()["error"]["message"]


def test_a_binding_to_an_installed_but_unconfigured_channel_stays_valid(client):
    body = {
        "person_id": "p_y",
        "display_name": "Y",
        "channel_bindings": [{"channel": "feishu", "external_user_id": "ou_y"}],
    }
    assert client.post("/v1/persons", json=body).status_code == 201


def test_a_new_platform_is_a_plugin_and_one_line_in_the_list(ctx, monkeypatch):
    wecom = WeComPlugin()
    monkeypatch.setattr(plugins, "PLUGINS", (*plugins.PLUGINS, wecom))  # the one line
    monkeypatch.setattr(channel_names, "_installed", [*channel_names.installed(), "wecom"])
    ctx.channels = plugins.senders(ctx.settings)
    with TestClient(
        create_app(ctx=ctx, run_migrations=False), headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
    ) as client:
        boss = {
            "person_id": "p_boss",
            "display_name": "老板",
            "role": "principal",
            "channel_bindings": [{"channel": "wecom", "external_user_id": "wx_boss"}],
        }
        assert client.post("/v1/persons", json=boss).status_code == 201
        answer = client.post("/webhooks/wecom", content=b"{}")
        assert answer.status_code == 200 and answer.json() == {"errcode": 0, "recorded": True}
    assert wecom.channel.texts_to("wx_boss") == [
        "现在没有在等的事。"
    ]  # the /concerns reply went out through the plugin
