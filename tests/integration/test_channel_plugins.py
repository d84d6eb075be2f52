"""Channels are plugins: the installed ones are the valid channels; a platform is a plugin and one line.

The plugin brings its platform's particulars too: its settings, its name as people read it, its CSV binding
columns and its bind hint, with nothing outside its class touched.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app import plugins
from app.logging import JsonFormatter, Redactor, secret_values
from app.main import create_app
from app.settings import Settings, compose
from channels.base import Channel
from channels.inbound import InboundMessage
from channels.plugin import Accepted, ChannelPlugin, Parsed, WebhookRequest
from concern.texts import reasons
from kernel import channel_names
from kernel.settings import PluginSettings
from person import importer, service
from tests.conftest import ADMIN_TOKEN
from tests.console.conftest import Browser
from tests.fakes.memory_channel import MemoryChannel
from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say

CORP_SECRET = "wecom-corp-secret-0123456789"


class WeComSettings(PluginSettings):
    """The platform's own settings: DEPUTY_WECOM_CORP_ID, DEPUTY_WECOM_CORP_SECRET."""

    wecom_corp_id: str | None = None
    wecom_corp_secret: SecretStr | None = None


class WeComPlugin(ChannelPlugin):
    """A third platform as a test would add it: particulars, a sender and a webhook, nothing else touched."""

    name = "wecom"
    display_names = {"zh": "企业微信", "en": "WeCom"}
    bind_hint = {"zh": "绑定 {code}", "en": "bind {code}"}
    settings = WeComSettings  # the CSV binding columns are the defaults: wecom_user_id, wecom_chat_id

    def __init__(self) -> None:
        self.channel = MemoryChannel("wecom")

    def sender(self, settings: Any, *, redis: Any = None) -> Channel | None:
        return self.channel

    def webhook(self, settings: Any, *, sender: Channel | None) -> Any:
        class Hook:
            def accept(self, request: WebhookRequest) -> Accepted:
                return Accepted(answer=lambda new: {"errcode": 0, "recorded": new}, event_id="w1", body=request.body)

            def parse(self, *, kind: str, body: bytes, received_at: datetime) -> Parsed:
                message = InboundMessage(
                    channel="wecom",
                    event_id="w1",
                    message_id="m1",
                    chat_id="u1",
                    chat_type="p2p",
                    external_user_id="wx_boss",
                    text="/concerns",
                    occurred_at=received_at,
                )
                return Parsed(messages=[message])

        return Hook()


@pytest.fixture
def wecom() -> Iterator[WeComPlugin]:
    """WeCom installed as its one line in PLUGINS installs it (`plugins.install`), and uninstalled after."""
    plugin, before = WeComPlugin(), plugins.PLUGINS
    plugins.install((*before, plugin))  # PLUGINS = (TelegramPlugin(), FeishuPlugin(), WeComPlugin())
    yield plugin
    plugins.install(before)


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


def test_a_new_platform_is_a_plugin_and_one_line_in_the_list(ctx, wecom):
    assert channel_names.installed() == ("telegram", "feishu", "wecom")
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


def test_a_new_platform_is_named_as_its_plugin_names_it_in_a_did_line(ctx, wecom):
    ctx.channels = plugins.senders(ctx.settings)
    boss = [{"channel": "wecom", "external_user_id": "wx_boss"}]
    add_person(ctx, "p_boss", display_name="老板", role="principal", bindings=boss)
    add_person(ctx, "p_zhangsan", display_name="张三", bindings=[{"channel": "wecom", "external_user_id": "wx_zs"}])
    say(ctx, channel="wecom", user="wx_boss", text="问一下张三：提测什么时候能给？")
    assert wecom.channel.texts_to("wx_zs") == ["老板想了解：提测什么时候能给？"]
    say(ctx, channel="wecom", user="wx_boss", text="/did 24h")
    assert (
        wecom.channel.texts_to("wx_boss")[-1].splitlines()[1] == "· 张三：“提测什么时候能给？”，还在等回复（企业微信）"
    )


