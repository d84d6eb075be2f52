"""Splitting text for Telegram: 4096 UTF-16 code units per message, at natural breaks, never inside a character."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from channels.telegram.text import MAX_MESSAGE_UNITS, split_text, utf16_len, utf16_slice

EMOJI = "😀"  # one code point, two UTF-16 units


def test_short_text_is_one_part():
    assert split_text("明早10点开会") == ["明早10点开会"]


def test_exactly_4096_units_is_one_part_and_4097_are_two():
    assert split_text("a" * 4096) == ["a" * 4096]
    assert split_text("a" * 4097) == ["a" * 4096, "a"]


def test_emoji_count_as_two_units():
    assert utf16_len(EMOJI * 3) == 6
    assert split_text(EMOJI * 2048) == [EMOJI * 2048]
    parts = split_text(EMOJI * 2049)
    assert parts == [EMOJI * 2048, EMOJI]


def test_an_emoji_that_would_straddle_the_limit_moves_whole_to_the_next_part():
    parts = split_text("a" * 4095 + EMOJI + "b")
    assert parts == ["a" * 4095, EMOJI + "b"]
    for part in parts:
        part.encode("utf-16-le")  # strict: raises on a lone surrogate


def test_a_joined_emoji_sequence_is_not_torn_apart():
    family = "👨\u200d👩\u200d👧"
    parts = split_text("a" * 4094 + family)
    assert parts == ["a" * 4094, family]


def test_paragraph_breaks_are_preferred_over_line_breaks_and_words():
    first, second = "x" * 3000, "y" * 3000
    assert split_text(f"{first}\n\n{second}") == [f"{first}\n\n", second]
    text = f"{first}\nline two\n{'z' * 2000}"
    assert split_text(text) == [f"{first}\nline two\n", "z" * 2000]


def test_words_are_kept_whole_when_there_is_no_line_break():
    words = " ".join(["word"] * 1500)  # 7499 units
    parts = split_text(words)
    assert len(parts) == 2 and "".join(parts) == words
    assert parts[0].endswith(" ") and parts[1].startswith("word")


def test_a_break_too_early_in_the_window_is_ignored_in_favour_of_a_full_part():
    text = "intro\n\n" + "q" * 5000
    parts = split_text(text)
    assert utf16_len(parts[0]) == MAX_MESSAGE_UNITS and "".join(parts) == text


def test_whitespace_only_parts_are_dropped_and_empty_text_gives_no_parts():
    assert split_text("") == []
    assert split_text("   \n ") == []
    assert split_text("a" * 10 + " " * 20, limit=10) == ["a" * 10]


def test_entity_offsets_are_read_in_utf16_units():
    text = f"hi {EMOJI} @zhangsan and @deputy_bot"
    assert utf16_slice(text, 6, 9) == "@zhangsan"
    assert utf16_slice(text, 20, 11) == "@deputy_bot"


def test_a_limit_below_a_surrogate_pair_is_refused():
    with pytest.raises(ValueError):
        split_text("abc", limit=1)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    text=st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "é", "\u0301", EMOJI, "\u200d", "中"]), max_size=200),
    limit=st.integers(min_value=2, max_value=40),
)
def test_every_part_fits_and_no_visible_character_is_lost_or_reordered(text, limit):
    parts = split_text(text, limit=limit)
    assert all(0 < utf16_len(p) <= limit for p in parts)
    assert "".join("".join(parts).split()) == "".join(text.split())
    assert all(p.strip() for p in parts)
