"""Short reactive replies to what a person just wrote, in their language: help, usage hints, confirmations."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from concern.texts import reach
from concern.texts.messages import WEEKDAYS
from kernel.catalogue import Catalogue
from kernel.moments import when

_HELP = {
    "zh": "我可以帮你问人、转告、跟进、提醒。直接跟我说就行，例如：\n"
    "帮我问问张三提测什么时候能给 · 告诉李四明早10点开会 · 催一下张三 · 提醒我明天上午10点交周报\n"
    "现在在等谁回复？ · 你今天做了什么？ · 简报 · 周报 · 晚上10点到早上8点别打扰我 · 这周别打扰我\n"
    "命令也可以：/ask /tell /concerns /did /cancel /brief /review /remind /reminders /quiet /pause /resume /away /back",
    "en": "I can ask people, pass messages on, follow up and remind you. Just tell me, e.g.:\n"
    "ask Zhang San when the build is ready · let Li Si know standup moved to 10 · chase Zhang San · "
    "/remind tomorrow 9:30 standup notes\n"
    "what are you waiting on? · what did you do today? · /brief · /review · no messages from 10pm to 8am\n"
    "Commands work too: /ask /tell /concerns /did /cancel /brief /review /remind /reminders /quiet /pause /resume "
    "/away /back",
}

# What a member (not a principal) can do: they never see /ask or /tell.
_HELP_MEMBER = {
    "zh": "我可以帮你：\n"
    "在等我回复什么？（/concerns） · 你今天做了什么？（/did） · 提醒我1小时后交周报（/remind 1h …） · /reminders\n"
    "晚上10点到早上8点别打扰我（/quiet 22:00-08:00） · 暂停3天（/pause 3d） · 恢复（/resume）\n"
    "我请假到周五（/away 周五） · 我回来了（/back）\n"
    "回复“稍后 2小时”可以推迟跟进。",
    "en": "I can:\n"
    "what is waiting for my reply? (/concerns) · what did you do today? (/did) · /remind 1h submit the report · "
    "/reminders\n"
    "no messages from 10pm to 8am (/quiet 22:00-08:00) · pause for 3 days (/pause 3d) · /resume\n"
    "I'm on leave until Friday (/away until Friday) · I'm back (/back)\n"
    'Reply "later 2h" to push a follow-up back.',
}
HELP = Catalogue("concern.replies.help", {"principal": _HELP, "member": _HELP_MEMBER})

# "Did you mean …?" when nothing matched: one line, by the intent the words come closest to.
_NOT_UNDERSTOOD = {
    "ask": {"zh": "没看懂；你是想让我去问谁吗？比如“帮我问问张三提测什么时候能给”。",
            "en": 'I didn\'t understand; should I ask someone? e.g. "ask Zhang San when the build is ready".'},
    "tell": {"zh": "没看懂；你是想让我转告谁吗？比如“告诉李四明早10点开会”。",
             "en": 'I didn\'t understand; did you want me to pass something on? e.g. "tell Li Si standup is at 10".'},
    "status": {"zh": "没看懂；你是想知道现在在等谁回复吗？可以问我“现在在等谁？”。",
               "en": 'I didn\'t understand; did you mean "what are you waiting on?"'},
    "did": {"zh": "没看懂；你是想知道我今天做了什么吗？可以问我“你今天做了什么？”。",
            "en": 'I didn\'t understand; did you mean "what did you do today?"'},
    "pause": {"zh": "没看懂；你是想设免打扰吗？比如“晚上10点到早上8点别打扰我”或“这周别打扰我”。",
              "en": 'I didn\'t understand; did you mean quiet hours? e.g. "no messages from 10pm to 8am".'},
}  # fmt: skip
NOT_UNDERSTOOD = Catalogue("concern.replies.not_understood", _NOT_UNDERSTOOD)

# One line per command: what a malformed use of it gets instead of the whole help.
_USAGE = {
    "ask": {
        "zh": "用法：/ask @某人 问题，例如 /ask @zhangsan 提测什么时候能给？",
        "en": "Usage: /ask @someone question, e.g. /ask @zhangsan when is the build ready?",
    },
    "tell": {
        "zh": "用法：/tell @某人 内容，例如 /tell @zhangsan 明早10点开会",
        "en": "Usage: /tell @someone text, e.g. /tell @zhangsan standup at 10",
    },
    "cancel": {
        "zh": "用法：/cancel con_…（编号见 /concerns）",
        "en": "Usage: /cancel con_… (see /concerns for the ids)",
    },
    "quiet": {
        "zh": "用法：/quiet 22:00-08:00（24小时制，开始和结束不同）",
        "en": "Usage: /quiet 22:00-08:00 (24-hour clock, start and end differ)",
    },
    "pause": {
        "zh": "用法：/pause 3d（支持 m 分钟、h 小时、d 天）",
        "en": "Usage: /pause 3d (m minutes, h hours, d days)",
    },
    "later": {"zh": "用法：/later 2h，或回复“稍后 2小时”", "en": 'Usage: /later 2h, or reply "later 2h"'},
    "did": {
        "zh": "用法：/did [24h] [@某人] · /did all 列出全部",
        "en": "Usage: /did [24h] [@someone] · /did all lists everything",
    },
    "remind": {
        "zh": "用法：提醒我1分钟后提交周报、提醒我明天上午10点交周报，或 /remind 10m 内容",
        "en": "Usage: /remind 10m call the vendor, or /remind tomorrow 9:30 standup notes",
    },
    "reminders": {"zh": "用法：/reminders", "en": "Usage: /reminders"},
    "resume": {"zh": "用法：/resume", "en": "Usage: /resume"},
    "brief": {"zh": "用法：/brief，或 /brief all 查看全部", "en": "Usage: /brief, or /brief all for everything"},
    "review": {"zh": "用法：/review", "en": "Usage: /review"},
    "concerns": {"zh": "用法：/concerns", "en": "Usage: /concerns"},
    "start": {"zh": "用法：/start 绑定码", "en": "Usage: /start <bind code>"},
    "bind": {"zh": "用法：绑定 绑定码", "en": "Usage: bind <bind code>"},
    "help": {"zh": "用法：/help", "en": "Usage: /help"},
}
USAGE = Catalogue("concern.replies.usage", _USAGE)

_REPLIES = {
    "not_principal": {
        "zh": "抱歉，只有负责人可以让我去联系别人。",
        "en": "Sorry, only a principal can ask me to contact others.",
    },
    "unknown_person": {"zh": "我不认识“{who}”。", "en": 'I don\'t know "{who}".'},
    "unknown_command": {
        "zh": "没有“{command}”这个命令，发送 /help 查看可用的命令。",
        "en": 'There is no command "{command}"; send /help to see what I can do.',
    },
    "ask_self": {"zh": "这是你自己呀。", "en": "That's you."},
    "nothing_to_snooze": {"zh": "现在没有在等你回复的事项。", "en": "Nothing is waiting for your reply."},
    "policy_updated": {"zh": "好的，{what}", "en": "Done: {what}."},
    "policy_failed": {"zh": "没能更新你的设置：{reason}", "en": "I could not update your settings: {reason}"},
    "sent": {"zh": "已发给{target}：{text}", "en": "Sent to {target}: {text}"},
    "sent_unconfirmed": {
        "zh": "已发给{target}，但没有收到送达确认：{text}",
        "en": "Sent to {target}, but the delivery was not confirmed: {text}",
    },
    "not_told": {"zh": "没能转告{target}：{reason}", "en": "Could not pass it on to {target}: {reason}"},
    "told": {"zh": "已转告{target}：{text}", "en": "Passed on to {target}: {text}"},
    "told_later": {"zh": "{target}{why}，消息将在 {when} 转告。", "en": "{target} {why}; the message goes out {when}."},
    "refused_limit": {"zh": "现在不能再问{target}：{reason}", "en": "I can't ask {target} now: {reason}"},
    "cancelled": {"zh": "好的，已取消。", "en": "Cancelled."},
    "cannot_cancel": {"zh": "没法取消：{reason}", "en": "I can't cancel it: {reason}"},
    "cancel_not_found": {"zh": "没有这个事项", "en": "there is no such question"},
    "cancel_not_yours": {"zh": "只有发起人可以取消", "en": "only the person who asked can cancel it"},
    "cancel_closed": {"zh": "它已经{state}了", "en": "it is already {state}"},
    "snoozed": {"zh": "好的，{until} 之后再提醒你。", "en": "OK, I'll follow up after {until}."},
    "snooze_escalated": {
        "zh": "这件事已经交给{manager}跟进了，不能再往后推；直接回复答案就能结束它。",
        "en": "This is already with {manager}, so it can't wait any longer; reply with the answer to close it.",
    },
    "snooze_escalated_nobody": {
        "zh": "这件事已经升级处理了，不能再往后推；直接回复答案就能结束它。",
        "en": "This has been escalated, so it can't wait any longer; reply with the answer to close it.",
    },
    "snooze_closed": {"zh": "不用推迟了：它已经{state}了。", "en": "Nothing to put off: it is already {state}."},
    "risk_passed_on": {
        "zh": "这件事需要{maker}决定，我已转给{maker}，有结果会告诉你。",
        "en": "This needs {maker}'s decision; I passed it on and will tell you the answer.",
    },
    "nudge_refused": {"zh": "没能催：{why}", "en": "Not nudged: {why}"},
    "bound": {"zh": "绑定成功，你好 {name}！", "en": "You're linked, {name}!"},
    "decision_approved": {"zh": "同意", "en": "Approved"},
    "decision_declined": {"zh": "不同意", "en": "Declined"},
    "bind_failed": {
        "zh": "绑定码无效或已过期，请向管理员要一个新的。",
        "en": "That bind code is invalid or expired; ask an administrator for a new one.",
    },
    "bind_used": {
        "zh": "这个绑定码已经用过了，请向管理员要一个新的。",
        "en": "That bind code was already used; ask an administrator for a new one.",
    },
    "bind_too_many": {
        "zh": "绑定码错误次数太多，请一小时后再试。",
        "en": "Too many wrong bind codes; please try again in an hour.",
    },
    "stranger_help": {
        "zh": "你好，我还不认识你。请向管理员要一个绑定码，然后发给我：/start 绑定码",
        "en": "Hi, I don't know you yet. Ask an administrator for a bind code, then send me: /start <code>",
    },
    "passed_on": {"zh": "已转告{asker}。", "en": "Passed on to {asker}."},
    # A contact the principal confirms before anyone is contacted: the optional LLM's proposal, or the first one
    # through a phrasing they taught (cognitive_core.language.learned).
    "confirm_ask": {"zh": "要我去问{target}：“{text}”吗？", "en": 'Shall I ask {target}: "{text}"?'},
    "confirm_tell": {"zh": "要我告诉{target}：“{text}”吗？", "en": 'Shall I tell {target}: "{text}"?'},
    "confirm_nudge": {"zh": "要我去催一下{target}：“{text}”吗？", "en": 'Shall I nudge {target} about "{text}"?'},
    "confirm_cancel": {
        "zh": "要我不再问{target}：“{text}”吗？",
        "en": 'Shall I drop the question to {target}: "{text}"?',
    },
    "did_you_mean_person": {
        "zh": '我不认识"{who}"，你是指 {names} 吗？',
        "en": 'I don\'t know "{who}"; do you mean {names}?',
    },
    "did_you_mean": {
        "zh": "我不太确定你的意思，是下面哪一个？",
        "en": "I'm not sure what you mean. Is it one of these?",
    },
    "ask_or_tell": {
        "zh": "要我去问{target}（等回复并跟进），还是只转告一声？",
        "en": "Should I ask {target} (and follow up until they answer), or just pass it on?",
    },
    "nudge_which": {
        "zh": "你在等{target}回复的有好几件，催哪一件？",
        "en": "Several questions to {target} are open; which one?",
    },
    "cancel_which": {
        "zh": "你问{target}的有好几件，取消哪一件？",
        "en": "Several questions to {target} are open; which one?",
    },
    "nudge_what": {
        "zh": "现在没有在等{target}回复的事。要问{target}什么？比如“问一下{target}提测什么时候能给”。",
        "en": 'Nothing to {target} is open. What should I ask? e.g. "ask {target} when the build is ready".',
    },
    "nothing_to_cancel": {"zh": "现在没有在问{target}的事。", "en": "No question to {target} is open."},
    "ask_what": {"zh": "要问{target}什么？", "en": "What should I ask {target}?"},
    "tell_what": {"zh": "要告诉{target}什么？", "en": "What should I tell {target}?"},
    "social_thanks": {"zh": "不客气！有事随时叫我。", "en": "You're welcome! Just say if you need anything."},
    "social_ack": {"zh": "好的 👌", "en": "👍"},
    "greeting": {
        "zh": "你好！要我去问谁、转告什么，直接说就行。",
        "en": "Hi! Tell me who to ask or what to pass on, in your own words.",
    },
}
REPLIES = Catalogue("concern.replies", _REPLIES)

# The labels of the ask-or-tell buttons.
ASK_OR_TELL = Catalogue(
    "concern.replies.ask_or_tell",
    {"ask": {"zh": "去问（等回复）", "en": "Ask"}, "tell": {"zh": "只转告", "en": "Just tell"}},
)


# The buttons of a did-you-mean the intent classifier offers (cognitive_core.language.guesses), one per reading.
GUESSES = Catalogue(
    "concern.replies.guesses",
    {
        "status": {"zh": "现在在等谁回复", "en": "What am I waiting on?"},
        "status_of": {"zh": "{target}回复了吗", "en": "Has {target} replied?"},
        "did": {"zh": "你最近替我做了什么", "en": "What did you do for me?"},
        "brief": {"zh": "今天的简报", "en": "Today's brief"},
        "review": {"zh": "本周回顾", "en": "This week's review"},
        "reminders": {"zh": "我的提醒", "en": "My reminders"},
        "help": {"zh": "你能做什么", "en": "What can you do?"},
        "resume": {"zh": "恢复消息", "en": "Resume my messages"},
        "pause": {"zh": "暂停消息", "en": "Pause my messages"},
        "quiet": {"zh": "设免打扰时段", "en": "Set quiet hours"},
        "remind": {"zh": "设个提醒", "en": "Set a reminder"},
        "snooze": {"zh": "推迟跟进", "en": "Put a follow-up off"},
        "ask": {"zh": "去问{target}", "en": "Ask {target}"},
        "tell": {"zh": "转告{target}", "en": "Tell {target}"},
        "nudge": {"zh": "催一下{target}", "en": "Nudge {target}"},
        "cancel": {"zh": "不用问{target}了", "en": "Drop the question to {target}"},
    },
)


def policy_change(patch: dict[str, Any], locale: str, *, tz: ZoneInfo, now: datetime) -> str:
    """What a self-service command changes, as the person reads it (also the action's content preview)."""
    zh = locale == "zh"
    if "quiet_hours" in patch:
        windows = ("、" if zh else ", ").join(f"{w['start']}–{w['end']}" for w in patch["quiet_hours"])
        return f"免打扰时段改为每天 {windows}" if zh else f"quiet hours are now {windows} every day"
    if patch.get("paused_until"):
        local = datetime.fromisoformat(patch["paused_until"]).astimezone(tz)
        weekday = WEEKDAYS[locale if locale in WEEKDAYS else "en"][local.weekday()]
        if zh:
            return f"暂停到 {local:%m-%d %H:%M}（周{weekday}）"
        return f"paused until {weekday} {local:%m-%d %H:%M}"
    return "已恢复消息" if zh else "messages resumed"


def work_change(state: dict[str, Any], locale: str, *, tz: ZoneInfo, now: datetime) -> str:
    """What a person's own away / back changes, as they read it (also the action's content preview)."""
    until = when(datetime.fromisoformat(state["until"]), tz, locale, now=now) if state.get("until") else ""
    return reach.noted(state, locale, until=until)


def to_stranger(template: str) -> str:
    """A reply to someone the bot does not know: it cannot know their language, so both (Chinese first)."""
    return "\n".join(REPLIES.template(template, language) for language in ("zh", "en"))


def reply(template: str, locale: str, **values: str) -> str:
    """A short reactive reply by template name (`help`, `usage:<command>` or a REPLIES key)."""
    if template == "help":
        return HELP.template("principal" if values.get("role") == "principal" else "member", locale)
    if template == "not_understood":
        hint = values.get("hint", "ask")
        return NOT_UNDERSTOOD.template(hint if hint in NOT_UNDERSTOOD else "ask", locale)
    if template.startswith("usage:"):
        command = template.removeprefix("usage:")
        return USAGE.template(command if command in USAGE else "help", locale)
    return REPLIES.text(template, locale, **values)
