"""Telegram text is built: person text escaped, bold headers the only markup, limits counted on the visible text."""

from channels.telegram.richtext import MAX_CAPTION_UNITS, Styled, caption_and_rest, parts, shortened, styled
from channels.telegram.text import MAX_ENTITIES, utf16_len
from tests.fakes.telegram_rules import parse_html


def test_brief_headers_become_bold_and_the_rest_is_escaped():
    text = "**Daily brief · Thu 03-19**\n\n**Still waiting (1)**\n• Zhang: a<b & c"
    assert styled(text).html() == "<b>Daily brief · Thu 03-19</b>\n\n<b>Still waiting (1)</b>\n• Zhang: a&lt;b &amp; c"


def test_person_markup_is_escaped_so_it_cannot_make_a_link():
    text = '<a href="https://evil.example/login">会议纪要</a> and <b>bold</b> and &amp;'
    rendered = styled(text).html()
    assert parse_html(rendered) == (text, 0)


def test_a_header_marker_inside_a_line_is_not_markup():
    assert styled("a **word** in a line").html() == "a **word** in a line"


def test_parts_are_measured_on_the_visible_text_not_the_escaped_one():
    text = styled("<&>" * 1365 + "a")  # 4096 visible units, 13,651 characters escaped
    [one] = parts(text)
    assert parse_html(one.html())[0] == text.plain and utf16_len(one.plain) == 4096


def test_a_split_falls_before_a_header_rather_than_inside_it():
    body = "x" * 4080
    text = styled(body + "\n**第二部分标题很长很长很长很长很长**\n尾")
    first, second = parts(text)
    assert first.plain == body + "\n" and first.bold == ()
    assert second.html().startswith("<b>第二部分标题很长很长很长很长很长</b>")
    assert all(parse_html(p.html()) for p in (first, second))


def test_no_part_carries_more_than_100_entities():
    text = styled("\n".join(f"**h{n}**" for n in range(250)))
    pieces = parts(text)
    assert [len(p.bold) for p in pieces] == [MAX_ENTITIES, MAX_ENTITIES, 50]
    assert "".join(p.plain for p in pieces) == text.plain
    assert all(parse_html(p.html())[1] == len(p.bold) for p in pieces)


def test_a_header_longer_than_a_whole_part_is_cut_and_each_part_closes_its_tag():
    text = styled("**" + "长" * 5000 + "**")
    pieces = parts(text)
    assert [p.bold for p in pieces] == [((0, 4096),), ((0, 904),)]
    assert all(p.html().startswith("<b>") and p.html().endswith("</b>") for p in pieces)


def test_a_long_caption_is_cut_at_a_word_and_the_rest_kept_whole():
    text = styled("第一句话。 " * 300)
    caption, rest = caption_and_rest(text)
    assert caption.units <= MAX_CAPTION_UNITS and caption.plain.endswith(" ")
    assert rest is not None and caption.plain + rest.plain == text.plain


def test_a_caption_that_fits_is_kept_whole():
    assert caption_and_rest(Styled("短")) == (Styled("短"), None)


def test_a_shortened_text_ends_with_an_ellipsis_within_the_limit():
    cut = shortened(styled("**标题**\n" + "词 " * 2000), MAX_CAPTION_UNITS)
    assert cut.units <= MAX_CAPTION_UNITS and cut.plain.endswith("词…") and cut.bold == ((0, 2),)


def test_a_shortened_text_ends_with_its_note_on_a_line_of_its_own_and_the_note_is_escaped():
    note = "(Cut short: the whole text is in the console: https://deputy.example/console/actions/act_1?a=1&b=2)"
    cut = shortened(styled("**Brief**\n" + "status fine " * 600), 4096, note)
    assert cut.units <= 4096 and cut.plain.endswith(f"fine…\n{note}") and cut.bold == ((0, 5),)
    assert cut.html().endswith("?a=1&amp;b=2)") and parse_html(cut.html())[0] == cut.plain


def test_a_text_that_fits_is_not_shortened_whatever_its_note():
    text = styled("已推迟到 18:30")
    assert shortened(text, 4096, "（未完，全文见 Deputy 控制台）") is text
