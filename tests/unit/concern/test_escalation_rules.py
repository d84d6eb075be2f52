"""The escalation's own steps, pure: wait, repeat once, climb while there is someone above, end, expire."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from concern.escalation.rules import next_escalation_step, next_recipient, repeat_after
from concern.texts.replies import policy_change, reply

NOW = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)
H = timedelta(hours=1)
DAY = timedelta(days=1)


def step(*, level=1, repeats=0, since=NOW - 2 * H, ack=None, reached=True, has_next=True, max_levels=2, now=NOW):
    return next_escalation_step(
        level=level,
        repeats=repeats,
        max_levels=max_levels,
        reached=reached,
        acknowledged_at=ack,
        last_step_at=since,
        repeat_after=H,
        expire_after=7 * DAY,
        has_next=has_next,
        now=now,
    )


def test_the_repeat_waits_for_its_interval_from_the_last_step():
    assert (step(since=NOW - H / 2).kind, step(since=NOW - H / 2).at) == ("wait", NOW + H / 2)


def test_an_escalation_is_repeated_once_then_climbs():
    assert step(repeats=0).kind == "repeat"
    assert step(repeats=1).kind == "climb"


def test_the_chain_ends_at_the_top_level_or_when_nobody_is_above():
    assert step(level=2, repeats=1).kind == "end"
    assert step(level=1, repeats=1, has_next=False).kind == "end"
    assert step(level=1, repeats=1, max_levels=1).kind == "end"


def test_a_taken_or_undelivered_escalation_only_waits_for_its_expiry():
    assert step(ack=NOW - H) == step(ack=NOW - H).__class__("wait", NOW - H + 7 * DAY)
    assert step(reached=False).kind == "wait" and step(reached=False).at == NOW - 2 * H + 7 * DAY


def test_expiry_counts_from_the_last_step():
    assert step(since=NOW - 7 * DAY).kind == "expire"
    assert step(since=NOW - 7 * DAY + H).kind != "expire"


def test_the_repeat_interval_defaults_to_the_prioritys_last_wait():
    schedule = {"P1": [4 * H, DAY, 2 * DAY]}
    assert repeat_after("P1", schedule, None) == 2 * DAY and repeat_after("P1", schedule, 3 * H) == 3 * H


def test_the_chain_never_climbs_to_the_asker_the_person_asked_or_someone_asked_already():
    assert next_recipient("p_zl", chain=["p_ww"], originator_id="p_boss", target_id="p_zs") == "p_zl"
    assert next_recipient("p_boss", chain=["p_ww"], originator_id="p_boss", target_id="p_zs") is None
    assert next_recipient("p_ww", chain=["p_ww"], originator_id="p_boss", target_id="p_zs") is None
    assert next_recipient(None, chain=[], originator_id="p_boss", target_id="p_zs") is None


def test_confirmations_say_what_changed_in_the_readers_time():
    tz = ZoneInfo("Asia/Shanghai")
    until = (NOW + 3 * DAY).isoformat()
    assert reply("policy_updated", "zh", what=policy_change({"paused_until": until}, "zh", tz=tz, now=NOW)) == (
        "好的，暂停到 03-21 12:00（周六）"
    )
    quiet = {"quiet_hours": [{"start": "22:00", "end": "08:00"}]}
    assert policy_change(quiet, "zh", tz=tz, now=NOW) == "免打扰时段改为每天 22:00–08:00"
    assert policy_change({"paused_until": until}, "en", tz=ZoneInfo("UTC"), now=NOW) == "paused until Sat 03-21 04:00"
