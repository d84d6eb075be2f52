"""`/did` answers as an assistant would: a summary first, one plain line per loop, no ids, "and N more" (issue 21)."""

import re

import pytest

from cognitive_core.reports.did_rules import MAX_LINES, Outcome, line, reply, span_words, summary
from concern.texts.messages import clip

ZS_WAITS = Outcome("张三", "waiting", "提测什么时候能给？")
LS_HELD = Outcome("李四", "held", "周报写了吗？", note="正处于免打扰时间", until="明天 08:00")
ANSWERS = [Outcome(n, "answered", "预算表呢？", answer="发你了") for n in ("王五", "赵六", "陈静")]


def test_the_summary_names_a_small_group_and_counts_a_large_one():
    said = summary([*ANSWERS, ZS_WAITS, LS_HELD], locale="zh", span=None)
    assert said == "今天替你联系了 5 个人：3 个人已回复，张三还在等，李四的消息稍后发出。"


def test_each_person_is_told_once_by_their_most_pressing_loop():
    said = summary([ZS_WAITS, Outcome("张三", "not_done", "周报？", note="张三暂停了消息")], locale="zh", span=None)
    assert said == "今天替你联系了 1 个人：没能联系上张三。"


def test_english_reads_as_a_sentence_with_plurals():
    said = summary([ZS_WAITS, *ANSWERS[:2]], locale="en", span=span_words(7 * 86400, "en"))
    assert said == "In the last 7 days I contacted 3 people for you: 王五 and 赵六 answered; still waiting on 张三."
    assert summary([ZS_WAITS], locale="en", span=None) == "Today I contacted 1 person for you: still waiting on 张三."


def test_nobody_contacted_is_said_in_words():
    assert summary([], locale="zh", span="24小时") == "最近24小时没有替你联系过谁。"
    assert summary([], locale="en", span=None) == "I haven't contacted anyone for you today."


@pytest.mark.parametrize(
    ("outcome", "said"),
    [
        (ZS_WAITS, "· 张三：“提测什么时候能给？”，还在等回复"),
        (Outcome("张三", "waiting", "提测？", follow_ups=2), "· 张三：“提测？”，还在等回复（已跟进 2 次）"),
        (LS_HELD, "· 李四：“周报写了吗？”，李四正处于免打扰时间，明天 08:00发出"),
        (
            Outcome("李四", "held", "周报？", note="away", until="周五 18:00"),
            "· 李四：“周报？”，李四不在，等李四回来（周五 18:00）再问",
        ),
        (ANSWERS[0], "· 王五回复了“预算表呢？”：发你了"),
        (Outcome("张三", "escalated", "提测？", note="王五"), "· 张三：“提测？”，一直没回，已转给王五"),
        (Outcome("张三", "told", "明早10点开会", via="飞书"), "· 转告张三：明早10点开会（飞书）"),
    ],
)
def test_a_detail_line_says_where_the_loop_stands_in_plain_words(outcome, said):
    assert line(outcome, locale="zh") == said


def test_no_line_shows_a_record_id_or_a_result_counter():
    said = reply([*ANSWERS, ZS_WAITS, LS_HELD], locale="zh", span=None, everything=False, link=None)
    assert not re.search(r"(?:act|con|dec|fact)_\d", said) and "成功" not in said and "被拦截" not in said


def test_more_than_a_screen_ends_with_and_n_more_and_the_way_to_see_them():
    many = [Outcome(f"同事{n}", "waiting", "周报？") for n in range(MAX_LINES + 3)]
    lines = reply(many, locale="zh", span=None, everything=False, link=None).splitlines()
    assert len(lines) == 1 + MAX_LINES + 1 and lines[-1] == "… 还有 3 项，发送 /did all 查看全部"
    linked = reply(many, locale="en", span=None, everything=False, link="https://d.example/console/actions")
    assert linked.splitlines()[-1] == "… and 3 more: https://d.example/console/actions"
    assert len(reply(many, locale="zh", span=None, everything=True, link=None).splitlines()) == 1 + len(many)


@pytest.mark.parametrize(
    ("words", "clipped"),
    [
        ("周报写了吗？", "周报写了吗？"),
        (
            "could you send me the final version of the quarterly budget spreadsheet",
            "could you send me the final version of…",
        ),
        (
            "那个关于下季度预算的表格，你能不能今天下班之前发给我看一下，顺便把上个月的那份也一起带上",
            "那个关于下季度预算的表格，你能不能今天下班之前发给我看一下…",
        ),
        ("supercalifragilisticexpialidocious-and-then-some-more-words", "supercalifragilisticexpialidocious-and-…"),
    ],
)
def test_a_quoted_preview_is_cut_at_a_pause_never_inside_a_latin_word(words, clipped):
    assert clip(words) == clipped and len(clip(words)) <= 40


def test_a_look_back_window_is_said_in_its_largest_whole_unit():
    assert [span_words(s, "zh") for s in (86400 * 7, 3600 * 48, 5400)] == ["7天", "2天", "90分钟"]
    assert [span_words(s, "en") for s in (86400, 3600 * 3, 60)] == ["1 day", "3 hours", "1 minute"]
