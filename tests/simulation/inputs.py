"""What simulated people and operators say and do: the texts and requests each step kind produces."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from tests.simulation.conversation import INFORMATION_PAIRS
from tests.simulation.world import PersonSpec
from tests.unit.cognitive_core.corpus import PEOPLE as CORPUS_PEOPLE
from tests.unit.cognitive_core.corpus.en import EN as CORPUS_EN
from tests.unit.cognitive_core.corpus.gist import GIST as CORPUS_GIST
from tests.unit.cognitive_core.corpus.zh import ZH as CORPUS_ZH

ACKS = ("收到", "好的", "ok", "got it", "我看下", "好的👌", "收到！", "OK.")
MALFORMED = ("/quiet 25:00-08:00", "/pause abc", "/cancel", "/ask", "/later soon", "/quiet", "/tell @nobody")
SELF_SERVICE = (
    "/quiet 22:00-07:00",
    "免打扰 23:00-07:00",
    "/pause 1d",
    "暂停 2小时",
    "/resume",
    "恢复",
    "晚上11点到早上7点别打扰我",
    "这周别打扰我",
    "pause for 2 hours",
    "I'm back",
)
AWAY = (
    "/away",
    "/away until Friday",
    "我请假到周五",
    "我这周出差",
    "I'm on leave until Monday",
    "我在休假，下周一回来",
)
BACK = ("我回来了", "/back", "I'm back")
STATUS = (
    "/did",
    "/concerns",
    "在等谁",
    "今天做了什么",
    "/did 24h",
    "/help",
    "现在在等谁回复？",
    "what are you waiting on?",
    "你今天都做了什么？",
    "what did you do today?",
    "/brief",
    "简报",
    "/review",
    "本周回顾",
)
NOTIFICATION_TYPES = ("default", "task_overdue", "weekly_report")
PRIORITIES = ("P0", "P1", "P1", "P2", "P2", "P3")


@dataclass(frozen=True)
class Said:
    """A chat message a person sends: who, on which binding, what, quoting which platform message."""

    person: PersonSpec
    channel: str
    user: str
    text: str
    reply_to: str | None = None


def binding_of(rng: random.Random, person: PersonSpec, channel: str | None = None) -> tuple[str, str]:
    """The (channel, user) a person writes from: `channel` if they are on it, else one of theirs."""
    for b in person.bindings:
        if b.channel == channel:
            return b.channel, b.user
    b = rng.choice(person.bindings)
    return b.channel, b.user


def remind_text(rng: random.Random, person: PersonSpec, n: int) -> tuple[str, str]:
    """(what the person writes, what they want to be reminded of) for a reminder of their own."""
    minutes = rng.choice((1, 5, 30, 90, 600))
    if person.locale == "zh":
        what = f"交报告{n}"
        return rng.choice(
            (f"提醒我{minutes}分钟后{what}", f"/remind {minutes}m {what}", f"提醒我明天上午10点{what}")
        ), what
    what = f"report{n} due"
    return rng.choice((f"/remind {minutes}m {what}", f"/remind tomorrow 9:30 {what}")), what


def question(rng: random.Random, n: int, locale: str) -> str:
    """A question text, unique per simulation (`n`)."""
    if locale == "zh":
        return rng.choice((f"问题{n}：提测什么时候能给？", f"问题{n}：周报写了吗", f"问题{n}：客户的反馈处理了吗？"))
    return rng.choice(
        (f"Q{n}: when is the build ready?", f"Q{n}: did the client reply?", f"Q{n}: status of the report?")
    )


def spoken_question(rng: random.Random, n: int, locale: str) -> tuple[str, str | None]:
    """(a question as a principal types it, with their 我 / my and fillers; the answer, if it is information).

    A third of them come from the promises corpus's information pairs: the reply is that pair's answer.
    """
    if rng.random() < 0.3:
        pairs = [p for p in INFORMATION_PAIRS if bool(_CJK.search(p[0])) == (locale == "zh")]
        asked, said = rng.choice(pairs)
        return (f"问题{n}：{asked}" if locale == "zh" else f"Q{n}: {asked}"), said
    if locale == "zh":
        return rng.choice(
            (
                f"问题{n}：我的报销单批了没啊",
                f"问题{n}：那个方案你看完了吗",
                f"问题{n}：能不能把合同发我一份",
                f"问题{n}：嗯 我们明天几点出发",
            )  # fmt: skip
        ), None
    return rng.choice(
        (f"Q{n}: did you get my email?", f"Q{n}: can you send me the deck pls", f"Q{n}: um is the build green?")
    ), None


def _phrasings(rows: list[tuple], intent: str) -> tuple[str, ...]:
    """The corpus's ways of saying `intent` as templates: its person as `{who}`, its message as `{text}`.

    Only rows that name a person and carry a message with no priority or deadline words of their own.
    """
    words = {name: (name, *aliases) for _, name, aliases in CORPUS_PEOPLE}
    found = []
    for text, kind, person, body, priority, deadline in rows:
        if kind != intent or person is None or not body or priority or deadline or text.count(body) != 1:
            continue
        said = next((w for w in words[person] if text.count(w) == 1 and w not in body), None)
        if said is not None:
            found.append(text.replace(body, "{text}").replace(said, "{who}"))
    return tuple(dict.fromkeys(found))


_CJK = re.compile(r"[\u4e00-\u9fff]")


def _naming(rows: list[tuple], intent: str) -> tuple[str, ...]:
    """The corpus's ways of saying `intent` about one person with no message (a cancel, a nudge), as `{who}`."""
    words = {name: (name, *aliases) for _, name, aliases in CORPUS_PEOPLE}
    found = []
    for text, kind, person, body, *_ in rows:
        said = next((w for w in words.get(person or "", ()) if text.count(w) == 1), None) if kind == intent else None
        if said is not None and body is None and "{" not in text:
            found.append(text.replace(said, "{who}"))
    return tuple(dict.fromkeys(found))


