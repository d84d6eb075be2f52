"""Feishu card rules: person text is plain_text as written, Deputy's headers the only markdown, limits held."""

from __future__ import annotations

import json
import re

from channels.base import Button
from channels.feishu import cards, content
from tests.fakes.feishu_server import PERSON_MARKUP as MARKUP


def shown(card: dict) -> list[tuple[str, str]]:
    """(tag, what it says) of every element of a card's body, buttons aside."""
    out = []
    for element in card["body"]["elements"]:
        if element["tag"] == "markdown":
            out.append(("markdown", element["content"]))
        elif element["tag"] == "div":
            assert element["text"]["tag"] == "plain_text"
            out.append(("plain_text", element["text"]["content"]))
    return out


def test_person_text_with_every_markup_kind_is_one_plain_text_element_shown_as_written():
    assert shown(cards.card(MARKUP)) == [("plain_text", MARKUP)]


def test_a_bold_header_line_is_the_only_markdown_and_the_text_around_it_stays_plain():
    text = (
        "**今日简报 · 3月18日**\n\n**需要你处理（1）**\n1. 张三：**很急** <at id=all></at>\n\n"
        "**收到的回复（1）**\n李四：# 好"
    )
    assert shown(cards.card(text)) == [
        ("markdown", "**今日简报 · 3月18日**"),
        ("markdown", "**需要你处理（1）**"),
        ("plain_text", "1. 张三：**很急** <at id=all></at>"),
        ("markdown", "**收到的回复（1）**"),
        ("plain_text", "李四：# 好"),
    ]


def test_a_header_line_has_every_markdown_syntax_character_written_as_an_entity():
    [(tag, content_)] = shown(cards.card("**<at id=all></at> [x](https://e.example) `y` ~z~ :OK: &lt; #1 a_b**"))
    inner = content_[2:-2]
    assert tag == "markdown" and content_.startswith("**") and content_.endswith("**")
    assert not set(re.sub(r"&#\d+;", "", inner)) & set("<>[]()`~:#_*&!/") and "&#60;at id=all&#62;" in inner
    assert "&#38;lt;" in inner  # an entity the header spells out is not decoded into a `<`


def test_a_bold_inside_a_line_is_not_a_header_and_sends_as_a_card_not_as_text():
    assert shown(cards.card("我觉得 **很好** 吧")) == [("plain_text", "我觉得 **很好** 吧")]
    assert content.needs_card("我觉得 **很好** 吧") and content.needs_card("**日报**\n完成")
    assert not content.needs_card("# 标题\n- a\n- b\n| a | b |\n~~x~~ `y`")  # a `text` message shows these as typed


def test_a_text_of_headers_over_200_elements_is_split_into_cards_each_within_the_count():
    text = "".join(f"**第{n}节**\n第{n}节的内容\n" for n in range(150))
    assert cards.tags(cards.card(text)["body"]) > cards.MAX_CARD_TAGS
    planned = content.messages(text)
    bodies = [json.loads(body) for kind, body in planned]
    assert len(planned) > 1 and {kind for kind, _ in planned} == {"interactive"}
    assert all(cards.fits(b) and cards.tags(b["body"]) <= cards.MAX_CARD_TAGS for b in bodies)
    said = [piece for b in bodies for _, piece in shown(b)]
    assert said == [piece for n in range(150) for piece in (f"**第{n}节**", f"第{n}节的内容")]


def test_a_part_over_30_kb_on_the_wire_is_split_and_the_buttons_stay_on_the_last_part():
    buttons = [Button("稍后再说" * 8, f"b{n}later" + "x" * 30) for n in range(12)]
    text = "**日报**\n" + "\x01" * 3900  # each costs 7 bytes once the card is JSON inside the JSON body
    assert not cards.fits(cards.card(text, buttons))
    planned = content.messages(text, buttons)
    bodies = [json.loads(body) for _, body in planned]
    assert len(planned) == 2 and all(cards.wire_bytes(b) <= cards.MAX_CARD_BYTES for b in bodies)
    assert [b["body"]["elements"][-1]["tag"] for b in bodies] == ["div", "column_set"]


def test_a_plain_text_goes_as_text_messages_and_only_its_last_part_as_a_card_with_buttons():
    planned = content.messages("进度正常。\n" * 1200, [Button("我来处理", "b7take")])
    assert [kind for kind, _ in planned] == ["text", "interactive"]
    assert json.loads(planned[0][1])["text"].startswith("进度正常。")


def test_an_edit_over_one_card_is_cut_at_a_word_with_the_note_on_its_own_line():
    note = "(Cut short: the whole text is in the console: https://deputy.example/console/actions/act_1)"
    card, cut = content.edit_card("status fine " * 600, note=note)
    [(tag, said)] = shown(card)
    assert cut and tag == "plain_text" and cards.fits(card) and len(said) <= content.MAX_PART_CHARS
    assert said.endswith(f"fine…\n{note}") and said.startswith("status fine status")
    whole, cut = content.edit_card("王五 已接手", note=note)
    assert not cut and shown(whole) == [("plain_text", "王五 已接手")]


def test_an_edit_cut_after_a_header_line_keeps_the_header_bold():
    text = "**今日简报**\n" + "进度正常，" * 50 + "\n\n**还在等（1）**\n" + "\n".join("事项" * 30 for _ in range(200))
    card, cut = content.edit_card(text, note="（未完，全文见 Deputy 控制台）")
    said = shown(card)
    assert cut and said[0] == ("markdown", "**今日简报**") and said[-1][1].endswith("…\n（未完，全文见 Deputy 控制台）")


def _drawn(text, buttons):
    from channels.feishu.cards import card

    out = []
    for element in card(text, buttons)["body"]["elements"]:
        if element["tag"] == "column_set":
            out.append([c["elements"][0]["text"]["content"] for c in element["columns"]])
        else:
            out.append(element.get("content") or element["text"]["content"])
    return out


def test_each_numbered_items_buttons_are_drawn_under_that_item_and_the_messages_own_at_the_end():
    from channels.base import Button

    text = "有 2 件事在等你回复：\n\n[1] 提测？\n老板从 09:00 起在等\n\n[2] 周报？"
    buttons = [Button("1 稍后", "tok_a_1234", group="1"), Button("2 稍后", "tok_b_1234", group="2"),
               Button("为什么", "tok_c_1234")]  # fmt: skip
    assert _drawn(text, buttons) == [
        "有 2 件事在等你回复：", "[1] 提测？\n老板从 09:00 起在等", ["1 稍后"], "[2] 周报？", ["2 稍后"], ["为什么"],
    ]  # fmt: skip


def test_a_brief_lines_buttons_follow_its_line_and_an_item_never_found_keeps_its_buttons_at_the_end():
    from channels.base import Button

    text = "**今日简报**\n• [1] 张三：提测？\n• 李四：已回复"
    buttons = [Button("1 催一下", "tok_a_1234", group="1"), Button("3 取消", "tok_b_1234", group="3")]
    assert _drawn(text, buttons) == ["**今日简报**", "• [1] 张三：提测？", ["1 催一下"], "• 李四：已回复", ["3 取消"]]
