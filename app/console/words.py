"""More of the console's words (the person's day, held deliveries, name search, the sandbox), beside `i18n.WORDS`."""

from __future__ import annotations

from kernel.catalogue import Catalogue

# key: (English, Chinese)
_MORE: dict[str, tuple[str, str]] = {
    "their_day": ("What Deputy did for them today", "今天 Deputy 为其做了什么"),
    "their_day_empty": ("Nothing yet today.", "今天还没有任何动作。"),
    "day_asked": ("asked", "提问"),
    "day_followed_up": ("followed up", "跟进"),
    "day_held": ("held", "暂缓"),
    "day_answered": ("answered", "回复"),
    "day_promised": ("promised", "承诺"),
    "day_told": ("told", "通知"),
    "day_said": ("said", "发来"),
    "day_pressed": ("pressed", "按下"),
    "day_escalated": ("escalated", "升级"),
    "day_not_sent": ("not sent", "未发出"),
    "day_other": ("other", "其他"),
    "held_until": ("Held until {when}: {why}", "暂缓至 {when}：{why}"),
    "held_short": ("held", "暂缓"),
    "read_state": ("Read", "阅读"),
    "read_at": ("read {time}", "已读 {time}"),
    "unread": ("unread", "未读"),
    "urgent_app": ("made urgent in the app", "应用内加急"),
    "urgent_sms": ("made urgent by SMS", "短信加急"),
    "urgent_phone": ("made urgent by a call", "电话加急"),
    "goes_out": ("goes out", "发出时间"),
    "message_text": ("Message", "消息内容"),
    "person_hint": ("Name, alias or id", "姓名、别名或 ID"),
    "no_person_named": (
        "No one is called “{name}”: type a name, an alias or a p_… id.",
        "没有名为“{name}”的人员：请输入姓名、别名或 p_… ID。",
    ),
    "several_named": ("“{name}” matches {names}: pick one.", "“{name}”对应多人：{names}，请选择一位。"),
    "showing_person": ("Showing {name}", "当前人员：{name}"),
    "slot_reachability": ("Reachability", "可联系性"),
    "slot_phrasing": ("How they phrase things", "表达习惯"),
    "more_sections": ("More about them", "更多信息"),
    "invalid_filter": ("This filter is not valid: {field}.", "筛选条件无效：{field}。"),
    "bad_since": ("since", "起始时间"),
    "bad_until": ("until", "截止时间"),
    "bad_action_type": ("type", "类型"),
    "bad_result": ("result", "结果"),
    "bad_fact_type": ("type", "类型"),
    "bad_person_id": ("person", "人员"),
    "nav_menu": ("Menu", "菜单"),
}
MORE = Catalogue.columns("app.console.words", ("en", "zh"), _MORE)
