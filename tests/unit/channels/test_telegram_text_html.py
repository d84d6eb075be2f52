"""A brief's section headers are bold on Telegram; other texts go out unchanged."""

from channels.telegram.text import to_html


def test_brief_headers_become_bold_and_the_rest_is_escaped():
    text = "**Daily brief · Thu 03-19**\n\n**Still waiting (1)**\n• Zhang: a<b & c"
    assert to_html(text) == "<b>Daily brief · Thu 03-19</b>\n\n<b>Still waiting (1)</b>\n• Zhang: a&lt;b &amp; c"


def test_a_text_without_headers_is_unchanged():
    assert to_html("a <b>bold</b> **word** in a line") == "a <b>bold</b> **word** in a line"
