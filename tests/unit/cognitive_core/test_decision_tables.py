"""The tables from what a person does to the command it asks for: a button's verb, a typed command (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cognitive_core import typed
from cognitive_core.language.parsing import Intent
from cognitive_core.presses.rules import VERBS, PressView, decide_press
from cognitive_core.situation import PersonView, SignalView, Situation, WaitingConcern
from concern import buttons
from concern import commands as c

OPEN = {"addressee_id": "p_zs", "presser_id": "p_zs", "concern_id": "con_1", "concern_state": "waiting_reply"}
PENDING = {"intent": "ask", "text": "在吗", "matched": {"rule": "ask.zh", "words": "问一下"}}

# verb, the button's args → the command its press carries out.
PRESSES = [
    ("later", {"hours": 2}, c.Snooze("con_1", 7200)),
    ("remind_later", {"hours": 1}, c.Snooze("con_1", 3600)),
    ("tomorrow", {}, c.DeferToMorning("con_1")),
    ("cancel", {}, c.Cancel("con_1")),
    ("approve", {}, c.Decide("con_1", approve=True)),
    ("decline", {}, c.Decide("con_1", approve=False)),
    ("cancel_reminder", {}, c.Cancel("con_1")),
    ("not_me", {}, c.NotMe("con_1")),
    ("reassign", {}, c.AskSomeoneElse("con_1")),
    ("handle", {}, c.TakeEscalation("con_1")),
    ("nudge", {}, c.Nudge("con_1")),
    ("remind", {}, c.Nudge("con_1")),
    ("done", {}, c.Done("con_1")),
    ("ask_stand_in", {"person_id": "p_ls"}, c.Reassign("con_1", "p_ls")),
    ("wait_back", {}, c.WaitForReturn("con_1")),
    ("extend", {"hours": 2}, c.Extend("con_1", 2)),
    ("pick_person", {"person_id": "p_ls", **PENDING}, c.Ask("p_ls", "在吗", "P2")),
    ("ask_or_tell", {"person_id": "p_ls", "as": "tell", **PENDING}, c.Tell("p_ls", "在吗", "P2")),
    ("nudge_pick", {"concern_id": "con_7"}, c.Nudge("con_7")),
    ("cancel_pick", {"concern_id": "con_7"}, c.Cancel("con_7")),
    ("guess", {"intent": "status", "person_id": "p_ls"}, c.Reply("concerns", {"target_person_id": "p_ls"})),
    ("llm_confirm", {"decision_id": "dec_20260318_002"}, c.ConfirmProposal("dec_20260318_002")),
    ("llm_cancel", {"decision_id": "dec_20260318_002"}, c.DropProposal("dec_20260318_002")),
    ("why", {"message": "con_1:follow_up:v3", "kind": "follow_up"},
     c.Explain("con_1:follow_up:v3", "con_1", "follow_up")),
    ("fewer", {"message": "f_9:tell", "kind": "relay", "decision": "dec_20260318_002"},
     c.FewerMessages("f_9:tell", "con_1", "relay", "dec_20260318_002")),
]  # fmt: skip


def test_the_table_has_a_row_for_every_verb():
    assert {verb for verb, _, _ in PRESSES} == set(VERBS)


@pytest.mark.parametrize(("verb", "args", "command"), PRESSES, ids=[p[0] for p in PRESSES])
def test_a_press_asks_for_the_command_of_its_verb(verb, args, command):
    decision = decide_press(PressView(verb=verb, args=args, **OPEN))
    assert decision.command == command and decision.rule == f"press:{verb}" and decision.notes["verb"] == verb


def test_every_button_a_message_carries_has_a_meaning():
    assert set(buttons.LABELS) <= set(VERBS)


def test_a_button_with_no_meaning_is_an_unknown_press():
    decision = decide_press(PressView(verb="await_name", **OPEN))  # a prompt's row, never shown as a button
    assert isinstance(decision.command, c.Ignore) and decision.rule == "press:unknown"


NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
BOSS = PersonView("p_boss", "老板", "principal", timezone="Asia/Shanghai")
ZS = PersonView("p_zhangsan", "张三", timezone="Asia/Shanghai")
WAITING = (WaitingConcern("con_1", "p_boss", "提测？", last_contact_at=NOW - timedelta(hours=1)),)

# A typed command's intent → the command it is carried out as.
TYPED = [
    (Intent("ask", {"who": "张三", "text": "在吗"}), BOSS, c.Ask("p_zhangsan", "在吗？", "P2")),
    (Intent("tell", {"who": "张三", "text": "开会", "prio": "p0"}), BOSS, c.Tell("p_zhangsan", "开会。", "P0")),
    (Intent("cancel", {"concern_id": "con_20260318_001"}), BOSS, c.Cancel("con_20260318_001")),
    (Intent("snooze", {"duration": timedelta(hours=2)}), ZS, c.Snooze("con_1", 7200)),
    (Intent("quiet", {"start": "22:00", "end": "08:00"}), ZS,
     c.SetPolicy({"quiet_hours": [{"start": "22:00", "end": "08:00"}]})),
    (Intent("pause", {"duration": timedelta(days=3)}), ZS,
     c.SetPolicy({"paused_until": (NOW + timedelta(days=3)).isoformat()})),
    (Intent("resume", {}), ZS, c.SetPolicy({"paused_until": None})),
    (Intent("brief", {"all": "all"}), BOSS, c.Brief(everything=True)),
    (Intent("review", {}), BOSS, c.Review()),
    (Intent("concerns", {}), BOSS, c.Reply("concerns")),
    (Intent("help", {}), ZS, c.Reply("help")),
]  # fmt: skip


@pytest.mark.parametrize(("intent", "sender", "command"), TYPED, ids=[t[0].name for t in TYPED])
def test_a_typed_command_asks_for_the_command_of_its_intent(intent, sender, command):
    situation = Situation(SignalView("f", "feishu", ""), sender, (BOSS, ZS), WAITING, NOW)
    assert typed.command(intent, situation).command == command


def test_why_and_too_many_answer_on_a_closed_loop_too_and_only_why_is_never_spent():
    from cognitive_core.presses.rules import READ_ONLY, verdict

    closed = {**OPEN, "concern_state": "resolved"}
    assert verdict(PressView(verb="why", **closed)) == verdict(PressView(verb="fewer", **closed)) == "ok"
    assert verdict(PressView(verb="later", **closed)) == "closed"
    assert "why" in READ_ONLY and "fewer" not in READ_ONLY
    assert verdict(PressView(verb="fewer", **{**OPEN, "presser_id": "p_ls"})) == "not_yours"
