"""Which buttons each actionable message carries, with their labels in the addressee's language; and the buttons
as the core reads and claims them when one is pressed (the action layer keeps the records).

| message                         | to                 | buttons                            |
|---------------------------------|--------------------|------------------------------------|
| question and follow-up          | the person asked   | Later 2h · Tomorrow · Not me       |
| decision request (risk routing) | the decision maker | Approve · Decline                  |
| confirmation a question went out| the originator     | Nudge now · Cancel                 |
| "not me"                        | the originator     | Cancel · Ask someone else          |
| question held: the person away  | the originator     | Ask <stand-in> · Wait · Cancel     |
| escalation                      | the manager        | I'll handle it · Remind them       |
| commitment check-in             | the person         | Done · 2 more hours                |
| the LLM's proposal              | the principal      | Confirm · Cancel                   |
| reminder                        | its person         | Done · Later 1h                    |

A proactive message to anyone other than whoever asked (a question and its follow-ups, a check-in, an escalation, a
message passed on) also carries Why this? · Too many (`for_recipient`), each on its own request key.
"""

from __future__ import annotations

from typing import Any

from action import buttons
from action.buttons import Choice
from action.models import MAX_BUTTONS, ButtonRow, ButtonSpec
from kernel.catalogue import Catalogue
from kernel.context import UnitOfWork

_LABELS: dict[str, dict[str, str]] = {
    "later": {"zh": "稍后 2小时", "en": "Later 2h"},
    "tomorrow": {"zh": "明天再说", "en": "Tomorrow"},
    "not_me": {"zh": "不是我", "en": "Not me"},
    "approve": {"zh": "同意", "en": "Approve"},
    "decline": {"zh": "不同意", "en": "Decline"},
    "nudge": {"zh": "催一下", "en": "Nudge now"},
    "cancel": {"zh": "取消", "en": "Cancel"},
    "reassign": {"zh": "问别人", "en": "Ask someone else"},
    "handle": {"zh": "我来处理", "en": "I'll handle it"},
    "remind": {"zh": "提醒他", "en": "Remind them"},
    "done": {"zh": "已完成", "en": "Done"},
    "extend": {"zh": "再给我 2 小时", "en": "2 more hours"},
    "llm_confirm": {"zh": "确认", "en": "Confirm"},
    "llm_cancel": {"zh": "取消", "en": "Cancel"},
    "remind_later": {"zh": "稍后 1小时", "en": "Later 1h"},
    "cancel_reminder": {"zh": "取消这个提醒", "en": "Cancel this reminder"},
    "why": {"zh": "为什么收到这条？", "en": "Why this?"},
    "fewer": {"zh": "消息太多", "en": "Too many"},
}
LABELS = Catalogue("concern.buttons", _LABELS)
# Each message's buttons: (verb, args, style).
PER_MESSAGE = MAX_BUTTONS  # the most buttons one message carries, for the layers that may not read action

SETS: dict[str, tuple[tuple[str, dict[str, Any], str], ...]] = {
    "question": (("later", {"hours": 2}, "default"), ("tomorrow", {}, "default"), ("not_me", {}, "default")),
    "decision": (("approve", {}, "primary"), ("decline", {}, "danger")),
    "confirmation": (("nudge", {}, "primary"), ("cancel", {}, "danger")),
    "not_me": (("cancel", {}, "danger"), ("reassign", {}, "primary")),
    "escalation": (("handle", {}, "primary"), ("remind", {}, "default")),
    "check_in": (("done", {}, "primary"), ("extend", {"hours": 2}, "default")),
    "llm_proposal": (("llm_confirm", {}, "primary"), ("llm_cancel", {}, "danger")),
    "reminder": (("done", {}, "primary"), ("remind_later", {"hours": 1}, "default")),
    "reminder_set": (("cancel_reminder", {}, "danger"),),
}
# The recipient's own two, after a message's buttons: why it came, and fewer of them.
RECIPIENT: tuple[tuple[str, dict[str, Any], str], ...] = (("why", {}, "default"), ("fewer", {}, "default"))


def label(verb: str, locale: str) -> str:
    """A button's label in the reader's language (the deployment's default locale when the language has none)."""
    return LABELS.text(verb, locale)


def for_message(
    uow: UnitOfWork, *, kind: str, request_key: str, addressee_id: str, locale: str, concern_id: str | None
) -> list[ButtonSpec]:
    """Mint the buttons of one message of `kind` (a key of SETS), pressable by `addressee_id` only."""
    choices = [Choice(verb, label(verb, locale), args, style) for verb, args, style in SETS[kind]]
    return buttons.mint(uow, request_key=request_key, addressee_id=addressee_id, choices=choices, concern_id=concern_id)


def for_recipient(
    uow: UnitOfWork, *, request_key: str, addressee_id: str, locale: str, concern_id: str | None, about: dict[str, Any]
) -> list[ButtonSpec]:
    """Why this? · Too many under the message `request_key`: each on its own request key, so a press spends neither
    the message's buttons nor the other; `about` (the message's kind, its decision) is kept in their args."""
    specs: list[ButtonSpec] = []
    for verb, _, style in RECIPIENT:
        choice = Choice(verb, label(verb, locale), {"message": request_key, **about}, style)
        key = f"{request_key}#{verb}"
        specs += buttons.mint(uow, request_key=key, addressee_id=addressee_id, choices=[choice], concern_id=concern_id)
    return specs