def _plain(rows: list[tuple], intents: tuple[str, ...]) -> tuple[str, ...]:
    """The corpus's status and did phrasings that name nobody (`还有谁没回我`, `what's still outstanding?`)."""
    return tuple(dict.fromkeys(text for text, kind, person, *_ in rows if kind in intents and person is None))


PHRASINGS = {
    ("ask", "zh"): _phrasings(CORPUS_ZH, "ask"),
    ("ask", "en"): _phrasings(CORPUS_EN, "ask"),
    ("tell", "zh"): _phrasings(CORPUS_ZH, "tell"),
    ("tell", "en"): _phrasings(CORPUS_EN, "tell"),
    ("cancel", "zh"): tuple(t for t in _naming([*CORPUS_ZH, *CORPUS_GIST], "cancel") if _CJK.search(t)),
    ("cancel", "en"): tuple(t for t in _naming([*CORPUS_EN, *CORPUS_GIST], "cancel") if not _CJK.search(t)),
}
# Status and "what did you do" in the corpus's everyday words, beside the commands in STATUS.
SPOKEN_STATUS = tuple(
    t for t in _plain([*CORPUS_ZH, *CORPUS_EN, *CORPUS_GIST], ("status", "did")) if not re.search(r"con_\d", t)
)


def cancel_text(rng: random.Random, asker: PersonSpec, target: PersonSpec) -> str:
    """A cancel in the corpus's plain words, naming the person the question went to."""
    who = target.display_name if asker.locale == "zh" else target.aliases[0]
    return rng.choice(PHRASINGS[("cancel", asker.locale)]).format(who=who)


def _natural(rng: random.Random, intent: str, asker: PersonSpec, target: PersonSpec, text: str) -> str:
    """`text` for `target` as the corpus's managers say it (zh names by display name, en by alias)."""
    who = target.display_name if asker.locale == "zh" else target.aliases[0]
    return rng.choice(PHRASINGS[(intent, asker.locale)]).format(who=who, text=text)


