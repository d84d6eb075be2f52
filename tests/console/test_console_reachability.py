"""The person page's reachability section: the model's line and reasons in the reader's language, answering hours."""

from __future__ import annotations

import html as html_lib
import re

from person import service
from person.models import PersonUpdate


def _section(page: str) -> str:
    found = re.search(r'<section class="card" id="reachability">(.*?)</section>', page, re.S)
    assert found, "the person page has a reachability section"
    return html_lib.unescape(found.group(1))


def test_the_person_page_shows_when_they_can_be_reached_and_why(viewer, ctx, zhangsan):
    with ctx.uow(actor="test") as uow:
        leave = {"status": "on_leave", "until": "2026-03-20T09:00:00+08:00", "stand_in_id": "p_wangwu"}
        service.update(uow, person_id=zhangsan, patch=PersonUpdate.model_validate({"work_state": leave}))
    zh = _section(viewer.get(f"/console/persons/{zhangsan}", headers={"Accept-Language": "zh"}).text)
    assert "可联系：后天 09:00 起 — 由王五代理；请假到 后天 09:00" in zh
    assert 'data-code="leave_until"' in zh and "历史太少（4 周内 0 次回复）" in zh
    en = _section(viewer.get(f"/console/persons/{zhangsan}", headers={"Accept-Language": "en"}).text)
    assert "reachable: from Fri 03-20 09:00 — 王五 stands in; on leave until Fri 03-20 09:00" in en


def test_someone_free_reads_as_reachable_now(viewer, zhangsan):
    section = _section(viewer.get(f"/console/persons/{zhangsan}", headers={"Accept-Language": "zh"}).text)
    assert "可联系：现在" in section and "现在可以联系" in section
