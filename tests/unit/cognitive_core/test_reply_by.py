"""A reply-by clause is the ask's deadline, in the principal's timezone, and is not passed on; time-first reminders.

Read at test_corpus.NOW: Wednesday 2026-03-18 10:00 in Shanghai. The conventions are when_grammar's: a day
without an hour ends at 18:00 (下班前, EOD), 明早 / tomorrow morning is 09:00, 上午 10:00, 中午 12:00.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.unit.cognitive_core.test_corpus import understood

SHANGHAI = ZoneInfo("Asia/Shanghai")
DEADLINES = [
    ("问下王五报价单改好了没，一小时内回我", "03-18 11:00", "报价单改好了没？"),
    ("帮我问问陈静合同寄了吗，下班前给我答复", "03-18 18:00", "合同寄了吗？"),
    ("问下陈静年会预算多少，半小时内回我", "03-18 10:30", "年会预算多少？"),
    ("跟王五确认下机房巡检做了没，两小时内给我答复", "03-18 12:00", "机房巡检做了没？"),
    ("问下赵敏发票开了没 明天中午前回我", "03-19 12:00", "发票开了没？"),
    ("帮我问问赵敏客户签字了没，最晚明天上午给我答复", "03-19 10:00", "客户签字了没？"),
    ("问问李四周报的事，周五前回我", "03-20 18:00", "周报的事？"),
    ("ask Zhang Wei if the patch is live, need an answer within the hour", "03-18 11:00", "if the patch is live."),
    ("ask Alice whether the PO is approved - by EOD please", "03-18 18:00", None),
    (
        "check with Bob if the slides are final, tomorrow morning at the latest",
        "03-19 09:00",
        "if the slides are final.",
    ),
    ("ask Alice if the brochure is printed, by tomorrow morning at the latest", "03-19 09:00", None),
    ("ask Wang Wu when the racks ship, reply by Friday", "03-20 18:00", None),
    ("问下 Alice 明天 meeting 几点, EOD 前回我", "03-18 18:00", None),
]
REMINDERS = [
    ("下午三点提醒我给供应商打电话", "03-18 15:00", "给供应商打电话"),
    ("20分钟后提醒我去开会", "03-18 10:20", "开会"),
    ("15分钟后提醒我", "03-18 10:15", None),
    ("明天早上九点提醒我交周报", "03-19 09:00", "交周报"),
    ("at 4pm remind me to call the client back", "03-18 16:00", "call the client back"),
    ("tomorrow at 9 remind me about the board deck", "03-19 09:00", "the board deck"),
    ("ping me at 3pm about the vendor call", "03-18 15:00", "the vendor call"),
]


def _local(iso: str) -> str:
    return f"{datetime.fromisoformat(iso).astimezone(SHANGHAI):%m-%d %H:%M}"


@pytest.mark.parametrize(("text", "due", "question"), DEADLINES)
def test_a_reply_by_clause_is_the_deadline_in_the_principals_time_and_is_not_passed_on(text, due, question):
    d = understood(text)
    assert d.kind.value == "raise_concern", d
    assert _local(d.params["deadline"]) == due
    assert d.params["deadline_words"] not in d.params["question"]
    if question is not None:
        assert d.params["question"] == question


def test_a_deadline_that_is_what_is_asked_stays_in_the_question():
    d = understood("问一下张三周五前能不能把方案给我")
    assert _local(d.params["deadline"]) == "03-20 18:00" and "周五前" in d.params["question"]


@pytest.mark.parametrize(("text", "due", "says"), REMINDERS)
def test_a_reminder_with_its_time_first_is_set_for_that_time(text, due, says):
    d = understood(text)
    assert d.params.get("kind") == "reminder", d
    assert _local(d.params["due_at"]) == due
    assert d.params["text"] == (says or text)
