"""A message's buttons shown again after a press: its own set's order, then the recipient's Why this? · Too many."""

from types import SimpleNamespace

from concern.buttons import RECIPIENT, SETS, label, shown_again


def _rows(*verbs):
    return [SimpleNamespace(verb=v, token=f"tok_{v}_00000") for v in verbs]


def test_the_recipient_buttons_come_after_the_messages_own_in_any_order_they_are_read():
    shown = shown_again(_rows("fewer", "not_me", "why", "later", "tomorrow"), "zh")
    assert [b.label for b in shown] == ["稍后 2小时", "明天再说", "不是我", "为什么收到这条？", "消息太多"]


def test_alone_they_keep_their_own_order():
    assert [b.label for b in shown_again(_rows("fewer", "why"), "en")] == ["Why this?", "Too many"]


def test_the_labels_are_in_both_languages_and_fit_a_button():
    for verb, _, _ in RECIPIENT:
        assert all(0 < len(label(verb, locale)) <= 40 for locale in ("zh", "en"))
    assert not {v for v, _, _ in RECIPIENT} & {v for s in SETS.values() for v, _, _ in s}
