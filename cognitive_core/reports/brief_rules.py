"""The daily brief's layout as a pure function: items grouped in sections, the most important first, short.

| section   | what                                                            | one-tap actions  |
|-----------|-----------------------------------------------------------------|------------------|
| attention | escalations (and who acknowledged), deliveries held or failed   | nudge · cancel   |
| answers   | answers received since the last brief                           |                  |
| due       | promises due today, and slipped ones                            | +2h · cancel     |
| waiting   | who, the question, how long, follow-ups, the next step and when | nudge · cancel   |
| owed      | questions waiting on the reader                                 |                  |
| signals   | external signals no route handles, and those routed to the brief|                  |
| people    | who asked for fewer messages, and what changed for them         |                  |
"""

from __future__ import annotations

from dataclasses import dataclass

from cognitive_core.reports.brief_texts import text

SECTIONS = ("attention", "answers", "due", "waiting", "owed", "signals", "people")  # the order a reader sees them
RANK = {"attention": 0, "due": 1, "answers": 2, "waiting": 3, "owed": 4, "signals": 5, "people": 6}  # kept when cut
MAX_ITEMS = 10  # one screen; the rest is "… and N more"
MAX_BUTTONS = 6  # a request carries at most six buttons


@dataclass(frozen=True)
class Item:
    """One line of the brief: its section, its text, its order there, and the buttons it may carry."""

    section: str
    line: str
    order: float = 0  # lower first within the section (and among equally important items)
    concern_id: str | None = None
    verbs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Layout:
    """The brief as sent: its text, the numbered items that carry buttons, and how many items were left out."""

    text: str
    actions: tuple[tuple[int, str, tuple[str, ...]], ...]
    hidden: int


def layout(items: list[Item], *, locale: str, title: str, everything: bool = False, link: str | None = None) -> Layout:
    """Group `items` under their sections; beyond MAX_ITEMS keep the most important and say how many more."""
    ranked = sorted(items, key=lambda i: (RANK[i.section], i.order))
    shown = ranked if everything else ranked[:MAX_ITEMS]
    hidden = len(items) - len(shown)
    lines, actions, buttons = [title], [], 0
    for section in SECTIONS:
        group = sorted((i for i in shown if i.section == section), key=lambda i: i.order)
        if not group:
            continue
        lines += ["", text(section, locale, n=sum(1 for i in items if i.section == section))]
        for item in group:
            mark = ""
            if item.verbs and item.concern_id and buttons + len(item.verbs) <= MAX_BUTTONS:
                number = len(actions) + 1
                actions.append((number, item.concern_id, item.verbs))
                buttons += len(item.verbs)
                mark = f"[{number}] "
            lines.append(f"• {mark}{item.line}")
    if hidden:
        lines += ["", text("more_link", locale, n=hidden, url=link) if link else text("more", locale, n=hidden)]
    return Layout(text="\n".join(lines), actions=tuple(actions), hidden=hidden)


def clip(value: str, limit: int = 60) -> str:
    """A question or answer on one short line."""
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
