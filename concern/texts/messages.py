"""What the bot says about a loop, in the reader's language (zh / en) and timezone. Pure functions, no I/O."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from concern.texts import forwarding
from kernel.catalogue import Catalogue
from kernel.moments import WEEKDAYS, when  # noqa: F401  (callers read them here)

_TEMPLATES: dict[str, dict[str, str]] = {
    "follow_up": {
        "zh": "【跟进】{asker}的问题：{text}\n{asker}从 {since} 起一直在等你的回复（已经等了{waited}）。"
        "直接回这条消息就行；需要点时间的话，回“稍后 2小时”。",
        "en": "[Follow-up] {asker}'s question: {text}\n"
        "{asker} has been waiting for your reply since {since} ({waited}). "
        'Just reply to this message; if you need a little time, reply "later 2h".',
    },
    "follow_up_read": {  # read but not answered: a gentler nudge, where they read it
        "zh": "【跟进】{asker}的问题：{text}\n看到你已经读过了，方便的时候回一句就好（{asker}从 {since} 起在等）。"
        "直接回这条消息就行；需要点时间的话，回“稍后 2小时”。",
        "en": "[Follow-up] {asker}'s question: {text}\n"
        "You have seen it; a short reply when you can is all it takes ({asker} has been waiting since {since}). "
        'Just reply to this message; if you need a little time, reply "later 2h".',
    },
    "escalation": {
        "zh": "【升级】{asker}问{target}：{text}\n"
        "从 {since} 起一直没有回复（已经等了{waited}），我跟进了几次也没有回音。"
        "你可以直接找{target}；也可以回复这条消息，我会把你的答复转给{asker}。",
        "en": "[Escalation] {asker} asked {target}: {text}\n"
        "No reply since {since} ({waited} so far), and my follow-ups got no answer. You could reach {target} "
        "directly, or reply to this message and I'll pass your answer on to {asker}.",
    },
    "stalled": {
        "zh": "【停滞】你问{target}的“{text}”自 {since} 起没有回复（已 {waited}），{target}没有可升级的上级。"
        "建议你直接联系。这个问题会在 {expires} 过期。",
        "en": '[Stalled] Your question to {target} ("{text}") has had no reply since {since} ({waited}) '
        "and {target} has no manager to escalate to. You may want to reach them directly. It expires {expires}.",
    },
    "escalation_failed": {
        "zh": "【升级未送达】你问{target}的“{text}”没有回复，我没能把它升级给{manager}：{reason}。"
        "建议你直接联系。这个问题会在 {expires} 过期。",
        "en": '[Escalation not delivered] Your question to {target} ("{text}") has no reply and I could not '
        "escalate it to {manager}: {reason}. You may want to reach them directly. It expires {expires}.",
    },
    "not_me": {
        "zh": "{target}说“{text}”不是他负责的，我已停止跟进。要取消，还是问别人？",
        "en": '{target} says "{text}" is not theirs; I stopped following up. Cancel it, or ask someone else?',
    },
    "escalation_again": {
        "zh": "【升级·再次提醒】{asker}问{target}：{text}\n"
        "从 {since} 起还是没有回复（已经等了{waited}），上次转给你之后也还没有人接手。"
        "你可以点“我来处理”接手，或点“提醒他”让我再催{target}一次；也可以直接回复这条消息，我会把你的答复转给{asker}。",
        "en": "[Escalation, again] {asker} asked {target}: {text}\n"
        "Still no reply since {since} ({waited} so far), and nobody has taken it since I brought it to you. "
        'Tap "I\'ll handle it" to take it, or "Remind them" and I\'ll nudge {target} once more; '
        "or reply to this message and I'll pass your answer on to {asker}.",
    },
    "escalation_up": {
        "zh": "【升级】{asker}问{target}：{text}\n"
        "从 {since} 起一直没有回复（已经等了{waited}），转给{previous}之后也还没有人接手。"
        "你可以联系{previous}或{target}；也可以直接回复这条消息，我会把你的答复转给{asker}。",
        "en": "[Escalation] {asker} asked {target}: {text}\n"
        "No reply since {since} ({waited} so far), and {previous}, who had it before you, has not taken it. "
        "You could reach {previous} or {target}, or reply to this message and I'll pass your answer on to {asker}.",
    },
    "escalation_taken": {
        "zh": "{manager}接手了你问{target}的“{text}”，有答复我会转给你。",
        "en": '{manager} has taken on your question to {target} ("{text}"); I will pass on the answer.',
    },
    "escalation_climbed": {
        "zh": "你问{target}的“{text}”，{previous}一直没有处理，我已升级给{manager}。",
        "en": 'Your question to {target} ("{text}") was not taken by {previous}; I escalated it to {manager}.',
    },
    "escalation_chain_end": {
        "zh": "【停滞】你问{target}的“{text}”已升级给{managers}，都没有处理，没有更上一级了。建议你直接联系。"
        "这个问题会在 {expires} 过期。",
        "en": '[Stalled] Your question to {target} ("{text}") went up to {managers} and nobody took it; there is '
        "no one further up. You may want to reach them directly. It expires {expires}.",
    },
    "expired": {
        "zh": "【已过期】你问{target}的“{text}”一直没有回复，我已停止跟进。",
        "en": '[Expired] Your question to {target} ("{text}") never got an answer; I have stopped following up.',
    },
    "undeliverable": {
        "zh": "没能把问题发给{target}：{reason}。这个问题已关闭：“{text}”",
        "en": 'I could not get your question to {target}: {reason}. It is closed: "{text}"',
    },
    "held": {
        "zh": "{target}{why}，问题将在 {when} 发出：{text}",
        "en": "{target} {why}; your question goes out {when}: {text}",
    },
    "cancelled_by_admin": {
        "zh": "管理员取消了你问{target}的问题“{text}”，不会再联系{target}。",
        "en": 'An administrator cancelled your question to {target} ("{text}"); {target} will not be contacted again.',
    },
    "reminder_cancelled_by_admin": {
        "zh": "管理员取消了你的提醒“{text}”，到时不会再提醒你。",
        "en": 'An administrator cancelled your reminder ("{text}"); you will not be reminded.',
    },
    "backflow": {
        "zh": "{answerer}回复了你的问题“{text}”：{answer}（用时 {waited}）",
        "en": '{answerer} answered your question "{text}": {answer} (after {waited})',
    },
    "backflow_for": {
        "zh": "{answerer}代{target}回复了你的问题“{text}”：{answer}（用时 {waited}）",
        "en": '{answerer} answered for {target} your question "{text}": {answer} (after {waited})',
    },
    "closed_answered": {
        "zh": "{target}已经回复了{asker}的问题“{text}”，这件事不用再处理了。",
        "en": '{target} has answered {asker}\'s question ("{text}"); nothing more to do.',
    },
    "closed_answered_for_you": {
        "zh": "{answerer}已代你回复了{asker}的问题“{text}”，不用再回复了。",
        "en": '{answerer} has answered {asker}\'s question ("{text}") for you; no need to reply.',
    },
    "closed_taken": {
        "zh": "{manager}已接手{asker}问{target}的“{text}”，这件事不用再处理了。",
        "en": '{manager} has taken on {asker}\'s question to {target} ("{text}"); nothing more to do.',
    },
    "closed_cancelled_for_you": {
        "zh": "{asker}取消了问你的问题“{text}”，不用再回复了。",
        "en": '{asker} cancelled the question to you ("{text}"); no need to reply.',
    },
    "closed_cancelled": {
        "zh": "{asker}取消了问{target}的问题“{text}”，这件事不用再处理了。",
        "en": '{asker} cancelled the question to {target} ("{text}"); nothing more to do.',
    },
    "closed_expired": {
        "zh": "{asker}问{target}的“{text}”已过期，我已停止跟进。",
        "en": '{asker}\'s question to {target} ("{text}") has expired; I have stopped following up.',
    },
    "risk_question": {
        "zh": "【需要你决定】{member}的消息涉及需要你拍板的事项：{text}\n"
        "请直接回复这条消息，我会把你的决定转告{member}。",
        "en": "[Decision needed] {member}'s message needs your decision: {text}\n"
        "Reply to this message and I will pass your decision on to {member}.",
    },
    "decision_back": {"zh": "{maker}的决定：{answer}", "en": "{maker}'s decision: {answer}"},
}
TEMPLATES = Catalogue("concern.messages", _TEMPLATES)


def render(name: str, locale: str, **values: str) -> str:
    """One template in the reader's locale (the deployment's default locale when the locale has none)."""
    return TEMPLATES.text(name, locale, **values)


def duration(delta: timedelta, locale: str) -> str:
    """`2小时15分钟` / `2h 15m`."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    if locale == "zh":
        parts = [
            f"{days}天" if days else "",
            f"{hours}小时" if hours else "",
            f"{mins}分钟" if mins and not days else "",
        ]
        return "".join(parts) or "不到1分钟"
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "", f"{mins}m" if mins and not days else ""]
    return " ".join(p for p in parts if p) or "under a minute"


