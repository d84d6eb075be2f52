"""What pressing an escalation's buttons (or "Nudge now") answers, in the reader's language. Pure.

The buttons' labels live with every other button's in concern/buttons.py.
"""

from __future__ import annotations

from kernel.catalogue import Catalogue

# The answer to a press, for its toast and the edited message.
_OUTCOMES = {
    "taken": {"zh": "好的，由你接手，我已告诉{asker}。", "en": "OK, it's yours; I told {asker}."},
    "already_taken": {"zh": "{manager}已经接手了。", "en": "{manager} has already taken it."},
    "taken_by_you": {"zh": "你已经接手了。", "en": "You have already taken it."},
    "not_recipient": {"zh": "这条升级现在不在你这里。", "en": "This escalation is not with you now."},
    "closed": {"zh": "已结束", "en": "already closed"},
    "not_allowed": {
        "zh": "只有发起人或升级的接收人可以催。",
        "en": "Only the asker or the escalation's recipient can.",
    },
    "not_yet": {
        "zh": "问题还没发给{target}，发出后才能催。",
        "en": "The question has not reached {target} yet; you can nudge once it has.",
    },
    "nudged": {"zh": "好的，马上再催{target}一次。", "en": "OK, nudging {target} now."},
}
OUTCOMES = Catalogue("concern.escalation_texts.outcomes", _OUTCOMES)
# "Nudge now" refused: why, and the moment it would be allowed ({when} is already local text).
_REFUSED = {
    "L1:quiet_hours": {
        "zh": "{target}在免打扰时段，{when} 后可以催。",
        "en": "{target} is in quiet hours; you can nudge after {when}.",
    },
    "L1:paused": {"zh": "{target}暂停了消息，{when} 后可以催。", "en": "{target} paused messages; nudge after {when}."},
    "L1:daily_cap": {
        "zh": "{target}今天收到的消息已达上限，{when} 后可以催。",
        "en": "{target} has had today's limit of messages; you can nudge after {when}.",
    },
    "L3:concern_contact_limit": {
        "zh": "24小时内已为这件事联系{target} {count} 次，最早 {when} 可以再催。",
        "en": "{target} was contacted {count} times about this in 24 hours; the earliest next nudge is {when}.",
    },
    "never": {"zh": "现在没法催{target}：{reason}。", "en": "I can't nudge {target}: {reason}."},
}
REFUSED = Catalogue("concern.escalation_texts.refused", _REFUSED)


def outcome(code: str, locale: str, **values: str) -> str:
    """A press's answer by code."""
    return OUTCOMES.text(code, locale, **values)


def refused(blocked_by: str, locale: str, *, target: str, when: str | None, count: int = 0, reason: str = "") -> str:
    """Why a nudge cannot go now and when it could; without a moment, why it cannot at all."""
    if when and blocked_by in REFUSED:
        return REFUSED.text(blocked_by, locale, target=target, when=when, count=count)
    return REFUSED.text("never", locale, target=target, reason=reason)
