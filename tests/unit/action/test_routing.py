"""Channel choice: preferred, then the concern's origin, then other reachable bindings."""

from dataclasses import dataclass

from action.routing import candidates


@dataclass
class B:
    channel: str
    external_user_id: str = "u"
    chat_id: str | None = None
    reachable: bool = True


def names(bindings):
    return [b.channel for b in bindings]


def test_preferred_channel_comes_first():
    assert names(candidates([B("feishu"), B("telegram")], preferred="telegram", origin=None)) == ["telegram", "feishu"]


def test_origin_channel_comes_before_other_bindings():
    assert names(candidates([B("telegram"), B("feishu")], preferred=None, origin="feishu")) == ["feishu", "telegram"]


def test_preferred_beats_origin():
    assert names(candidates([B("feishu"), B("telegram")], preferred="telegram", origin="feishu")) == [
        "telegram",
        "feishu",
    ]


def test_unreachable_bindings_are_never_tried():
    assert names(candidates([B("feishu", reachable=False), B("telegram")], preferred="feishu", origin=None)) == [
        "telegram"
    ]


def test_no_reachable_binding_gives_no_route():
    assert candidates([B("feishu", reachable=False)], preferred=None, origin=None) == []


def test_a_reactive_reply_goes_back_to_the_channel_the_message_came_from():
    bindings = [B("feishu"), B("telegram")]
    assert names(candidates(bindings, preferred="feishu", origin="telegram", reply=True)) == ["telegram", "feishu"]
    assert names(candidates(bindings, preferred="feishu", origin="telegram")) == ["feishu", "telegram"]


def test_a_follow_up_moved_by_the_read_state_tries_that_channel_before_the_preferred_one():
    bindings = [B("feishu"), B("telegram")]
    assert names(candidates(bindings, preferred="feishu", origin=None, first="telegram")) == ["telegram", "feishu"]


def test_a_first_channel_the_person_cannot_be_reached_on_is_skipped():
    bindings = [B("feishu"), B("telegram", reachable=False)]
    assert names(candidates(bindings, preferred="feishu", origin=None, first="telegram")) == ["feishu"]
