"""The words of the `/did` and `/concerns` answers, in zh and en (the reader's language)."""

from __future__ import annotations

from kernel.catalogue import Catalogue

_TEXTS: dict[str, dict[str, str]] = {
    "head_today": {
        "zh": "今天替你联系了 {n} 个{people}：{parts}。",
        "en": "Today I contacted {n} {people} for you: {parts}.",
    },
    "head": {
        "zh": "最近{span}替你联系了 {n} 个{people}：{parts}。",
        "en": "In the last {span} I contacted {n} {people} for you: {parts}.",
    },
    "person": {"zh": "人", "en": "person"},
    "people": {"zh": "人", "en": "people"},
    "nothing_today": {"zh": "今天还没有替你联系过谁。", "en": "I haven't contacted anyone for you today."},
    "nothing": {"zh": "最近{span}没有替你联系过谁。", "en": "I haven't contacted anyone for you in the last {span}."},
    "named_answered": {"zh": "{names}已回复", "en": "{names} answered"},
    "counted_answered": {"zh": "{n} 个人已回复", "en": "{n} answered"},
    "named_promise_due": {"zh": "{names}答应的事到时间了", "en": "{names}'s promise is due"},
    "counted_promise_due": {"zh": "{n} 个人答应的事到时间了", "en": "{n} promises are due"},
    "named_promised": {"zh": "{names}答应了时间", "en": "{names} promised a time"},
    "counted_promised": {"zh": "{n} 个人答应了时间", "en": "{n} promised a time"},
    "named_waiting": {"zh": "{names}还在等", "en": "still waiting on {names}"},
    "counted_waiting": {"zh": "{n} 个人还没回", "en": "{n} still to answer"},
    "named_held": {"zh": "{names}的消息稍后发出", "en": "the message to {names} goes out later"},
    "counted_held": {"zh": "{n} 条消息稍后发出", "en": "{n} messages go out later"},
    "named_escalated": {"zh": "{names}一直没回，已升级", "en": "{names} didn't answer, so it went up a level"},
    "counted_escalated": {"zh": "{n} 个人一直没回，已升级", "en": "{n} didn't answer, so they went up a level"},
    "named_told": {"zh": "给{names}带了话", "en": "passed a message on to {names}"},
    "counted_told": {"zh": "给 {n} 个人带了话", "en": "passed messages on to {n} people"},
    "named_closed": {"zh": "{names}的事已经结束", "en": "{names}'s question is closed"},
    "counted_closed": {"zh": "{n} 件事已经结束", "en": "{n} questions are closed"},
    "named_not_done": {"zh": "没能联系上{names}", "en": "I couldn't reach {names}"},
    "counted_not_done": {"zh": "{n} 个人没能联系上", "en": "I couldn't reach {n} people"},
    "line_answered": {"zh": "· {who}回复了“{about}”：{answer}", "en": "· {who} answered “{about}”: {answer}"},
    "line_promise_due": {
        "zh": "· {who}答应的“{about}”到时间了，已问过进展，还在等",
        "en": "· {who}'s promise on “{about}” is due: I checked in and am waiting",
    },
    "line_promised": {"zh": "· {who}答应{until}前给：“{about}”", "en": "· {who} promised “{about}” by {until}"},
    "line_waiting": {"zh": "· {who}：“{about}”，还在等回复", "en": "· {who}: “{about}”, no answer yet"},
    "line_waiting_followed": {
        "zh": "· {who}：“{about}”，还在等回复（已跟进 {n} 次）",
        "en": "· {who}: “{about}”, no answer yet (followed up {n}×)",
    },
    "line_held": {
        "zh": "· {who}：“{about}”，{who}{note}，{until}发出",
        "en": "· {who}: “{about}”; {who} {note}, so it goes out {until}",
    },
    "line_held_away": {
        "zh": "· {who}：“{about}”，{who}不在，等{who}回来（{until}）再问",
        "en": "· {who}: “{about}”; {who} is away, so I'll ask when they are back ({until})",
    },
    "back_open": {"zh": "回来时间未定", "en": "no return date"},
    "line_escalated": {
        "zh": "· {who}：“{about}”，一直没回，已转给{note}",
        "en": "· {who}: “{about}”, no answer, so I took it to {note}",
    },
    "line_mine": {"zh": "· {note}：{about}", "en": "· {note}: {about}"},
    "head_mine_today": {"zh": "今天我给你发了 {n} {messages}消息：", "en": "Today I sent you {n} {messages}:"},
    "head_mine": {
        "zh": "最近{span}我给你发了 {n} {messages}消息：",
        "en": "In the last {span} I sent you {n} {messages}:",
    },
    "message": {"zh": "条", "en": "message"},
    "messages": {"zh": "条", "en": "messages"},
    "nothing_mine": {"zh": "这段时间我没有给你发过消息。", "en": "I haven't sent you anything in that time."},
    "line_told": {"zh": "· 转告{who}：{about}", "en": "· told {who}: {about}"},
    "line_closed": {"zh": "· {who}：“{about}”，{note}", "en": "· {who}: “{about}”, {note}"},
    "line_not_done": {"zh": "· {who}：“{about}”，{note}", "en": "· {who}: “{about}”; {note}"},
    "via": {"zh": "（{channel}）", "en": " ({channel})"},
    "open_item": {"zh": "{n}. {who}：“{about}”，{state}{next}", "en": "{n}. {who}: “{about}”, {state}{next}"},
    "next_follow_up": {"zh": "，下次跟进 {when}", "en": ", next follow-up {when}"},
    "owed_item": {"zh": "{n}. {asker}问你：“{about}”，{state}", "en": "{n}. {asker} asked you: “{about}”, {state}"},
    "answer_on_its_way": {"zh": "· {who}的答复稍后送到：{answer}", "en": "· {who}'s answer, on its way: {answer}"},
    "nothing_open": {"zh": "现在没有在等的事。", "en": "Nothing is open."},
    "nudge_pick_n": {"zh": "催一下 {n}", "en": "Nudge {n}"},
    "cancel_pick_n": {"zh": "取消 {n}", "en": "Cancel {n}"},
    "more": {"zh": "… 还有 {n} 项，发送 /did all 查看全部", "en": "… and {n} more: send /did all"},
    "more_link": {"zh": "… 还有 {n} 项：{url}", "en": "… and {n} more: {url}"},
}
TEXTS = Catalogue("cognitive_core.did_texts", _TEXTS)


def text(name: str, locale: str, **values: object) -> str:
    """One text of the catalogue in `locale`, its `{fields}` filled (values it does not use are ignored)."""
    return TEXTS.template(name, locale).format_map(values)
