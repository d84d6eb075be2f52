"""Forwarded words rewritten for their reader, and the frame chosen by speech act and language (issue 21 item 2)."""

import pytest

from cognitive_core.language.forwarding import rewrite
from concern.texts.forwarding import question, relay, unframed


def _ask(body: str, rule: str = "ask:zh:verb_first", words: str = "") -> str:
    return rewrite(body, intent="ask", rule=rule, speaker="周明", aliases=("Ming",), words=words)


def _tell(body: str) -> str:
    return rewrite(body, intent="tell", rule="tell:zh:verb_first", speaker="周明", aliases=("Ming",))


@pytest.mark.parametrize(
    ("body", "read"),
    [
        ("他合同寄出去没有", "你合同寄出去没有？"),
        ("她的请假批了没", "你的请假批了没？"),
        ("能不能帮我看下这个方案", "能不能帮周明看下这个方案？"),
        ("我们明天几点出发", "我们明天几点出发？"),
        ("上周说的那个报价他发了没有啊", "上周说的报价你发了没有？"),
        ("上次bug修好了没有啊急死了", "上次bug修好了没有？"),
        ("测试报告什么时候出，一小时内回我", "测试报告什么时候出？"),
        ("whether the slides are ready", "whether the slides are ready."),
        ("if she booked the venue", "if you booked the venue."),
        ("whether he has reviewed my PR", "whether you have reviewed Ming's PR."),
        ("can she join the 3pm call?", "can you join the 3pm call?"),
        ("when he can send the report", "when you can send the report."),
    ],
)
def test_an_ask_is_addressed_to_its_reader(body, read):
    assert _ask(body) == read


@pytest.mark.parametrize(
    ("body", "read"),
    [
        ("我今天下午不在办公室", "周明今天下午不在办公室。"),
        ("他的出差申请我批了", "你的出差申请周明批了。"),
        ("I'm running 10 minutes late", "Ming is running 10 minutes late."),
        ("I approved his travel request", "Ming approved your travel request."),
        ("her expense report was approved", "your expense report was approved."),
    ],
)
def test_information_is_addressed_to_its_reader(body, read):
    assert _tell(body) == read


def test_a_request_reads_as_a_request_and_a_question_as_a_question():
    assert question("周明", _ask("把排班表发到群里", rule="ask:zh:have_them"), "zh") == "周明请你把排班表发到群里。"
    assert question("周明", _ask("明天能来吗"), "zh") == "周明想了解：明天能来吗？"
    assert relay("周明", _tell("明天的会取消了"), "zh") == "周明让我转告：明天的会取消了。"
    assert question("周明", _ask("下周一的面试时间", rule="ask:zh:confirm_with", words="跟…确认一下"), "zh") == (
        "周明请你确认一下下周一的面试时间。"
    )


def test_english_keeps_if_and_whether_and_names_the_principal_by_their_latin_alias():
    said = question("周明", _ask("whether prod is back up"), "zh", ("明总", "Ming"))
    assert said == "Ming would like to know whether prod is back up."
    assert (
        question("周明", _ask("is the build green?"), "en", ("Ming",)) == "Ming would like to know: is the build green?"
    )
    asked = rewrite("send me the contract", intent="ask", rule="ask:en:have_them", speaker="周明", aliases=("Ming",))
    assert question("周明", asked, "en", ("Ming",)) == "Ming asks you to send Ming the contract."


def test_the_frame_follows_the_language_of_the_words_not_the_readers_setting():
    assert question("老板", _ask("那个deck今天能不能发出来"), "en") == "老板想了解：deck今天能不能发出来？"
    assert relay("周明", _tell("the meeting moved to 3pm"), "zh", ("Ming",)) == (
        "Ming asked me to let you know: the meeting moved to 3pm."
    )


def test_words_with_no_mark_keep_the_question_frame_of_the_readers_language():
    assert question("老板", "提测什么时候能给", "zh") == "老板想了解：提测什么时候能给"
    assert question("Boss", "build status", "en") == "Boss would like to know: build status"


@pytest.mark.parametrize(
    ("words", "locale"),
    [
        ("明天的会取消了。", "zh"),
        ("把排班表发到群里。", "zh"),
        ("the meeting moved to 3pm.", "en"),
        ("send the deck.", "en"),
    ],
)
def test_a_confirmation_quotes_the_relayed_words_without_their_frame(words, locale):
    framed = relay("周明", words, locale, aliases=("Ming",))
    assert framed != words and unframed(framed, "周明", ("Ming",)) == words
