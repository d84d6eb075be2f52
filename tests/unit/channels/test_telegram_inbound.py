"""Telegram Update → InboundMessage on hostile shapes: a message, None, or InvalidUpdate; never another exception."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from channels.telegram.inbound import BotIdentity, InvalidDate, InvalidUpdate, sent_at, to_inbound

BOT = BotIdentity(id="123", username="deputy_bot")
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
ENTITY = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["mention", "text_mention", "bot_command"]) | JSON,
        "offset": JSON,
        "length": JSON,
        "user": JSON,
    },
)
MESSAGE = st.fixed_dictionaries(
    {"from": st.fixed_dictionaries({"id": JSON}, optional={"is_bot": st.just(False)})},
    optional={
        "message_id": JSON,
        "chat": JSON | st.fixed_dictionaries({"id": JSON, "type": JSON}),
        "date": JSON,
        "text": JSON,
        "caption": JSON,
        "entities": JSON | st.lists(ENTITY | JSON, max_size=3),
        "reply_to_message": JSON,
    },
)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(message=MESSAGE)
def test_any_message_shape_is_converted_or_refused_as_an_invalid_update(message):
    with contextlib.suppress(InvalidUpdate):
        to_inbound({"update_id": 1, "message": message}, BOT)


@pytest.mark.parametrize("date", [1e20, 10**30, -1, 4102444800, 1773799200.0, "1773799200", True, None])
def test_a_date_that_is_not_integer_unix_seconds_in_range_is_an_invalid_date(date):
    with pytest.raises(InvalidDate):
        sent_at(date)


def test_a_sane_date_is_the_utc_instant():
    assert sent_at(1773799200) == datetime(2026, 3, 18, 2, tzinfo=UTC)
