"""The principal's page lists their learned phrasings; Remove (admins, CSRF) writes a tombstone, ending the match."""

from __future__ import annotations

import html as html_lib
import re

from sqlalchemy import select

from cognitive_core import phrasings
from fact.models import Fact
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say

PAGE = "/console/persons/p_boss"


def _section(page: str) -> str:
    found = re.search(r'<section class="card" id="phrasings">(.*?)</section>', page, re.S)
    assert found, "the principal's page has a learned phrasings section"
    return html_lib.unescape(found.group(1))


def _teach(ctx, feishu) -> str:
    say(ctx, channel="feishu", user="ou_boss", text="张三那事怎么说")
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["去问张三"])
    with ctx.reader() as uow:
        [taught] = phrasings.of(uow, principal_id="p_boss")
    return taught.phrasing_id


def _phrasing_facts(ctx) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == "phrasing").order_by(Fact.pk)))


def test_a_principals_page_lists_what_was_said_how_it_is_read_and_when_and_how_it_was_taught(ctx, team, admin):
    feishu, _ = team
    assert "还没有学会的说法" in _section(admin.get(PAGE, headers={"Accept-Language": "zh"}).text)
    phrasing_id = _teach(ctx, feishu)
    zh = _section(admin.get(PAGE, headers={"Accept-Language": "zh"}).text)
    assert f'data-phrasing="{phrasing_id}"' in zh and "“张三那事怎么说”" in zh and "‹某人›那事怎么说" in zh
    assert "去问" in zh and "首次联系前先确认" in zh and "点选了建议" in zh and "2026-03-18 12:00" in zh
    en = _section(admin.get(PAGE, headers={"Accept-Language": "en"}).text)
    assert "‹someone›那事怎么说" in en and "ask them" in en and "picked a suggested reading" in en
    assert "Remove" in en


def test_removing_a_phrasing_writes_a_tombstone_and_the_shape_no_longer_matches(ctx, team, admin):
    feishu, _ = team
    phrasing_id = _teach(ctx, feishu)
    answer = admin.post(f"{PAGE}/phrasings/{phrasing_id}/remove")
    assert answer.status_code == 303 and answer.headers["location"].endswith("#phrasings")
    tombstone = _phrasing_facts(ctx)[-1]
    assert tombstone.content == {"event": phrasings.REMOVED, "principal_id": "p_boss",
                                 "phrasing_id": phrasing_id, "actor": "ops"}  # fmt: skip
    assert "还没有学会的说法" in _section(admin.get(PAGE, headers={"Accept-Language": "zh"}).text)
    say(ctx, channel="feishu", user="ou_boss", text="李四那事怎么说")
    assert feishu.texts_to("ou_boss")[-1] == "我不太确定你的意思，是下面哪一个？"  # a guess again, not the phrasing
    assert admin.post(f"{PAGE}/phrasings/{phrasing_id}/remove").status_code == 404  # gone already


def test_only_an_admin_with_the_sessions_csrf_token_removes_a_phrasing(ctx, team, admin, viewer):
    feishu, _ = team
    phrasing_id = _teach(ctx, feishu)
    assert "Remove" not in _section(viewer.get(PAGE, headers={"Accept-Language": "en"}).text)
    assert viewer.post(f"{PAGE}/phrasings/{phrasing_id}/remove").status_code == 403
    assert admin.post(f"{PAGE}/phrasings/{phrasing_id}/remove", csrf=False).status_code == 403
    assert admin.post(f"/console/persons/p_zhangsan/phrasings/{phrasing_id}/remove").status_code == 404  # not theirs
    assert [f.content["event"] for f in _phrasing_facts(ctx)] == [phrasings.LEARNED]


def test_the_fact_log_says_what_a_phrasing_fact_records_in_the_readers_words(ctx, team, admin):
    feishu, _ = team
    _teach(ctx, feishu)
    zh = html_lib.unescape(admin.get("/console/facts?fact_type=phrasing", headers={"Accept-Language": "zh"}).text)
    assert "老板 学会了一个说法 “张三那事怎么说”" in zh
