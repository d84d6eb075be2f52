"""The console's names for the engine's codes (decision kinds, rules, loop changes, purposes, layers, holds).

Every code an operator sees is read through this catalogue, so the Chinese console shows no enum or rule id;
a code missing here reads as the code in English and is left out in Chinese (`Translator.code`), and the
browser test of every page fails on whatever still slips through.
"""

from __future__ import annotations

from kernel.catalogue import Catalogue

# key: (English, Chinese); the key is "<group>.<code>".
_CODES: dict[str, tuple[str, str]] = {
    # Decision kinds (fact.decisions.DecisionKind)
    "kind.raise_concern": ("raise a loop", "新建事项"),
    "kind.direct_action": ("act", "直接动作"),
    "kind.escalate": ("escalate", "升级"),
    "kind.resolve_concern": ("close with the answer", "得到回复"),
    "kind.cancel_concern": ("cancel", "取消事项"),
    "kind.snooze_concern": ("snooze", "稍后处理"),
    "kind.reply": ("reply", "回复"),
    "kind.ignore": ("ignore", "忽略"),
    # Rules: the head of a rule id (before the first ':')
    "rule.ask": ("asked someone", "代为提问"),
    "rule.tell": ("a message to relay", "代为转告"),
    "rule.remind": ("a reminder", "设置提醒"),
    "rule.snooze": ("snoozed", "稍后再说"),
    "rule.cancel": ("cancelled", "取消"),
    "rule.nudge": ("a nudge", "催一下"),
    "rule.reassign": ("asked someone else", "改问别人"),
    "rule.help": ("help", "帮助"),
    "rule.fallback_help": ("help", "帮助"),
    "rule.greeting": ("a greeting", "问候"),
    "rule.not_understood": ("not understood", "没有理解"),
    "rule.ask_or_tell": ("ask or tell?", "询问还是转告"),
    "rule.concerns": ("open loops asked", "查询待办"),
    "rule.did": ("what was done", "查询做了什么"),
    "rule.brief": ("a brief", "简报"),
    "rule.daily_brief": ("the daily brief", "每日简报"),
    "rule.review": ("a review", "回顾"),
    "rule.weekly_review": ("the weekly review", "每周回顾"),
    "rule.digest": ("a digest", "汇总"),
    "rule.bind_code": ("a bind code", "绑定码"),
    "rule.unknown_sender": ("an unknown sender", "未知发送人"),
    "rule.group_without_mention": ("a group message not for the bot", "群消息未提及机器人"),
    "rule.acknowledgement": ("an acknowledgement", "确认收到"),
    "rule.commitment_in_answer": ("a promise in the answer", "回复中的承诺"),
    "rule.risk_keywords": ("a decision to approve", "需要审批的决定"),
    "rule.self_service": ("their own settings", "自助设置"),
    "rule.llm_proposal": ("the language model's reading", "语言模型的理解"),
    "rule.press": ("a button pressed", "按下按钮"),
    "rule.follow_up_schedule": ("the follow-up schedule", "跟进计划"),
    "rule.escalation": ("the escalation schedule", "升级计划"),
    "rule.reminder": ("a reminder's time", "提醒时间到"),
    "rule.console": ("the console", "控制台操作"),
    "rule.admin_api": ("the admin API", "管理接口"),
    "rule.external_signal": ("an external signal", "外部信号"),
    "rule.answer": ("the answer", "回复"),
    "rule.learned": ("a learned phrasing", "学会的说法"),
    # Learned phrasings (phrasing facts' event)
    "event.phrasing_learned": ("learned a phrasing", "学会了一个说法"),
    "event.phrasing_confirmed": ("confirmed a learned phrasing", "确认了学会的说法"),
    "event.phrasing_removed": ("removed a learned phrasing", "删除了学会的说法"),
    # Loop changes (concern_changed.change)
    "change.raised": ("raised", "新建"),
    "change.question_sent": ("question sent", "问题已发出"),
    "change.follow_up_sent": ("follow-up sent", "跟进已发出"),
    "change.question_failed": ("question not sent", "问题未发出"),
    "change.follow_up_failed": ("follow-up not sent", "跟进未发出"),
    "change.nudge_sent": ("nudge sent", "已催促"),
    "change.nudge_failed": ("nudge not sent", "催促未发出"),
    "change.rescheduled": ("rescheduled", "改期"),
    "change.timer_fired": ("timer fired", "定时器到点"),
    "change.timer_cleared": ("timer cleared", "定时器已清除"),
    "change.delivery_deferred": ("delivery held", "投递暂缓"),
    "change.deliveries_retried": ("held deliveries retried", "暂缓的投递已重试"),
    "change.calendar_unavailable": ("calendar unreadable: judged free", "日历读不到：按空闲处理"),
    "change.resolved": ("answered", "已回复"),
    "change.cancelled": ("cancelled", "已取消"),
    "change.sandbox_closed": ("sandbox trial closed", "沙盒试用已关闭"),
    "change.expired": ("expired", "已过期"),
    "change.escalated": ("escalated", "已升级"),
    "change.escalating": ("escalating", "升级中"),
    "change.escalation_ended": ("escalation ended", "升级结束"),
    "change.escalation_failed": ("escalation failed", "升级失败"),
    "change.escalation_taken": ("escalation taken", "有人接手"),
    "change.acknowledged": ("acknowledged", "已确认"),
    "change.snoozed": ("snoozed", "稍后再说"),
    "change.stalled": ("stalled", "停滞"),
    "change.undeliverable": ("undeliverable", "无法送达"),
    "change.declined_by_target": ("not theirs to answer", "对方表示不是自己"),
    "change.reminded": ("reminded", "已提醒"),
    "change.reminder_scheduled": ("reminder set", "提醒已设置"),
    "change.reminder_sent": ("reminder sent", "提醒已发出"),
    "change.check_in_scheduled": ("check-in set", "已安排确认"),
    "change.commitment_kept": ("promise kept", "承诺已兑现"),
    "change.commitment_slipped": ("promise slipped", "承诺未按时兑现"),
    "change.commitment_extended": ("promise extended", "承诺已延期"),
    # Person changes (person_changed.change)
    "change.created": ("created", "已创建"),
    "change.updated": ("updated", "已更新"),
    "change.deactivated": ("deactivated", "已停用"),
    "change.policy_changed": ("policy changed", "联系策略已修改"),
    "change.bindings_changed": ("bindings changed", "渠道绑定已修改"),
    "change.binding_unreachable": ("became unreachable", "变为不可联系"),
    # Why an action was queued (concern.queue.Purpose)
    "purpose.question": ("question", "提问"),
    "purpose.follow_up": ("follow-up", "跟进"),
    "purpose.nudge": ("nudge", "催促"),
    "purpose.escalation": ("escalation", "升级"),
    "purpose.reminder": ("reminder", "提醒"),
    "purpose.backflow": ("answer passed back", "回复转达"),
    "purpose.outcome": ("how the loop ended", "事项结果通知"),
    "purpose.tell": ("relayed message", "转告"),
    "purpose.policy": ("policy confirmation", "策略确认"),
    "purpose.digest": ("digest", "汇总"),
    "purpose.reply": ("reply", "回复"),
    "purpose.brief": ("brief", "简报"),
    "purpose.notice": ("notice", "通知"),
    "purpose.escalate": ("escalation", "升级"),
    # SPEC §3.5 held_by
    "held.quiet_hours": ("quiet hours", "免打扰时段"),
    "held.pause": ("paused", "已暂停消息"),
    "held.cap": ("today's limit reached", "已达今日上限"),
    "held.away": ("away", "不在"),
    "held.busy": ("busy", "忙碌"),
    "held.retry": ("retried later", "稍后重试"),
    # The layers' blocked_by codes (SPEC §4.2) and channel errors, as a short label
    "code.L1:quiet_hours": ("L1 quiet hours", "L1 免打扰"),
    "code.L1:daily_cap": ("L1 daily cap", "L1 每日上限"),
    "code.L1:proactive_disabled": ("L1 no proactive messages", "L1 不接收主动消息"),
    "code.L1:paused": ("L1 paused", "L1 暂停"),
    "code.L2:global_concern_limit": ("L2 too many open loops", "L2 待办总数上限"),
    "code.L2:person_concern_limit": ("L2 too many loops for them", "L2 个人待办上限"),
    "code.L2:follow_up_interval": ("L2 not due yet", "L2 未到跟进时间"),
    "code.L3:concern_contact_limit": ("L3 contacted twice today", "L3 24小时内已联系两次"),
    "code.L4:cooldown": ("L4 cooldown", "L4 冷却中"),
    "code.no_binding": ("no channel", "无可用渠道"),
    "code.unreachable": ("unreachable", "不可联系"),
    "code.timeout": ("timed out", "超时"),
    "code.platform_error": ("platform error", "平台错误"),
    "code.interrupted": ("interrupted", "中断"),
    "code.paced": ("paced", "限速排队"),
    "code.possibly_delivered": ("possibly delivered", "可能已送达"),
    "code.off": ("off", "关闭"),
    "code.llm": ("Language model", "语言模型"),
}
CODES = Catalogue.columns("app.console.vocabulary", ("en", "zh"), _CODES)


def name(group: str, code: str | None, lang: str) -> str:
    """A code's name for a reader: catalogued, else the code in English and nothing in Chinese."""
    key = f"{group}.{code}"
    if key in CODES:
        return CODES.text(key, lang)
    return "" if lang == "zh" or not code else code
