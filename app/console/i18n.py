"""The console's words in English and Chinese, and which language a request gets (toggle cookie, Accept-Language)."""

from __future__ import annotations

from typing import Any

from app.console import vocabulary
from app.console.words import MORE
from concern.buttons import LABELS
from concern.texts import reasons
from kernel import channel_names
from kernel.catalogue import Catalogue

LANGS = ("en", "zh")
LANG_COOKIE = "deputy_console_lang"

# key: (English, Chinese)
_WORDS: dict[str, tuple[str, str]] = {
    "app": ("Deputy console", "Deputy 控制台"),
    "overview": ("Overview", "概览"),
    "persons": ("People", "人员"),
    "concerns": ("Open loops", "待办事项"),
    "facts": ("Fact log", "事实日志"),
    "actions": ("Actions", "动作"),
    "sandbox": ("Sandbox", "沙盒"),
    "login": ("Log in", "登录"),
    "logout": ("Log out", "退出"),
    "token": ("Token", "令牌"),
    "login_hint": (
        "Use an admin or viewer token from DEPUTY_ADMIN_TOKENS / DEPUTY_VIEWER_TOKENS.",
        "使用 DEPUTY_ADMIN_TOKENS / DEPUTY_VIEWER_TOKENS 中的管理员或只读令牌。",
    ),
    "login_wrong": ("That token is not configured.", "该令牌无效。"),
    "first_start_hint": (
        "No token is configured yet. Open the one-time admin login link that Deputy printed when it started "
        "(also in var/first-login.txt on its server), then set DEPUTY_ADMIN_TOKENS to log in for good.",
        "尚未配置任何令牌。请打开 Deputy 启动时在终端打印的一次性管理员登录链接（也保存在服务器的 "
        "var/first-login.txt 中），之后设置 DEPUTY_ADMIN_TOKENS 以便长期登录。",
    ),
    "first_login_spent": (
        "This one-time login link was already used, has expired or is not valid. Restart Deputy for a new one, "
        "or set DEPUTY_ADMIN_TOKENS.",
        "该一次性登录链接已被使用、已过期或无效。请重启 Deputy 获取新链接，或设置 DEPUTY_ADMIN_TOKENS。",
    ),
    "login_limited": (
        "Too many failed logins from this address. Try again in {minutes} min; a browser that has logged in here "
        "before can still log in.",
        "此地址登录失败次数过多，请 {minutes} 分钟后再试；曾在此登录过的浏览器仍可登录。",
    ),
    "login_limited_device": (
        "Too many failed logins from this browser. Try again in {minutes} min.",
        "此浏览器登录失败次数过多，请 {minutes} 分钟后再试。",
    ),
    "login_limited_new_devices": (
        "Too many failed logins from browsers new to this console. Try again in {minutes} min; a browser that has "
        "logged in here before can still log in.",
        "来自新浏览器的登录失败次数过多，请 {minutes} 分钟后再试；曾在此登录过的浏览器仍可登录。",
    ),
    "role_admin": ("admin", "管理员"),
    "role_viewer": ("viewer", "只读"),
    "forbidden": ("Not allowed", "无权操作"),
    "forbidden_viewer": ("This token may only look: viewers change nothing.", "该令牌只能查看，不能修改。"),
    "forbidden_csrf": (
        "The form expired or did not come from this console. Reload the page and try again.",
        "表单已过期或并非来自本控制台，请刷新页面后重试。",
    ),
    "not_found": ("Not found", "未找到"),
    "back": ("Back", "返回"),
    "today": ("Today", "今天"),
    "what_happened_today": ("What Deputy did today", "今天 Deputy 做了什么"),
    "not_sent_today": ("Not sent today, and why", "今天未发出的消息及原因"),
    "nothing_blocked": ("Nothing was held back or failed today.", "今天没有被拦截或失败的消息。"),
    "open_by_state": ("Open loops by state and kind", "按状态和类型的待办事项"),
    "stuck_held": ("Held and stuck deliveries", "暂缓与卡住的投递"),
    "held_deliveries": ("Held on their loop", "暂缓投递"),
    "overdue_timers": ("Overdue timers", "超时未处理的定时器"),
    "in_flight": ("In flight", "发送中"),
    "none": ("None", "无"),
    "actions_14d": ("Actions, last 14 days", "最近14天的动作"),
    "blocked_by_layer": ("Held back by layer, last 14 days", "最近14天各层拦截"),
    "time_to_answer": ("Time to answer, last 14 days", "最近14天的回复用时"),
    "channel_health": ("Channels", "渠道"),
    "backlog": ("Backlog", "积压"),
    "inbox_pending": ("Signals waiting for the core", "待处理的信号"),
    "inbox_failed": ("Signals set aside", "处理失败的信号"),
    "unhandled_signals": ("Unhandled signals", "未处理的外部信号"),
    "unhandled_hint": (
        "External signals of the last 7 days whose type has no route in DEPUTY_SIGNAL_ROUTES.",
        "最近 7 天内没有在 DEPUTY_SIGNAL_ROUTES 中配置路由的外部信号。",
    ),
    "outbox_ready": ("Actions ready to run", "待执行的动作"),
    "outbox_later": ("Actions waiting for their moment", "等待时机的动作"),
    "outbox_failed": ("Actions set aside", "执行失败的动作"),
    "oldest": ("oldest", "最早"),
    "configured": ("configured", "已配置"),
    "not_configured": ("not configured", "未配置"),
    "dry_run": ("dry run", "演练模式"),
    "reachable": ("reachable", "可联系"),
    "unreachable": ("unreachable", "不可联系"),
    "last_success": ("last success", "最近成功"),
    "last_failure": ("last failure", "最近失败"),
    "sent": ("sent", "已发送"),
    "failed_n": ("failed", "失败"),
    "search": ("Search", "搜索"),
    "search_persons": ("Name or id", "姓名或 ID"),
    "all": ("All", "全部"),
    "name": ("Name", "姓名"),
    "role": ("Role", "角色"),
    "manager": ("Manager", "上级"),
    "channels": ("Channels", "渠道"),
    "cap": ("Daily cap", "每日上限"),
    "quiet_hours": ("Quiet hours", "免打扰时段"),
    "paused": ("Paused", "暂停"),
    "paused_until": ("Paused until", "暂停至"),
    "active": ("Active", "有效"),
    "inactive": ("deactivated", "已停用"),
    "principal": ("principal", "委托人"),
    "member": ("member", "成员"),
    "new_person": ("New person", "新建人员"),
    "create": ("Create", "创建"),
    "save": ("Save", "保存"),
    "saved": ("Saved.", "已保存。"),
    "no_change": ("Nothing changed.", "没有变化。"),
    "fix_errors": ("Nothing was saved: fix the fields marked below.", "未保存：请修改下方标出的字段。"),
    "profile": ("Profile", "资料"),
    "bindings": ("Channel bindings", "渠道绑定"),
    "policy": ("Interaction policy", "联系策略"),
    "recent_facts": ("Recent facts about them", "相关的最近事实"),
    "their_loops": ("Their open loops", "相关的待办事项"),
    "issue_bind_code": ("Issue a bind code", "生成绑定码"),
    "bind_code_shown_once": (
        "Shown once. The person sends {hints} before {expires}.",
        "只显示一次。请在 {expires} 前向机器人发送 {hints}。",
    ),
    "mark_reachable": ("Mark reachable", "标记为可联系"),
    "no_bindings": ("No channel bound yet: issue a bind code.", "尚未绑定任何渠道：请生成绑定码。"),
    "display_name": ("Display name", "显示名称"),
    "aliases": ("Aliases (comma-separated)", "别名（逗号分隔）"),
    "timezone": ("Timezone", "时区"),
    "locale": ("Language", "语言"),
    "person_id": ("Person id", "人员 ID"),
    "channel": ("Channel", "渠道"),
    "external_user_id": ("User id on the channel", "渠道用户 ID"),
    "chat_id": ("Chat id", "会话 ID"),
    "optional": ("optional", "可选"),
    "allow_proactive_ping": ("Allow proactive messages", "允许主动消息"),
    "max_proactive_contacts_per_day": ("Proactive messages per day (0–100)", "每天主动消息上限（0–100）"),
    "preferred_channel": ("Preferred channel", "首选渠道"),
    "follow_up_stretch": ("Follow-up waits ×(1–4)", "跟进间隔倍数（1–4）"),
    "follow_up_stretch_help": (
        "1: the schedule as set; 2: twice as long between follow-ups (the escalation stays where it was)",
        "1：按设定的节奏；2：跟进间隔加倍（升级时间不变）",
    ),
    "quiet_hours_help": ("Local times, e.g. 22:00-08:00, 12:00-13:30", "当地时间，例如 22:00-08:00, 12:00-13:30"),
    "quiet_days": ("Quiet days", "免打扰日"),
    "quiet_days_help": ("ISO weekdays, 1 = Monday … 7 = Sunday, e.g. 6,7", "ISO 星期，1 = 周一 … 7 = 周日，例如 6,7"),
    "paused_until_help": ("In the person's timezone ({tz}); empty: not paused", "按该人员时区（{tz}）；留空表示不暂停"),
    "any": ("any", "任意"),
    "yes": ("yes", "是"),
    "no": ("no", "否"),
    "state": ("State", "状态"),
    "kind": ("Kind", "类型"),
    "priority": ("Priority", "优先级"),
    "person": ("Person", "人员"),
    "filter": ("Filter", "筛选"),
    "question": ("Question", "问题"),
    "originator": ("Asked by", "提问人"),
    "target": ("Waiting on", "等待回复人"),
    "created": ("Created", "创建时间"),
    "next_step": ("Next step", "下一步"),
    "deadline": ("Deadline", "截止时间"),
    "follow_ups": ("Follow-ups", "跟进次数"),
    "escalated_to": ("Escalated to", "升级给"),
    "answer": ("Answer", "回复"),
    "answered_by": ("Answered by", "回复人"),
    "cancel_loop": ("Cancel", "取消"),
    "nudge_now": ("Nudge now", "立即跟进"),
    "confirm_cancel": ("Cancel this loop? The asker is told.", "确定取消？提问人会收到通知。"),
    "cancelled_ok": ("Cancelled; the asker is told.", "已取消，并已通知提问人。"),
    "nudged": ("Nudge: {result}", "跟进：{result}"),
    "timeline": ("Timeline", "时间线"),
    "trace": ("Causal trace", "因果链"),
    "button_presses": ("Button presses", "按钮操作"),
    "no_loops": ("No loop matches.", "没有符合条件的事项。"),
    "no_persons": ("No person matches.", "没有符合条件的人员。"),
    "no_facts": ("No fact matches.", "没有符合条件的事实。"),
    "no_actions": ("No action matches.", "没有符合条件的动作。"),
    "type": ("Type", "类型"),
    "since": ("Since", "起始"),
    "until": ("Until", "截止"),
    "since_help": ("24h, 7d or a date-time", "24h、7d 或日期时间"),
    "text": ("Text", "文本"),
    "live": ("Live", "实时"),
    "more_new": ("More new facts: reload", "还有更多新事实：请刷新"),
    "load_more": ("Load more", "加载更多"),
    "time": ("Time", "时间"),
    "id": ("Id", "ID"),
    "summary": ("Summary", "摘要"),
    "result": ("Result", "结果"),
    "attempts": ("Attempts", "尝试"),
    "why": ("Why", "原因"),
    "caused_by": ("Caused by", "起因"),
    "caused": ("Led to", "导致"),
    "content": ("Content", "内容"),
    "action": ("Action", "动作"),
    "retry_at": ("retry at", "重试时间"),
    "language": ("中文", "English"),
    "count": ("Count", "数量"),
    "median": ("median", "中位数"),
    "to": ("To", "发给"),
    "opened_today": ("Loops opened today", "今天新建的事项"),
    "answered_today": ("Answered today", "今天得到回复"),
    "open": ("open", "进行中"),
    "stuck_hint": (
        "Timers overdue by more than {grace}: is the processor running (DEPUTY_SCHEDULER_ENABLED)?",
        "超时 {grace} 以上的定时器：处理器是否在运行（DEPUTY_SCHEDULER_ENABLED）？",
    ),
    "kind_question": ("question", "提问"),
    "kind_commitment": ("promise", "承诺"),
    "kind_reminder": ("reminder", "提醒"),
    "fact_message_received": ("message", "消息"),
    "fact_external_signal": ("signal", "外部信号"),
    "fact_decision": ("decision", "决策"),
    "fact_concern_changed": ("loop", "事项变化"),
    "fact_action_result": ("action", "动作"),
    "fact_person_changed": ("person", "人员变化"),
    "fact_system": ("system", "系统"),
    "fact_button_pressed": ("button", "按钮"),
    "fact_llm_proposal": ("model reading", "模型理解"),
    "fact_phrasing": ("phrasing", "说法"),
}
WORDS = Catalogue.columns("app.console", ("en", "zh"), _WORDS)