def question(asker: str, text: str, locale: str, aliases: tuple[str, ...] = ()) -> str:
    """The question sent to the target on the originator's behalf (the frame: `forwarding.question`)."""
    return forwarding.question(asker, text, locale, aliases)


def relay(sender: str, text: str, locale: str, aliases: tuple[str, ...] = ()) -> str:
    """A message passed on for someone (the frame: `forwarding.relay`)."""
    return forwarding.relay(sender, text, locale, aliases)


def follow_up(
    asker: str, text: str, since: datetime, now: datetime, tz: ZoneInfo, locale: str, *, read: bool = False
) -> str:
    """Item / state / suggestion: what is waited for, since when, what would help; gentler once they read it."""
    return render(
        "follow_up_read" if read else "follow_up",
        locale,
        asker=asker,
        text=text,
        since=when(since, tz),
        waited=duration(now - since, locale),
    )


def escalation(target: str, asker: str, text: str, since: datetime, now: datetime, tz: ZoneInfo, locale: str) -> str:
    """To the target's manager: the loop stalled; their own answer is welcome."""
    return render(
        "escalation",
        locale,
        target=target,
        asker=asker,
        text=text,
        since=when(since, tz),
        waited=duration(now - since, locale),
    )


def backflow(
    answerer: str, text: str, answer: str, waited: timedelta, locale: str, *, target: str | None = None
) -> str:
    """The answer, who answered (for whom, when it was not the person asked), after how long."""
    if target and target != answerer:
        return render(
            "backflow_for",
            locale,
            answerer=answerer,
            target=target,
            text=text,
            answer=answer,
            waited=duration(waited, locale),
        )
    return render("backflow", locale, answerer=answerer, text=text, answer=answer, waited=duration(waited, locale))


def risk_question(member: str, text: str, locale: str) -> str:
    """To the decision maker: a member's message needs a decision above the bot's autonomy."""
    return render("risk_question", locale, member=member, text=text)


def decision_back(maker: str, answer: str, locale: str) -> str:
    """The decision flowing back to the member."""
    return render("decision_back", locale, maker=maker, answer=answer)


_PAUSE = re.compile(r"[\s，,。.;；、:：!！?？]")  # where a quoted preview may end


def clip(words: str, limit: int = 40) -> str:
    """At most `limit` characters, ending at a pause near the end or else never inside a Latin word, then `…`."""
    words = " ".join(words.split())
    if len(words) <= limit:
        return words
    head = words[: limit - 1]
    inside_latin = bool(re.search(r"[A-Za-z0-9]$", head) and re.match(r"[A-Za-z0-9]", words[limit - 1]))
    stops = [m.end() for m in _PAUSE.finditer(head)]
    near = [s for s in stops if s >= len(head) * 2 // 3]
    if near:
        head = head[: near[-1]]
    elif inside_latin and stops:
        head = head[: stops[-1]]
    return head.rstrip(" ,，、:：;；.。") + "…"