def for_proposal(
    uow: UnitOfWork, *, request_key: str, addressee_id: str, locale: str, decision_id: str
) -> list[ButtonSpec]:
    """Confirm · Cancel under an LLM proposal; both name the decision that holds the proposal."""
    args = {"decision_id": decision_id}
    choices = [Choice(verb, label(verb, locale), args, style) for verb, _, style in SETS["llm_proposal"]]
    return buttons.mint(uow, request_key=request_key, addressee_id=addressee_id, choices=choices)


def choices(
    uow: UnitOfWork, *, request_key: str, addressee_id: str, options: list[tuple[str, str, dict[str, Any]]]
) -> list[ButtonSpec]:
    """Buttons for a question the bot asks back ("did you mean …?"): (verb, label, args) each, labels cut to fit."""
    picks = [_drawn(verb, text, args, "default", at) for at, (verb, text, args) in enumerate(options)]
    return buttons.mint(uow, request_key=request_key, addressee_id=addressee_id, choices=picks)


def styled(
    uow: UnitOfWork,
    *,
    request_key: str,
    addressee_id: str,
    concern_id: str,
    options: list[tuple[str, str, dict[str, Any], str]],
) -> list[ButtonSpec]:
    """A loop's buttons whose labels name someone (`改问李四`): (verb, label, args, style) each, cut to fit."""
    picks = [_drawn(verb, text, args, style, at) for at, (verb, text, args, style) in enumerate(options)]
    return buttons.mint(uow, request_key=request_key, addressee_id=addressee_id, choices=picks, concern_id=concern_id)


def _drawn(verb: str, text: str, args: dict[str, Any], style: str, at: int) -> Choice:
    """A button whose label is its own (not its verb's): label, style and place kept in its args, so a press that
    changed nothing shows it again as it was drawn (`labelled`)."""
    label = text if len(text) <= 40 else text[:39] + "…"
    return Choice(verb, label, {**args, "label": label, "style": style, "at": at}, style)


def shown_again(rows: list[Any], locale: str) -> list[ButtonSpec]:
    """A message's existing buttons (rows of action.models.ButtonRow), labelled and in their set's order."""
    recipient = tuple(v for v, _, _ in RECIPIENT)
    verbs = {row.verb for row in rows} - set(recipient)
    order = next((tuple(v for v, _, _ in s) for s in SETS.values() if {v for v, _, _ in s} == verbs), ()) + recipient
    ranked = sorted(rows, key=lambda row: order.index(row.verb) if row.verb in order else len(order))
    styles = {verb: style for s in (*SETS.values(), RECIPIENT) for verb, _, style in s}
    return [ButtonSpec(label=label(r.verb, locale), token=r.token, style=styles.get(r.verb, "default")) for r in ranked]


def numbered(
    uow: UnitOfWork, *, key: str, addressee_id: str, items: list[tuple[str, str | None, list]]
) -> list[ButtonSpec]:
    """Buttons of a message's numbered items (a brief): (item key, its loop, [(verb, label, args, style)]) each,
    one press per item (its own request key); the label a button was minted with is kept with it."""
    specs: list[ButtonSpec] = []
    for item_key, concern_id, verbs in items:
        picks = [
            Choice(verb, label, {"label": label, "style": style, "group": item_key, **args}, style)
            for verb, label, args, style in verbs
        ]
        minted = buttons.mint(
            uow, request_key=f"{key}#{item_key}", addressee_id=addressee_id, choices=picks, concern_id=concern_id
        )
        specs += [spec.model_copy(update={"group": item_key}) for spec in minted]
    return specs


def get(uow: UnitOfWork, *, token: str) -> ButtonRow | None:
    """The button a token names, or None."""
    return buttons.get(uow, token=token)


def siblings(uow: UnitOfWork, *, button: ButtonRow) -> list[ButtonRow]:
    """The buttons of the same message (one press per message)."""
    return buttons.siblings(uow, button=button)


def others_on_message(uow: UnitOfWork, *, button: ButtonRow) -> list[ButtonRow]:
    """Other items' buttons on the same message (a brief's), which keep working after this press."""
    return buttons.others_on_message(uow, button=button)


def claim_press(uow: UnitOfWork, *, button: ButtonRow, fact_id: str) -> bool:
    """Mark the message's buttons pressed by `fact_id`; False when another press took it first."""
    return buttons.claim_press(uow, button=button, fact_id=fact_id)


def release(uow: UnitOfWork, *, button: ButtonRow) -> list[ButtonRow]:
    """Make the message's buttons pressable again (the press changed nothing); the rows released."""
    return buttons.release(uow, button=button)


def labelled(rows: list[ButtonRow], locale: str) -> list[ButtonSpec]:
    """Buttons shown again: with the label they were minted with (a brief item's number), else their set's."""
    if not rows or not all(row.args.get("label") for row in rows):
        return shown_again(rows, locale)
    ranked = sorted(rows, key=lambda row: (row.request_key, row.args.get("at", 0)))
    return [_spec(r) for r in ranked]


def _spec(row: ButtonRow) -> ButtonSpec:
    """A minted button as it was drawn: its label, style and item (a numbered message's)."""
    return ButtonSpec(label=row.args["label"], token=row.token, style=row.args.get("style", "default"),
                      group=row.args.get("group"))  # fmt: skip
