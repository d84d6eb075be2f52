"""Inline keyboard rows: at most three buttons a row, as even as can be, no button left alone on a row."""

import pytest

from channels.base import Button
from channels.telegram.markup import keyboard, rows


def _buttons(n):
    return [Button(label=f"b{i}", token=f"token{i:04d}") for i in range(n)]


@pytest.mark.parametrize(
    ("count", "shape"), [(0, []), (1, [1]), (3, [3]), (4, [2, 2]), (5, [3, 2]), (6, [3, 3]), (7, [3, 2, 2])]
)
def test_buttons_fill_as_few_rows_of_three_as_hold_them_as_evenly_as_can_be(count, shape):
    assert [len(row) for row in rows(_buttons(count))] == shape


def test_the_order_of_the_buttons_is_kept_across_rows():
    markup = keyboard(_buttons(5))
    assert [b.callback_data for row in markup.inline_keyboard for b in row] == [f"token{i:04d}" for i in range(5)]
