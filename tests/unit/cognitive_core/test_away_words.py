"""Away and back in plain words: the rows of corpus/away.py read with their intent, status, return and stand-in."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from cognitive_core.language import away
from tests.unit.cognitive_core.corpus.away import AWAY_EN, AWAY_MIXED, AWAY_MORE, AWAY_ZH, STATES
from tests.unit.cognitive_core.test_corpus import NAMES, NOW, PEOPLE, intent_of, person_of, understood

ROWS = [*AWAY_ZH, *AWAY_EN, *AWAY_MIXED, *AWAY_MORE]


def _wrong(text: str, intent: str, person: str | None) -> str | None:
    """What is wrong with one row's reading (None: every stated field right)."""
    d = understood(text)
    got = "remind" if d.rule == "remind" else intent_of(d)  # intent_of counts a reminder as an ask
    if got != intent:
        return f"{text!r}: expected {intent}, got {got} ({d.rule})"
    if person is not None and person_of(d) != person:
        return f"{text!r}: person {person_of(d)} instead of {person}"
    if intent != "away":
        return None
    until = d.params.get("until")
    local = until and datetime.fromisoformat(until).astimezone(ZoneInfo("Asia/Shanghai"))
    read = (d.params.get("status"), f"{local:%m-%d %H:%M}" if local else None, NAMES.get(d.params.get("stand_in_id")))
    return None if read == STATES[text] else f"{text!r}: read {read}, expected {STATES[text]}"


def test_every_away_row_states_what_it_must_set():
    assert {t for t, intent, *_ in ROWS if intent == "away"} == set(STATES)
    assert len(AWAY_ZH) >= 35 and len(AWAY_EN) >= 20 and len(AWAY_MIXED) >= 5


def test_away_leave_and_back_are_read_in_the_words_people_use():
    misses = [m for text, intent, person, *_ in ROWS if (m := _wrong(text, intent, person))]
    right = len(ROWS) - len(misses)
    print(f"\naway rows: {right}/{len(ROWS)} right")
    assert not misses, f"{right}/{len(ROWS)} right\n" + "\n".join(misses)


def _said(text: str) -> away.Said | None:
    return away.read(text, people=PEOPLE, sender_id="p_boss", now=NOW, tz="Asia/Shanghai")


def test_a_message_is_an_absence_only_when_nothing_is_left_unexplained():
    assert _said("我明天请假") is not None
    assert _said("我明天请假，合同周五给你") is None  # an answer that mentions leave
    assert _said("王五明天请假") is None  # someone else's
    assert _said("我明天可能请假") is None  # a hedge


def test_a_stand_in_clause_names_who_covers_and_never_the_sender():
    assert _said("我明天请假，有事找李四").stand_in.display_name == "李四"
    assert _said("I'm out tomorrow, Alice is covering").stand_in.display_name == "Alice Chen"
    assert _said("我明天请假，有事找老板").stand_in is None  # the sender is no stand-in for themselves


def test_a_return_day_before_the_start_is_the_one_after_it():
    said = _said("下周请三天假，周四回来")  # Thursday of next week, not tomorrow
    assert said.until.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%m-%d %H:%M") == "03-26 00:00"


def test_a_bare_word_of_return_is_no_return_without_the_speaker():
    assert _said("上班") is None and _said("back") is None  # may be an answer ("明天上班吗？")
    assert _said("我上班了").intent == "resume" and _said("back online").intent == "resume"