def ask_text(rng: random.Random, asker: PersonSpec, target: PersonSpec, text: str) -> str:
    """An ask as a command or, mostly, in the plain words of the corpus."""
    priority = rng.choice(("",) * 4 + PRIORITIES) if rng.random() < 0.5 else ""
    forms = [f"/ask @{target.person_id} {priority + ' ' if priority else ''}{text}"]
    forms += [_natural(rng, "ask", asker, target, text)] * 3
    return rng.choice(forms)


def tell_text(rng: random.Random, asker: PersonSpec, target: PersonSpec, n: int) -> tuple[str, str]:
    """(what the principal says, the relayed text): a command or, mostly, the corpus's plain words."""
    body = f"通知{n}：明早10点开会" if asker.locale == "zh" else f"Note{n}: standup moved to 11"
    forms = [f"/tell @{target.person_id} {body}", *[_natural(rng, "tell", asker, target, body)] * 3]
    return rng.choice(forms), body


def answer(rng: random.Random, n: int, locale: str) -> str:
    """A reply that answers a question."""
    if locale == "zh":
        return rng.choice((f"答复{n}：明天下午", f"答复{n}：已经处理好了", f"答复{n}：周五前给你"))
    return rng.choice((f"Answer{n}: tomorrow afternoon", f"Answer{n}: done already", f"Answer{n}: by Friday"))


def nested(depth: int) -> str:
    """A JSON text nested `depth` levels deep."""
    return "[" * depth + "]" * depth


def hostile_requests(
    rng: random.Random, now_iso: str, principal: str, target: str
) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, request kwargs) of hostile API calls; none of them may answer 5xx or write partially."""
    telegram = {"X-Telegram-Bot-Api-Secret-Token": "sim-hook", "Content-Type": "application/json"}
    deep = '{"update_id": 9, "message": ' + nested(1200) + "}"
    choices = [
        [
            (
                "POST",
                "/v1/concerns",
                {
                    "json": {
                        "originator_id": principal,
                        "target_person_id": target,
                        "question": "远期？",
                        "deadline": "9999-12-31T00:00:00+00:00",
                    }
                },
            ),
            ("GET", "/v1/concerns", {}),
        ],
        [("POST", "/v1/notifications", {"json": {"target_person_id": target, "text": "含\x00空字符"}})],
        [
            (
                "POST",
                "/v1/concerns",
                {"json": {"originator_id": principal, "target_person_id": target, "question": "问\x00题"}},
            )
        ],
        [
            (
                "POST",
                "/v1/signals",
                {
                    "json": {
                        "source": "sim",
                        "signal_type": "x",
                        "external_id": f"nul-{rng.random()}",
                        "person_id": target,
                        "content": {"t": "a\x00b"},
                    }
                },
            )
        ],
        [
            (
                "POST",
                "/v1/signals",
                {
                    "content": '{"source":"sim","signal_type":"x","external_id":"deep","content":{"a":'
                    + nested(900)
                    + "}}",
                    "headers": {"Content-Type": "application/json"},
                },
            )
        ],
        [("POST", "/webhooks/telegram", {"content": deep, "headers": telegram})],
        [
            (
                "POST",
                "/webhooks/feishu",
                {"content": '{"a":' + nested(1200) + "}", "headers": {"Content-Type": "application/json"}},
            )
        ],
        [
            (
                "POST",
                "/webhooks/telegram",
                {
                    "content": json.dumps(
                        {
                            "update_id": rng.randint(10**6, 10**7),
                            "message": {
                                "message_id": 5,
                                "date": 1e20,
                                "chat": {"id": 1, "type": "private"},
                                "from": {"id": 1, "is_bot": False},
                                "text": "hi",
                            },
                        }
                    ),
                    "headers": telegram,
                },
            )
        ],
        [("GET", "/v1/facts", {"params": {"since": "9999-12-31T23:59:59-14:00"}})],
        [("GET", "/v1/actions", {"params": {"since": "0001-01-01T00:00:00+14:00"}})],
    ]
    return rng.choice(choices)