def test_a_new_platform_brings_its_name_as_people_read_it(wecom):
    assert (reasons.channel("wecom", "zh"), reasons.channel("wecom", "en")) == ("企业微信", "WeCom")
    assert (reasons.channel("feishu", "zh"), reasons.channel("internal", "zh")) == ("飞书", "内部")


def test_a_new_platform_brings_its_csv_binding_columns(ctx, wecom, tmp_path: Path):
    people = tmp_path / "people.csv"
    people.write_text("person_id,display_name,wecom_user_id,wecom_chat_id,feishu_open_id\np_wang,王五,wx_wang,,ou_w\n")
    assert [r.outcome for r in importer.import_file(ctx, people)] == ["created"]
    with ctx.reader() as uow:
        bindings = service.bindings_of(uow, person_id="p_wang")
    assert [(b.channel, b.external_user_id) for b in bindings] == [("wecom", "wx_wang"), ("feishu", "ou_w")]
    assert "wecom_user_id" in importer.csv_columns() and "wecom_chat_id" in importer.csv_columns()


def test_a_csv_column_of_a_platform_no_plugin_provides_is_refused(ctx, tmp_path: Path):
    people = tmp_path / "people.csv"
    people.write_text("person_id,display_name,wecom_user_id\np_wang,王五,wx_wang\n")
    with pytest.raises(importer.ImportFileError, match="unknown CSV column.s. wecom_user_id"):
        importer.import_file(ctx, people)


def test_a_new_platform_brings_its_bind_hint_to_the_console(ctx, wecom):
    add_person(ctx, "p_li", display_name="李四", bindings=[])
    with TestClient(create_app(ctx=ctx, run_migrations=False), headers={"Accept-Language": "zh"}) as client:
        browser = Browser(client).login(ADMIN_TOKEN)
        page = browser.post("/console/persons/p_li/bind_codes").text
    code = re.search(r'<span class="code-big mono">([A-Z2-9]{10})</span>', page).group(1)
    assert f"/start {code}（Telegram）或bind {code}（飞书）或绑定 {code}（企业微信）" in page


def test_a_new_platform_brings_its_settings_and_their_secrets_are_redacted(wecom, monkeypatch):
    monkeypatch.setenv("DEPUTY_WECOM_CORP_ID", "ww0123")
    monkeypatch.setenv("DEPUTY_WECOM_CORP_SECRET", CORP_SECRET)
    composed = compose(plugins.PLUGINS)  # what app.settings builds Settings with, PLUGINS holding WeCom
    settings = composed(_env_file=None, telegram_bot_token="123:abc")
    assert (settings.wecom_corp_id, settings.wecom_corp_secret.get_secret_value()) == ("ww0123", CORP_SECRET)
    assert settings.telegram_bot_token.get_secret_value() == "123:abc" and "wecom_corp_id" not in Settings.model_fields
    assert CORP_SECRET in secret_values(settings)
    record = logging.LogRecord("deputy.test", logging.INFO, __file__, 1, "got %s", (CORP_SECRET,), None)
    line = JsonFormatter(Redactor(secret_values(settings))).format(record)
    assert CORP_SECRET not in line and "<redacted>" in line


def test_a_plugin_whose_settings_are_not_named_after_it_is_refused(monkeypatch):
    class Clash(PluginSettings):
        timezone: str = "UTC"  # would shadow the core's DEPUTY_TIMEZONE

    monkeypatch.setattr(WeComPlugin, "settings", Clash)
    with pytest.raises(TypeError, match="wecom_…: timezone"):
        compose((*plugins.PLUGINS, WeComPlugin()))


def test_the_platform_particulars_come_from_the_plugins():
    feishu, telegram = channel_names.platform("feishu"), channel_names.platform("telegram")
    assert feishu.binding_columns == ("feishu_open_id", "feishu_chat_id") and feishu.directory
    assert telegram.binding_columns == ("telegram_user_id", "telegram_chat_id") and not telegram.directory
    assert (feishu.hint("en", "C0DE"), telegram.hint("zh", "C0DE")) == ("bind C0DE", "/start C0DE")
    assert importer.csv_columns()[7:11] == ("telegram_user_id", "telegram_chat_id", "feishu_open_id", "feishu_chat_id")
