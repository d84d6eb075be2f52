"""`deputy persons sync-feishu`: persons from the Feishu directory (fake server), manager chain, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from app.cli import cli
from channels.feishu import contacts
from channels.feishu.api import FeishuApi
from fact.models import Fact
from person import service
from tests.fakes import feishu_server as fs
from tests.integration.action_helpers import add_person

runner = CliRunner()


@pytest.fixture
def fake():
    server = fs.FakeFeishu().start()
    server.add_user("ou_boss", "王五", en_name="Wang Wu", user_id="wangwu")
    server.add_department("od_eng")
    server.add_department("od_qa", parent="od_eng")
    server.add_user("ou_zs", "张三", department="od_eng", en_name="Zhang San", leader_user_id="ou_boss")
    server.add_user("ou_ls", "李四", department="od_eng", user_id="lisi", leader_user_id="ou_zs")
    server.add_user("ou_gone", "离职", department="od_eng", en_name="Gone Guy", status={"is_resigned": True})
    server.add_user("ou_qa", "赵六", department="od_qa", en_name="Zhao Liu", nickname="小赵", leader_user_id="ou_ls")
    server.add_user(
        "ou_zs", "张三", department="od_qa", en_name="Zhang San", leader_user_id="ou_boss"
    )  # in two departments
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ctx, fake) -> None:
    """The CLI builds its own context: point it at this test's database and the fake Feishu."""
    monkeypatch.chdir(tmp_path)
    for name, value in {
        "DATABASE_URL": ctx.settings.database_url,
        "FEISHU_APP_ID": fs.APP_ID,
        "FEISHU_APP_SECRET": fs.APP_SECRET,
        "FEISHU_DOMAIN": fake.domain,
    }.items():
        monkeypatch.setenv(f"DEPUTY_{name}", value)
    monkeypatch.setenv("COLUMNS", "200")


def sync():
    return runner.invoke(cli, ["persons", "sync-feishu"], catch_exceptions=False)


def person(ctx, person_id: str):
    with ctx.reader() as uow:
        found = service.get(uow, person_id=person_id)
        return None if found is None else service.to_out(uow, found)


def person_changed_count(ctx) -> int:
    with ctx.reader() as uow:
        return uow.session.scalar(select(func.count()).select_from(Fact).where(Fact.fact_type == "person_changed"))


def test_sync_creates_every_visible_user_with_a_feishu_binding_and_the_manager_chain(ctx):
    result = sync()
    assert result.exit_code == 0, result.output
    assert "created: 4" in result.output and "skipped: 1" in result.output and "error: 0" in result.output
    zhangsan, lisi, zhaoliu, wangwu = (person(ctx, p) for p in ("p_zhangsan", "p_lisi", "p_zhaoliu", "p_wangwu"))
    assert (zhangsan.display_name, zhangsan.aliases) == ("张三", ["Zhang San"])
    assert [(b.channel, b.external_user_id) for b in zhangsan.channel_bindings] == [("feishu", "ou_zs")]
    assert zhaoliu.aliases == ["Zhao Liu", "小赵"]
    assert (zhaoliu.manager_id, lisi.manager_id, zhangsan.manager_id, wangwu.manager_id) == (
        "p_lisi",
        "p_zhangsan",
        "p_wangwu",
        None,
    )
    assert person(ctx, "p_goneguy") is None


def test_a_second_sync_changes_nothing_and_writes_no_fact(ctx):
    assert sync().exit_code == 0
    before = person_changed_count(ctx)
    again = sync()
    assert again.exit_code == 0 and "unchanged: 4" in again.output and "created: 0" in again.output
    assert person_changed_count(ctx) == before


def test_a_rename_in_feishu_updates_the_same_person_and_keeps_what_admins_set(ctx, fake):
    add_person(
        ctx,
        "p_zs",
        display_name="Old Name",
        role="principal",
        bindings=[
            {"channel": "feishu", "external_user_id": "ou_zs"},
            {"channel": "telegram", "external_user_id": "tg_zs", "chat_id": "tg_zs"},
        ],
        policy={"preferred_channel": "telegram", "max_proactive_contacts_per_day": 9},
    )
    assert sync().exit_code == 0
    kept = person(ctx, "p_zs")
    assert person(ctx, "p_zhangsan") is None  # bound by open_id: the existing person is the one updated
    assert kept.display_name == "张三" and kept.role == "principal" and kept.manager_id == "p_wangwu"
    assert [(b.channel, b.external_user_id) for b in kept.channel_bindings] == [
        ("feishu", "ou_zs"),
        ("telegram", "tg_zs"),
    ]
    assert (
        kept.interaction_policy.preferred_channel == "telegram"
        and kept.interaction_policy.max_proactive_contacts_per_day == 9
    )
    assert person(ctx, "p_lisi").manager_id == "p_zs"


def test_an_unbound_person_with_the_derived_id_is_adopted_and_one_bound_elsewhere_is_not(ctx):
    add_person(ctx, "p_wangwu", display_name="Wang", bindings=[])
    add_person(
        ctx, "p_zhangsan", display_name="另一个张三", bindings=[{"channel": "feishu", "external_user_id": "ou_other"}]
    )
    assert sync().exit_code == 0
    assert [b.external_user_id for b in person(ctx, "p_wangwu").channel_bindings] == ["ou_boss"]
    assert [b.external_user_id for b in person(ctx, "p_zhangsan").channel_bindings] == ["ou_other"]
    assert [b.external_user_id for b in person(ctx, "p_zhangsan_ou_zs").channel_bindings] == ["ou_zs"]


def test_every_page_of_departments_and_users_is_read(fake):
    api = FeishuApi(app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=fake.domain)
    api.forget_token()
    users = contacts.fetch_users(api, page_size=1)
    assert [u.open_id for u in users] == ["ou_boss", "ou_gone", "ou_ls", "ou_qa", "ou_zs"]
    assert sum(1 for r in fake.requests if r.path.endswith("/children")) == 2  # two departments, one per page
    assert {u.open_id: u.leader_open_id for u in users}["ou_qa"] == "ou_ls"


def test_a_directory_error_exits_1_and_writes_nothing(ctx, fake):
    fake.script("users", fs.code(40004, "no dept authority error"))
    result = sync()
    assert result.exit_code == 1 and "no dept authority error" in result.output
    assert person_changed_count(ctx) == 0