def pick(accept_language: str | None, cookie: str | None) -> str:
    """The toggle's choice when set, else the best of `zh`/`en` in Accept-Language, else English."""
    if cookie in LANGS:
        return cookie
    best, best_q = "en", -1.0
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        lang = tag.strip().lower().split("-")[0]
        if lang in LANGS and q > best_q:
            best, best_q = lang, q
    return best


class Translator:
    """`t("key", **values)` in one language; codes the catalogue lacks come back as they are."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else "en"

    def __call__(self, key: str, **values: Any) -> str:
        table = WORDS if key in WORDS else MORE if key in MORE else None
        if table is None:
            return key
        return table.text(key, self.lang, **values) if values else table.template(key, self.lang)

    def code(self, group: str, code: str | None) -> str:
        """An engine code (`change`, `kind`, `rule`, `purpose`, `held`, `code`) as the operator reads it."""
        if group == "rule":
            code = (code or "").split(":", 1)[0]
        return vocabulary.name(group, code, self.lang)

    def verb(self, verb: str | None) -> str:
        """A pressed button's verb as its label read (`later` → `稍后 2小时`)."""
        return LABELS.text(verb, self.lang) if verb in LABELS else self.code("code", verb)

    def state(self, name: str) -> str:
        """A loop state as the operator reads it."""
        return reasons.state(name, self.lang)

    def result(self, name: str) -> str:
        """An action result as the operator reads it."""
        return reasons.result(name, self.lang)

    def action_type(self, name: str) -> str:
        """An action type as the operator reads it."""
        return reasons.action_type(name, self.lang)

    def channel(self, name: str) -> str:
        """A channel's name."""
        return reasons.channel(name, self.lang)

    def bind_hints(self, code: str) -> str:
        """What to send each installed platform's bot with `code`: `/start C (Telegram) or bind C (Feishu)`."""
        if self.lang == "zh":
            return "或".join(f"{p.hint('zh', code)}（{p.display_name('zh')}）" for p in channel_names.platforms())
        return " or ".join(f"{p.hint('en', code)} ({p.display_name('en')})" for p in channel_names.platforms())

    def other(self) -> str:
        """The language the toggle switches to."""
        return "zh" if self.lang == "en" else "en"
