"""Decisions recorded before commands existed: their flat `requested` entries read back as commands."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from concern.commands.answers import Brief, ConfirmProposal, DropProposal, Ignore, Reply, Review
from concern.commands.base import Command, load
from concern.commands.loops import (
    Acknowledge,
    Ask,
    AskSomeoneElse,
    Bind,
    Cancel,
    Commit,
    Decide,
    DeferToMorning,
    Done,
    Escalate,
    Extend,
    Notify,
    NotMe,
    Nudge,
    Reassign,
    Remind,
    Resolve,
    SetAway,
    SetPolicy,
    Snooze,
    TakeEscalation,
    Tell,
    WaitForReturn,
)
from fact.decisions import DecisionKind


def _has(*keys: str, **equal: Any):
    return lambda entry: all(k in entry for k in keys) and all(entry.get(k) == v for k, v in equal.items())


# How each command was written before commands existed: (decision kind, what the entry has) → command type. Read
# top to bottom, the first match wins (an old `requested` entry has no `type`).
LEGACY_SHAPES: tuple[tuple[DecisionKind, Any, type[Command]], ...] = (
    (DecisionKind.raise_concern, _has("parent_id", "due_at"), Commit),
    (DecisionKind.raise_concern, _has("target_person_id", "question"), Ask),
    (DecisionKind.raise_concern, _has("due_at", "text"), Remind),
    (DecisionKind.escalate, _has("decision_maker_id", "question"), Escalate),
    (DecisionKind.direct_action, _has("target_person_id", action="notify"), Tell),
    (DecisionKind.direct_action, _has("target_person_id", action_type="notify"), Notify),
    (DecisionKind.direct_action, _has("code", action="bind"), Bind),
    (DecisionKind.direct_action, _has("patch", action="policy"), SetPolicy),
    (DecisionKind.direct_action, _has("status", action="away"), SetAway),
    (DecisionKind.direct_action, _has("concern_id", action="wait_back"), WaitForReturn),
    (DecisionKind.direct_action, _has("concern_id", "target_person_id", action="reassign"), Reassign),
    (DecisionKind.direct_action, _has("concern_id", action="reassign"), AskSomeoneElse),
    (DecisionKind.direct_action, _has("concern_id", action="nudge"), Nudge),
    (DecisionKind.direct_action, _has("concern_id", action="remind"), Nudge),
    (DecisionKind.direct_action, _has("concern_id", action="not_me"), NotMe),
    (DecisionKind.direct_action, _has("concern_id", action="handle"), TakeEscalation),
    (DecisionKind.direct_action, _has("concern_id", action="extend"), Extend),
    (DecisionKind.resolve_concern, _has("concern_id", "answer"), Resolve),
    (DecisionKind.resolve_concern, _has("concern_id", verb="approve"), Decide),
    (DecisionKind.resolve_concern, _has("concern_id", verb="decline"), Decide),
    (DecisionKind.resolve_concern, _has("concern_id", verb="done"), Done),
    (DecisionKind.resolve_concern, _has("concern_id", "approve"), Decide),
    (DecisionKind.snooze_concern, _has("concern_id", acknowledgement=True), Acknowledge),
    (DecisionKind.snooze_concern, _has("concern_id", until="morning"), DeferToMorning),
    (DecisionKind.snooze_concern, _has("concern_id", "duration_s"), Snooze),
    (DecisionKind.cancel_concern, _has("concern_id"), Cancel),
    (DecisionKind.direct_action, _has("decision_id", action="llm_confirm"), ConfirmProposal),
    (DecisionKind.direct_action, _has("decision_id", action="llm_cancel"), DropProposal),
    (DecisionKind.resolve_concern, _has("concern_id"), Done),  # a press's Done, once its verb is a note
)


def from_requested(kind: str, entry: dict[str, Any]) -> Command | None:
    """The command (or answer) an older decision's `requested` entry stood for; None for a shape it never had."""
    if "type" in entry:  # a command's own form (one with no older shape), perhaps with the decision's kind beside it
        return load({k: v for k, v in entry.items() if k != "kind"})
    entry = {k: v for k, v in entry.items() if k != "kind"}  # the decision's kind, added to every entry
    if kind == DecisionKind.reply:
        template = entry.pop("template", "")
        if template == "brief":
            return Brief(everything=bool(entry.get("all")))
        return Review() if template == "review" else Reply(template, entry)
    if kind == DecisionKind.ignore:
        return Ignore(entry)
    for shape_kind, matches, cls in LEGACY_SHAPES:
        if shape_kind == kind and matches(entry):
            values = {f.name: entry[f.name] for f in fields(cls) if f.name in entry}
            if cls is Decide and "approve" not in entry:
                values["approve"] = entry.get("verb") == "approve"
            if cls is Escalate:
                values["keywords"] = tuple(entry.get("keywords", ()))
            return cls(**values)
    return None
