"""The Decision record (SPEC §3.4): what was concluded, from which facts, by which rule."""

from __future__ import annotations

from enum import StrEnum


class DecisionKind(StrEnum):
    raise_concern = "raise_concern"
    direct_action = "direct_action"
    escalate = "escalate"
    resolve_concern = "resolve_concern"
    cancel_concern = "cancel_concern"
    snooze_concern = "snooze_concern"
    reply = "reply"
    ignore = "ignore"
