"""Why something did not (yet) happen, and the names of states, results and channels, in the reader's language.

The action layer records machine codes (`blocked_by`, `error`) with an English reason for operators; what a
person reads is built here from those codes, never from the English reason.
"""

from __future__ import annotations

from typing import Any

from kernel import channel_names
from kernel.catalogue import Catalogue

# "{target}{held}": why a delivery waits (a retry moment exists).
_HELD = {
    "L1:quiet_hours": {"zh": "{window}", "en": "is in quiet hours{window}"},
    "L1:paused": {"zh": "暂停了消息", "en": "has paused messages"},
    "L1:daily_cap": {"zh": "今天收到的消息已达上限", "en": "has reached today's message limit"},
    "L2:follow_up_interval": {"zh": "还没到跟进的时间", "en": "is not due for a follow-up yet"},
    "L3:concern_contact_limit": {
        "zh": "24小时内已为这个问题被联系过两次",
        "en": "was contacted twice about this in 24 hours",
    },
    "L4:cooldown": {"zh": "刚收到过同类通知", "en": "just got a similar notice"},
}
HELD = Catalogue("concern.reasons.held", _HELD)
# Why something did not happen at all.
_NOT_DONE = {
    "L1:quiet_hours": {"zh": "{target}一直处于免打扰时间", "en": "{target} is always in quiet hours"},
    "L1:paused": {"zh": "{target}暂停了消息", "en": "{target} has paused messages"},
    "L1:proactive_disabled": {"zh": "{target}不接受主动消息", "en": "{target} does not accept messages from me"},
    "L1:daily_cap": {"zh": "{target}今天收到的消息已达上限", "en": "{target} has reached today's message limit"},
    "L1:daily_cap:none": {
        "zh": "{target}不接受主动消息（每天上限为 0）",
        "en": "{target} accepts no messages from me (a daily limit of 0)",
    },
    "L2:global_concern_limit": {"zh": "同时在等的问题太多了", "en": "too many questions are open at once"},
    "L2:person_concern_limit": {
        "zh": "已经有太多问题在等{target}回复",
        "en": "too many questions already wait on {target}",
    },
    "L2:follow_up_interval": {"zh": "跟进次数已用完", "en": "the follow-ups are used up"},
    "L3:concern_contact_limit": {"zh": "24小时内已联系{target}两次", "en": "{target} was contacted twice in 24 hours"},
    "L4:cooldown": {"zh": "刚发过同类通知", "en": "a similar notice just went out"},
    "target_not_found": {"zh": "找不到{target}", "en": "{target} does not exist"},
    "target_inactive": {"zh": "{target}已停用", "en": "{target} is deactivated"},
    "no_reachable_binding": {"zh": "{target}没有可用的联系方式", "en": "{target} has no reachable chat"},
    "all_channels_failed": {"zh": "{channels}都发送失败", "en": "sending failed on {channels}"},
    "interrupted": {
        "zh": "发送时服务中断，无法确认是否送达",
        "en": "the service stopped while sending; delivery is unknown",
    },
    "superseded": {"zh": "问题已经有了变化", "en": "the question changed meanwhile"},
    "invalid_request": {"zh": "设置无效", "en": "the setting is not valid"},
    "unknown": {"zh": "发送失败", "en": "sending failed"},
}
NOT_DONE = Catalogue("concern.reasons.not_done", _NOT_DONE)
_STATES = {
    "waiting_reply": {"zh": "等待回复", "en": "waiting for a reply"},
    "escalated": {"zh": "已升级", "en": "escalated"},
    "resolved": {"zh": "已回复", "en": "answered"},
    "cancelled": {"zh": "已取消", "en": "cancelled"},
    "expired": {"zh": "已过期", "en": "expired"},
}
STATES = Catalogue("concern.reasons.states", _STATES)
_RESULTS = {
    "success": {"zh": "成功", "en": "sent"},
    "failed": {"zh": "失败", "en": "failed"},
    "blocked": {"zh": "被拦截", "en": "held back"},
    "pending": {"zh": "发送中", "en": "in flight"},
}
RESULTS = Catalogue("concern.reasons.results", _RESULTS)
_ACTION_TYPES = {
    "send_message": {"zh": "提问", "en": "question"},
    "notify": {"zh": "通知", "en": "notice"},
    "escalate": {"zh": "升级", "en": "escalation"},
    "backflow": {"zh": "回传答复", "en": "answer passed back"},
    "query": {"zh": "查询", "en": "query"},
    "internal_update": {"zh": "更新设置", "en": "settings change"},
}
ACTION_TYPES = Catalogue("concern.reasons.action_types", _ACTION_TYPES)
# Channels that are no plugin; each installed platform's name comes with its plugin (kernel.channel_names).
CHANNELS = Catalogue("concern.reasons.channels", {"internal": {"zh": "内部", "en": "internal"}})


def _name(catalogue: Catalogue, key: str, locale: str) -> str:
    """A code's name for a reader; a code the catalogue does not know reads as itself (a new state, say)."""
    return catalogue.text(key, locale) if key in catalogue else key


def state(name: str, locale: str) -> str:
    """`waiting_reply` → `等待回复`."""
    return _name(STATES, name, locale)


def result(name: str, locale: str) -> str:
    """`success` → `成功`."""
    return _name(RESULTS, name, locale)


def action_type(name: str, locale: str) -> str:
    """`send_message` → `提问`."""
    return _name(ACTION_TYPES, name, locale)


def channel(name: str, locale: str) -> str:
    """`feishu` → `飞书`, as the platform's plugin names it; `internal` → `内部`."""
    return channel_names.display(name, locale) or _name(CHANNELS, name, locale)


def held(blocked_by: str, locale: str, *, window: str | None = None) -> str:
    """Why a delivery waits, to follow the person's name: `22:00–08:00 免打扰` / `is in quiet hours (22:00–08:00)`."""
    if blocked_by not in HELD:
        return HELD.text("L1:paused", locale)
    text = HELD.template(blocked_by, locale)
    if blocked_by == "L1:quiet_hours":
        if locale == "zh":
            return text.format(window=f" {window} 免打扰" if window else "正处于免打扰时间")
        return text.format(window=f" ({window})" if window else "")
    return text


def why(detail: dict[str, Any], locale: str, *, target: str, until: str | None = None) -> str:
    """Why an action is not (yet) done: held until a moment (`until`, already local text), or not done at all."""
    code = detail.get("blocked_by")
    if code and until:
        held_text = held(code, locale)
        return f"{target}{held_text}，到 {until}" if locale == "zh" else f"{target} {held_text} until {until}"
    return not_done(detail, locale, target=target)


def not_done(detail: dict[str, Any], locale: str, *, target: str) -> str:
    """Why an action did not happen, from its result_detail's codes (never its English reason)."""
    code = detail.get("blocked_by") or detail.get("error") or "unknown"
    if code == "L1:daily_cap" and not detail.get("not_before"):
        code = "L1:daily_cap:none"
    if code not in NOT_DONE:
        code = "unknown"
    tried = [a.get("channel") for a in detail.get("attempts", []) if a.get("channel")]
    names = list(dict.fromkeys(channel(c, locale) for c in tried)) or [channel("internal", locale)]
    joined = "和".join(names) if locale == "zh" else " and ".join(names)
    return NOT_DONE.text(code, locale, target=target, channels=joined)
