"""What the bot says, in the recipient's language (zh / en). Pure functions, no I/O."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo


def duration(delta: timedelta, locale: str) -> str:
    """`2小时15分钟` / `2h 15m`."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    if locale == "zh":
        parts = [f"{days}天" if days else "", f"{hours}小时" if hours else "", f"{mins}分钟" if mins and not days else ""]
        return "".join(parts) or "不到1分钟"
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "", f"{mins}m" if mins and not days else ""]
    return " ".join(p for p in parts if p) or "under a minute"


def when(instant: datetime, tz: ZoneInfo) -> str:
    """Local `03-18 10:00`."""
    return instant.astimezone(tz).strftime("%m-%d %H:%M")


def question(asker: str, text: str, locale: str) -> str:
    """The question sent to the target on the originator's behalf."""
    return f"{asker}想了解：{text}" if locale == "zh" else f"{asker} would like to know: {text}"


def relay(sender: str, text: str, locale: str) -> str:
    """A message passed on for someone."""
    return f"{sender}让我转告：{text}" if locale == "zh" else f"From {sender}: {text}"


def follow_up(asker: str, text: str, since: datetime, now: datetime, tz: ZoneInfo, locale: str) -> str:
    """Item / state / suggestion: what is waited for, since when, what would help."""
    waited = duration(now - since, locale)
    if locale == "zh":
        return f"【跟进】{asker}的问题：{text}\n状态：自 {when(since, tz)} 起等待你的回复（已 {waited}）。\n建议：直接回复这条消息即可；需要时间可以回复“稍后 2小时”。"
    return f"[Follow-up] {asker}'s question: {text}\nState: waiting for your reply since {when(since, tz)} ({waited}).\nSuggestion: just reply to this message; if you need time, reply \"later 2h\"."


def escalation(target: str, asker: str, text: str, since: datetime, now: datetime, tz: ZoneInfo, locale: str) -> str:
    """To the target's manager: the loop stalled."""
    waited = duration(now - since, locale)
    if locale == "zh":
        return f"【升级】{asker}问{target}：{text}\n状态：自 {when(since, tz)} 起未回复（已 {waited}），跟进已用完。\n建议：请直接联系{target}，或告诉我该怎么处理。"
    return f"[Escalation] {asker} asked {target}: {text}\nState: no reply since {when(since, tz)} ({waited}); follow-ups are exhausted.\nSuggestion: please reach {target} directly."


def stalled(target: str, text: str, since: datetime, now: datetime, tz: ZoneInfo, locale: str) -> str:
    """To the originator when the target has no manager to escalate to."""
    waited = duration(now - since, locale)
    if locale == "zh":
        return f"【停滞】你问{target}的“{text}”自 {when(since, tz)} 起没有回复（已 {waited}），{target}没有可升级的上级。建议你直接联系。"
    return f"[Stalled] Your question to {target} (\"{text}\") has had no reply since {when(since, tz)} ({waited}) and {target} has no manager to escalate to."


def backflow(answerer: str, text: str, answer: str, waited: timedelta, locale: str) -> str:
    """The answer, who answered, after how long."""
    if locale == "zh":
        return f"{answerer}回复了你的问题“{text}”：{answer}（用时 {duration(waited, locale)}）"
    return f"{answerer} answered your question \"{text}\": {answer} (after {duration(waited, locale)})"


def risk_question(member: str, text: str, locale: str) -> str:
    """To the decision maker: a member's message needs a decision above the bot's autonomy."""
    if locale == "zh":
        return f"【需要你决定】{member}的消息涉及需要你拍板的事项：{text}\n请直接回复这条消息，我会把你的决定转告{member}。"
    return f"[Decision needed] {member}'s message needs your decision: {text}\nReply to this message and I will pass your decision on to {member}."


def decision_back(maker: str, answer: str, locale: str) -> str:
    """The decision flowing back to the member."""
    return f"{maker}的决定：{answer}" if locale == "zh" else f"{maker}'s decision: {answer}"


HELP = {
    "zh": "我可以帮你：\n/ask @某人 问题 —— 替你去问并跟进（或：问一下张三：……）\n/tell @某人 内容 —— 转告\n/concerns —— 在等谁\n/cancel con_… —— 取消\n/did [24h] [@某人] —— 我做了什么\n/quiet 22:00-08:00 · /pause 3d · /resume —— 免打扰设置\n回复“稍后 2小时”可以推迟跟进。",
    "en": "I can:\n/ask @someone question — ask on your behalf and follow up (or: ask Zhang San: …)\n/tell @someone text — pass a message on\n/concerns — who we are waiting for\n/cancel con_… — cancel\n/did [24h] [@someone] — what I did\n/quiet 22:00-08:00 · /pause 3d · /resume — quiet settings\nReply \"later 2h\" to push a follow-up back.",
}

REPLIES = {
    "not_principal": {"zh": "抱歉，只有负责人可以让我去联系别人。", "en": "Sorry, only a principal can ask me to contact others."},
    "unknown_person": {"zh": "我不认识“{who}”。", "en": "I don't know \"{who}\"."},
    "ask_self": {"zh": "这是你自己呀。", "en": "That's you."},
    "nothing_to_snooze": {"zh": "现在没有在等你回复的事项。", "en": "Nothing is waiting for your reply."},
    "policy_updated": {"zh": "好的，已更新你的免打扰设置。", "en": "Done, your quiet settings are updated."},
    "sent": {"zh": "已发给{target}：{text}（{concern_id}）", "en": "Sent to {target}: {text} ({concern_id})"},
    "not_sent": {"zh": "没能发给{target}：{reason}", "en": "Could not reach {target}: {reason}"},
    "told": {"zh": "已转告{target}。", "en": "Passed on to {target}."},
    "refused_limit": {"zh": "现在不能再问{target}：{reason}", "en": "I can't ask {target} now: {reason}"},
    "cancelled": {"zh": "已取消 {concern_id}，不会再联系。", "en": "Cancelled {concern_id}; no further contact."},
    "cannot_cancel": {"zh": "不能取消 {concern_id}：{reason}", "en": "Can't cancel {concern_id}: {reason}"},
    "snoozed": {"zh": "好的，{until} 之后再提醒你。", "en": "OK, I'll follow up after {until}."},
    "risk_passed_on": {"zh": "这件事需要{maker}决定，我已转给{maker}，有结果会告诉你。", "en": "This needs {maker}'s decision; I passed it on and will tell you the answer."},
    "bound": {"zh": "绑定成功，你好 {name}！", "en": "You're linked, {name}!"},
    "bind_failed": {"zh": "绑定码无效或已过期。", "en": "That bind code is invalid or expired."},
}


def reply(template: str, locale: str, **values: str) -> str:
    """A short reactive reply by template name."""
    if template == "help":
        return HELP.get(locale, HELP["en"])
    table = REPLIES[template]
    return table.get(locale, table["en"]).format(**values)
