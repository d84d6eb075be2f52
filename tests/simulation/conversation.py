"""Invariants on the words of the conversation (issue 21 item 5), with the markers the actors leave.

Principals' questions carry a marker unique per simulation (`问题12：`, `Q12:`). For each question asked in chat the
words forwarded to the recipient (the loop's question: the bot's frame is not part of it) must be addressed to
them: no 我 / I / me / my of the principal left unresolved (我们 / we stay) and no filler of the lifted set. A
question asked with a pair from the promises corpus marked as information (`明天的会几点开始？` → `下午三点`) and
answered with that pair's answer must never open a commitment.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tests.unit.cognitive_core.test_promises_judged import INFORMATION

if TYPE_CHECKING:
    from concern.models import Concern

_MARKER = re.compile(r"(?:问题|Q)(\d+)[：:]")
_ZH_ME = re.compile(r"我(?!们)")
_EN_ME = re.compile(r"\b(?:I|me|my|mine|myself)\b")
_ZH_FILLER = re.compile(r"那个|急死了|哈哈|嗯|呗|啊")
_EN_FILLER = re.compile(r"\b(?:lol|haha|um|uh|pls|plz)\b", re.I)
INFORMATION_PAIRS = tuple(INFORMATION)


def marker(text: str) -> str | None:
    """The question's marker (`12`), or None for words no actor marked."""
    found = _MARKER.search(text)
    return found.group(1) if found else None


class ConversationChecks:
    """What the actors asked in chat and answered as information, and the checks on what came of it."""

    def __init__(self) -> None:
        self.asked_in_chat: set[str] = set()  # markers of questions a principal typed to the bot
        self.information: dict[str, str] = {}  # marker → the answer the corpus marks as information

    def violations(self, concerns: list[Concern]) -> list[str]:
        """Forwarded words with the principal's 我 / me or a filler; a commitment opened by information."""
        found = []
        by_id = {c.concern_id: c for c in concerns}
        for c in concerns:
            mark = marker(c.question)
            if mark is None:
                continue
            if c.kind == "question" and mark in self.asked_in_chat:
                words = _MARKER.sub("", c.question, count=1)
                left = _ZH_ME.findall(words) + _EN_ME.findall(words) + _ZH_FILLER.findall(words)
                left += _EN_FILLER.findall(words)
                if left:
                    found.append(f"{c.concern_id} forwards {left} unresolved: {c.question!r}")
            if c.kind == "commitment" and mark in self.information and self._answered_with_it(by_id.get(c.parent_id)):
                found.append(f"{c.concern_id}: a commitment opened by information {self.information[mark]!r}")
        return found

    def _answered_with_it(self, question: Concern | None) -> bool:
        """Whether the question was answered with its pair's information; an actor may have answered it otherwise
        (a reply meant for a question the person never saw comes to the one they did), and a promise then opens a
        commitment rightly."""
        if question is None or not question.answer:
            return True  # nothing to tell it by: held to the rule
        information = self.information.get(marker(question.question) or "", "")
        return information in question.answer
