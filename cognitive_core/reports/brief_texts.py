"""The words of the daily brief and the weekly review, in zh and en (the reader's language)."""

from __future__ import annotations

from datetime import timedelta

from kernel.catalogue import Catalogue

_TEXTS: dict[str, dict[str, str]] = {
    "title": {"zh": "**今日简报 · {day}**", "en": "**Daily brief · {day}**"},
    "nothing": {"zh": "没有在等的事，也没有到期的事。", "en": "Nothing waiting, nothing due."},
    "attention": {"zh": "**需要你处理（{n}）**", "en": "**Needs you ({n})**"},
    "answers": {"zh": "**收到的回复（{n}）**", "en": "**Answers ({n})**"},
    "due": {"zh": "**今天到期的承诺（{n}）**", "en": "**Promises due ({n})**"},
    "waiting": {"zh": "**还在等（{n}）**", "en": "**Still waiting ({n})**"},
    "owed": {"zh": "**在等你回复（{n}）**", "en": "**Waiting on you ({n})**"},
    "signals": {"zh": "**外部事件（{n}）**", "en": "**Signals ({n})**"},
    "people": {"zh": "**想少收点消息（{n}）**", "en": "**Asked for fewer messages ({n})**"},
    "fewer_cap": {
        "zh": "{who}觉得消息有点多，已把每天最多提醒调到 {after} 条",
        "en": "{who} found the messages a bit much: at most {after} a day for them now",
    },
    "fewer_stretch": {
        "zh": "{who}觉得消息有点多，跟进间隔已放宽到原来的 {after} 倍",
        "en": "{who} found the messages a bit much: their follow-ups now wait {after}× as long",
    },
    "unhandled": {
        "zh": "「{kind}」（来自 {source}）没有对应的处理规则 · {when}",
        "en": "「{kind}」 from {source}: no route handles it · {when}",
    },
    "routed": {"zh": "{who}：「{kind}」（来自 {source}）· {when}", "en": "{who}: 「{kind}」 from {source} · {when}"},
    "answer": {"zh": "{who}：{question} → {answer}", "en": "{who}: {question} → {answer}"},
    "waiting_item": {
        "zh": "{who}：{question} · 已等 {age} · 跟进 {count} 次 · {next}",
        "en": "{who}: {question} · {age} · {count} follow-ups · {next}",
    },
    "next_follow_up": {"zh": "下次跟进 {when}", "en": "next follow-up {when}"},
    "next_escalation": {"zh": "{when} 升级", "en": "escalates {when}"},
    "no_next": {"zh": "无下一步", "en": "no next step"},
    "escalated": {
        "zh": "{who} 未回复：{question} · 已升级给 {to}{ack}",
        "en": "{who} has not answered: {question} · escalated to {to}{ack}",
    },
    "acknowledged": {"zh": "（{by} 已确认）", "en": " (acknowledged by {by})"},
    "escalated_to_you": {
        "zh": "{asker} 问 {who} 的事没有回音：{question} · 已等 {age}",
        "en": "{asker} asked {who}, no answer: {question} · {age}",
    },
    "held": {"zh": "{who}：{question} · 消息被暂缓（{why}）", "en": "{who}: {question} · delivery held ({why})"},
    "held_away": {
        "zh": "{who}不在（{back}）：{question} · 等{who}回来再问",
        "en": "{who} is away ({back}): {question} · waits until they are back",
    },
    "back_at": {"zh": "{when} 回来", "en": "back {when}"},
    "back_open": {"zh": "回来时间未定", "en": "no return date"},
    "failed": {"zh": "发给 {who} 的消息没送到：{preview}", "en": "Could not reach {who}: {preview}"},
    "due_today": {"zh": "{who} 答应 {when} 前：{question}", "en": "{who} promised by {when}: {question}"},
    "slipped": {"zh": "{who} 逾期 {age}：{question}", "en": "{who} is {age} late: {question}"},
    "owed_item": {"zh": "{asker} 问你：{question} · 已等 {age}", "en": "{asker} asked you: {question} · {age}"},
    "more": {"zh": "… 还有 {n} 项，发送 /brief all 查看全部", "en": "… and {n} more: send /brief all"},
    "more_link": {"zh": "… 还有 {n} 项：{url}", "en": "… and {n} more: {url}"},
    "nudge": {"zh": "{n} 催一下", "en": "{n} Nudge"},
    "cancel": {"zh": "{n} 取消", "en": "{n} Cancel"},
    "extend": {"zh": "{n} 延期 2 小时", "en": "{n} +2h"},
}
TEXTS = Catalogue("cognitive_core.brief_texts", _TEXTS)
UNITS = Catalogue.columns(
    "cognitive_core.brief_texts.units",
    ("zh", "en"),
    {"minutes": ("分钟", "m"), "hours": ("小时", "h"), "days": ("天", "d")},
)


def text(name: str, locale: str, **values: object) -> str:
    """One text of the catalogue in `locale` (the deployment's default locale when the language has none)."""
    return TEXTS.text(name, locale, **values)


def age(delta: timedelta, locale: str) -> str:
    """A short duration: `40分钟` / `5小时` / `3天` (`40m`, `5h`, `3d`)."""
    minutes, hours, days = (UNITS.text(unit, locale) for unit in ("minutes", "hours", "days"))
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 3600:
        return f"{max(1, seconds // 60)}{minutes}"
    if seconds < 48 * 3600:
        return f"{seconds // 3600}{hours}"
    return f"{seconds // 86400}{days}"
