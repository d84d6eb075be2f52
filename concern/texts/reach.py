"""What the originator reads when the reachability model holds their question (away, on leave), zh / en."""

from __future__ import annotations

from kernel.catalogue import Catalogue

TEXTS = Catalogue.columns(
    "concern.reach",
    ("en", "zh"),
    {
        "held_away": (
            "{target} is away until {until}: I'll ask “{text}” when they are back.",
            "{target}不在，{until} 回来：等{target}回来再问“{text}”。",
        ),
        "held_leave": (
            "{target} is on leave until {until}: I'll ask “{text}” when they are back.",
            "{target}请假到 {until}：等{target}回来再问“{text}”。",
        ),
        "held_open": (
            "{target} is away with no return date yet: “{text}” waits until they are back (it stays in your brief).",
            "{target}不在，回来时间未定：“{text}”等{target}回来再问（每日简报里会列出）。",
        ),
        "stand_in": ("{stand_in} stands in for {target}.", "{stand_in}代理{target}的工作。"),
        "tell_held": (
            "{target} is away until {until}: I'll pass your message on when they are back.",
            "{target}不在，{until} 回来：等{target}回来再转告。",
        ),
        "tell_held_open": (
            "{target} is away with no return date yet: I'll pass your message on when they are back.",
            "{target}不在，回来时间未定：等{target}回来再转告。",
        ),
        "button_stand_in": ("Ask {stand_in} instead", "改问{stand_in}"),
        "button_wait": ("Wait for {target}", "等{target}回来"),
        "button_cancel": ("Cancel", "取消"),
        # What the person reads when they tell Deputy they are away or back (`/away`, `我请假到周五`, `我回来了`).
        "noted_away": (
            "noted: you're away until {until}. Questions for you wait until then, and whoever asked is told.",
            "记下了：你{until}前不在。这期间别人要问你的事先等着，我会告诉提问的人。",
        ),
        "noted_leave": (
            "noted: you're on leave until {until}. Questions for you wait until then, and whoever asked is told.",
            "记下了：你请假到 {until}。这期间别人要问你的事先等着，我会告诉提问的人。",
        ),
        "noted_open": (
            "noted: you're away, no return date. Questions for you wait; say “I'm back” (or /back) when you are.",
            "记下了：你不在，回来时间未定。别人要问你的事先等着；回来时跟我说“我回来了”（或 /back）。",
        ),
        "noted_back": (
            "welcome back: what waited for you comes now, one at a time.",
            "欢迎回来：等你的问题现在会陆续发给你，一条一条来。",
        ),
    },
)


def render(key: str, locale: str, **values: str) -> str:
    """One text in the reader's locale."""
    return TEXTS.text(key, locale, **values)


def noted(state: dict, locale: str, *, until: str) -> str:
    """What the person reads once their own away / on leave / back is recorded (`until` already in their clock)."""
    if state.get("status", "available") == "available":
        return render("noted_back", locale)
    if not state.get("until"):
        return render("noted_open", locale)
    return render("noted_leave" if state["status"] == "on_leave" else "noted_away", locale, until=until)
