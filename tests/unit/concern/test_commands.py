"""The vocabulary: every command has a stable serialised form, a decision kind, and reads back from an old fact."""

from __future__ import annotations

import pytest

from concern import commands as c
from concern.handlers import HANDLERS
from fact.decisions import DecisionKind

# One of each command and answer, with the decision kind it is recorded under.
EXAMPLES: list[tuple[c.Command, DecisionKind]] = [
    (c.Ask("p_zs", "提测什么时候能给？", "P0", "2026-03-20T10:00:00+00:00", "周五前"), DecisionKind.raise_concern),
    (c.Escalate("p_ww", "合同明天签", ("合同",)), DecisionKind.escalate),
    (c.Tell("p_zs", "明早10点开会", "P2"), DecisionKind.direct_action),
    (c.Notify("p_zs", "服务器今晚维护", "maintenance", "P1"), DecisionKind.direct_action),
    (c.Remind("2026-03-19T02:00:00+00:00", "交周报", "明天上午10点"), DecisionKind.raise_concern),
    (c.Commit("con_20260318_001", "2026-03-19T07:00:00+00:00", "明天下午3点", vague=False), DecisionKind.raise_concern),
    (c.Resolve("con_20260318_001", "明天下午", media_kind="photo"), DecisionKind.resolve_concern),
    (c.Acknowledge("con_20260318_001"), DecisionKind.snooze_concern),
    (c.Snooze("con_20260318_001", 7200), DecisionKind.snooze_concern),
    (c.DeferToMorning("con_20260318_001"), DecisionKind.snooze_concern),
    (c.Cancel("con_20260318_001"), DecisionKind.cancel_concern),
    (c.Nudge("con_20260318_001"), DecisionKind.direct_action),
    (c.NotMe("con_20260318_001"), DecisionKind.direct_action),
    (c.AskSomeoneElse("con_20260318_001"), DecisionKind.direct_action),
    (c.Reassign("con_20260318_001", "p_ls"), DecisionKind.direct_action),
    (c.TakeEscalation("con_20260318_001"), DecisionKind.direct_action),
    (c.Decide("con_20260318_001", approve=False), DecisionKind.resolve_concern),
    (c.Done("con_20260318_001"), DecisionKind.resolve_concern),
    (c.Extend("con_20260318_001", hours=2), DecisionKind.direct_action),
    (c.Bind("ABCD2345EFGH"), DecisionKind.direct_action),
    (c.SetPolicy({"quiet_hours": [{"start": "22:00", "end": "08:00"}]}), DecisionKind.direct_action),
    (c.SetAway("on_leave", "2026-12-04T16:00:00+00:00", "我请假到周五"), DecisionKind.direct_action),
    (c.WaitForReturn("con_1"), DecisionKind.direct_action),
    (c.Reply("did", {"today": True, "window_s": 86400}), DecisionKind.reply),
    (c.Brief(everything=True), DecisionKind.reply),
    (c.Review(), DecisionKind.reply),
    (c.ConfirmProposal("dec_20260318_004"), DecisionKind.direct_action),
    (c.DropProposal("dec_20260318_004"), DecisionKind.direct_action),
    (c.Ignore({"concern_id": "con_20260318_001"}), DecisionKind.ignore),
    (c.Explain("con_20260318_001:follow_up:v3", "con_20260318_001", "follow_up"), DecisionKind.reply),
    (c.FewerMessages("fact_20260318_009:tell", None, "relay", "dec_20260318_004"), DecisionKind.direct_action),
]


def test_the_examples_cover_every_command_type():
    assert {type(command).TYPE for command, _ in EXAMPLES} == set(c.COMMANDS)


@pytest.mark.parametrize(("command", "kind"), EXAMPLES, ids=lambda v: getattr(v, "TYPE", ""))
def test_every_command_reads_back_from_its_serialised_form(command, kind):
    data = c.dump(command)
    assert data["type"] == command.TYPE and c.load(data) == command
    assert kind == command.KIND


@pytest.mark.parametrize(("command", "kind"), EXAMPLES, ids=lambda v: getattr(v, "TYPE", ""))
def test_every_command_reads_back_from_the_flat_shape_decisions_recorded_before(command, kind):
    entry = command.flat() | {"kind": kind.value}  # as the inbox wrote it: the decision's kind beside the fields
    assert c.from_requested(kind.value, entry) == command


def test_the_serialised_form_is_stable():
    assert c.dump(c.Escalate("p_ww", "合同明天签", ("合同", "签约"))) == {
        "type": "escalate",
        "decision_maker_id": "p_ww",
        "question": "合同明天签",
        "keywords": ["合同", "签约"],
    }
    assert c.dump(c.Snooze("con_20260318_001", 3600)) == {
        "type": "snooze",
        "concern_id": "con_20260318_001",
        "duration_s": 3600,
    }


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"type": "frobnicate"}, "unknown command type"),
        ({"concern_id": "con_1"}, "unknown command type"),
        ({"type": "cancel", "concern_id": "con_1", "force": True}, "has no field force"),
    ],
)
def test_a_serialised_form_that_names_nothing_known_is_refused(data, why):
    with pytest.raises(ValueError, match=why):
        c.load(data)


@pytest.mark.parametrize(
    ("kind", "entry", "command"),
    [  # entries exactly as decision facts recorded them before commands existed
        (
            "raise_concern",
            {"target_person_id": "p_zs", "question": "在吗", "priority": "P1", "matched": {}, "kind": "raise_concern"},
            c.Ask("p_zs", "在吗", "P1"),
        ),
        ("direct_action", {"action": "notify", "target_person_id": "p_zs", "text": "hi", "priority": "P2"},
         c.Tell("p_zs", "hi", "P2")),
        ("resolve_concern", {"verb": "approve", "concern_id": "con_1", "kind": "resolve_concern"},
         c.Decide("con_1", approve=True)),
        ("resolve_concern", {"verb": "done", "concern_id": "con_1"}, c.Done("con_1")),
        ("direct_action", {"verb": "remind", "concern_id": "con_1", "action": "remind"}, c.Nudge("con_1")),
        ("reply", {"template": "brief", "all": False, "kind": "reply"}, c.Brief(everything=False)),
        ("snooze_concern", {"verb": "later", "concern_id": "con_1", "duration_s": 7200}, c.Snooze("con_1", 7200)),
    ],
)  # fmt: skip
def test_old_flat_entries_read_as_the_command_they_stood_for(kind, entry, command):
    assert c.from_requested(kind, entry) == command


def test_a_shape_no_command_ever_had_reads_as_nothing():
    assert c.from_requested("direct_action", {"action": "teleport"}) is None


def test_the_handler_table_carries_out_every_command_and_no_answer():
    commands = {cls for cls in c.COMMANDS.values() if not issubclass(cls, c.Answer)}
    assert set(HANDLERS) == commands
