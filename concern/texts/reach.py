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
    },
)


def render(key: str, locale: str, **values: str) -> str:
    """One text in the reader's locale."""
    return TEXTS.text(key, locale, **values)
