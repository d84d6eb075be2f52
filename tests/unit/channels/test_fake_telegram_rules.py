"""The fake Bot API refuses what Telegram refuses: the rules it checks with, on their own."""

import pytest

from tests.fakes.telegram_rules import ParseProblem, markup_problem, parse_html, visible


@pytest.mark.parametrize("text", ["a < b", "<b>open", "<b>x</i>", "<script>x</script>", "<b><i>x</b></i>"])
def test_html_telegram_cannot_parse_is_refused(text):
    with pytest.raises(ParseProblem):
        parse_html(text)


def test_entities_are_decoded_and_tags_counted():
    assert parse_html("<b>a&lt;b</b> &amp; &#60; &quot;") == ('a<b & < "', 1)


def test_length_is_measured_after_parsing_in_utf16_units():
    assert visible({"text": "<b>" + "😀" * 2048 + "</b>", "parse_mode": "HTML"}, "text", 4096)[1] is None
    _, refused = visible({"text": "😀" * 2049}, "text", 4096)
    assert refused == "Bad Request: message is too long"
    assert visible({"caption": "长" * 1025}, "caption", 1024)[1] == "Bad Request: message caption is too long"


def test_more_than_100_entities_are_refused():
    _, refused = visible({"text": "<b>x</b>" * 101, "parse_mode": "HTML"}, "text", 4096)
    assert refused and "too many entities" in refused


@pytest.mark.parametrize(
    "markup",
    [
        {},
        {"inline_keyboard": [{"text": "x", "callback_data": "y"}]},
        {"inline_keyboard": [[{"text": "x"}]]},
        {"inline_keyboard": [[{"text": "x", "callback_data": "t" * 65}]]},
        {"inline_keyboard": [[{"text": "", "callback_data": "y"}]]},
    ],
)
def test_a_reply_markup_that_is_not_an_inline_keyboard_is_refused(markup):
    assert markup_problem(markup) is not None


def test_an_inline_keyboard_of_rows_of_buttons_is_accepted():
    assert markup_problem({"inline_keyboard": [[{"text": "稍后", "callback_data": "b1later"}]]}) is None
    assert markup_problem(None) is None
