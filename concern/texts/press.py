"""What a person reads after pressing a button: the toast at once, then the outcome under the message (zh / en)."""

from __future__ import annotations

from kernel.catalogue import Catalogue

_TEXTS: dict[str, dict[str, str]] = {
    # Toasts: the cheap checks made while the platform waits (Feishu: 3 s).
    "received": {"zh": "收到", "en": "Got it"},
    "not_yours": {"zh": "这个按钮不是给你的", "en": "This button is not for you"},
    "closed": {"zh": "已结束", "en": "already closed"},
    "escalated": {
        "zh": "这件事已经升级处理了，不能再往后推；直接回复答案就能结束它",
        "en": "This has been escalated, so it can't wait any longer; reply with the answer to close it",
    },
    "used": {"zh": "已经处理过了", "en": "Already done"},
    "unknown": {"zh": "这个按钮已失效", "en": "This button no longer works"},
    # Outcomes, added under the message once the press is processed.
    "later": {"zh": "已推迟到 {until}", "en": "Put off until {until}"},
    "tomorrow": {"zh": "好的，{until} 再提醒你", "en": "OK, I'll come back to you {until}"},
    "not_me": {"zh": "好的，已告诉{asker}不是你负责的", "en": "OK, I told {asker} it isn't yours"},
    "cancelled": {"zh": "已取消，不会再联系{target}", "en": "Cancelled; {target} won't be contacted again"},
    "reassign": {
        "zh": "要改问谁？直接回复名字即可，例如“李四”。",
        "en": 'Who should I ask instead? Just reply with a name, e.g. "Li Si".',
    },
    "wait_back": {"zh": "好的，等{target}回来再问", "en": "OK, I'll ask {target} when they are back"},
    "decided": {"zh": "已把你的决定告诉{asker}：{answer}", "en": "I told {asker} your decision: {answer}"},
    "done": {"zh": "好的，已告诉{asker}", "en": "OK, I told {asker}"},
    "extended": {"zh": "好的，{until} 再问你", "en": "OK, I'll check back {until}"},
    "nothing": {"zh": "已结束", "en": "already closed"},
    "llm_confirmed": {"zh": "好的，这就去办", "en": "OK, on it"},
    "llm_cancelled": {"zh": "好的，不发了", "en": "OK, I won't send it"},
    "llm_stale": {"zh": "现在办不了了，请重新说一遍", "en": "I can't do that any more; please ask again"},
    "picked_ask": {"zh": "好的，去问{target}", "en": "OK, asking {target}"},
    "picked_tell": {"zh": "好的，转告{target}", "en": "OK, telling {target}"},
    "picked": {"zh": "好的", "en": "OK"},
}
TEXTS = Catalogue("concern.press_texts", _TEXTS)


def press_text(name: str, locale: str, **values: str) -> str:
    """One press text in the reader's language (the deployment's default locale when the language has none)."""
    return TEXTS.text(name, locale, **values)
