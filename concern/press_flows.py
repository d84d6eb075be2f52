"""What the buttons on a loop's messages do, beyond what typed commands already do: "Tomorrow", "Not me",
"Ask someone else", and a decision maker's Approve / Decline.

Each returns the outcome the presser reads under the message (the integrator edits the message to show it).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, select, update

from action import buttons
from action.buttons import Choice
from action.models import ButtonRow
from concern import buttons as concern_buttons
from concern import flows, notices, service
from concern.models import ACTIVE_STATES, Concern
from concern.outcomes import Outcome, Unchanged
from concern.texts import messages, replies
from fact.models import Fact
from kernel.context import UnitOfWork
from person import service as persons
from person.rules import next_morning

AWAIT_NAME = "await_name"  # a prompt, not a button: the originator's next message names who to ask instead


def _open(uow: UnitOfWork, concern_id: str | None) -> Concern | None:
    concern = service.get(uow, concern_id=concern_id, lock=True) if concern_id else None
    return concern if concern is not None and concern.state in ACTIVE_STATES else None


def defer_to_morning(uow: UnitOfWork, *, concern_id: str, decision_id: str) -> datetime | None:
    """Move the next follow-up to the target's next local 09:00 (or the end of their quiet hours if later)."""
    concern = _open(uow, concern_id)
    if concern is None or concern.state != "waiting_reply":
        return None
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    until = next_morning(persons.policy_of(target), ZoneInfo(target.timezone), uow.now)
    service.change(uow, concern, change="snoozed", causation_id=decision_id, step_at=until, extra={"until": "morning"})
    return until


def not_me(uow: UnitOfWork, *, concern_id: str, by: str, decision_id: str) -> bool:
    """The person asked says it is not theirs: no more follow-ups to them; the originator chooses what next.

    The loop stays open (it still expires on its own) while the originator decides: Cancel or Ask someone else.
    """
    concern = _open(uow, concern_id)
    if concern is None or by != concern.target_person_id:
        return False
    service.change(
        uow,
        concern,
        change="declined_by_target",
        causation_id=decision_id,
        step_at=uow.now + uow.settings.concern_expire_after,
        extra={"reason": "not_me"},
    )
    originator, target = (
        persons.get_or_404(uow, person_id=concern.originator_id),
        persons.get_or_404(uow, person_id=concern.target_person_id),
    )
    key = f"{concern.concern_id}:not_me"
    notices.notice(
        uow,
        concern,
        to=originator.person_id,
        key="not_me",
        template="not_me",
        target=target.display_name,
        text=concern.question,
        buttons=concern_buttons.for_message(
            uow,
            kind="not_me",
            request_key=key,
            addressee_id=originator.person_id,
            locale=originator.locale,
            concern_id=concern.concern_id,
        ),
    )
    return True


def ask_for_someone_else(uow: UnitOfWork, *, concern_id: str, by: str) -> bool:
    """ "Ask someone else": the originator's next message names the person; remember the question for it."""
    concern = _open(uow, concern_id)
    if concern is None or by != concern.originator_id:
        return False
    buttons.mint(
        uow,
        request_key=f"{concern.concern_id}:{AWAIT_NAME}",
        addressee_id=by,
        choices=[Choice(AWAIT_NAME, AWAIT_NAME)],
        concern_id=concern.concern_id,
    )
    return True


_NOT_ME = (  # built once: it is read for every message of someone asked something
    select(ButtonRow.concern_id, ButtonRow.token, Fact.content)
    .join(Fact, Fact.fact_id == ButtonRow.press_fact_id)
    .where(
        ButtonRow.verb == "not_me", ButtonRow.addressee_id == bindparam("person_id"), ButtonRow.pressed_at.is_not(None)
    )
)


def declined_by(uow: UnitOfWork, *, person_id: str) -> set[str]:
    """The loops this person said are not theirs ("Not me" pressed on a question to them): nothing they write
    afterwards answers those, so a text goes to a question still waiting on them."""
    # A press marks every button of its message pressed; the one pressed is the one whose token the press carries.
    rows = uow.session.execute(_NOT_ME, {"person_id": person_id})
    return {cid for cid, token, press in rows if cid and press.get("token") == token}


def reassign(
    uow: UnitOfWork, *, concern_id: str, by: str, to: str, decision_id: str, origin_channel: str | None
) -> Outcome:
    """Ask `to` the question instead: the old loop is cancelled, a new one raised (Refused: L2 is full)."""
    concern = _open(uow, concern_id)
    if concern is None or by != concern.originator_id:
        return Unchanged("nothing", concern_id=concern_id)
    uow.session.execute(
        update(ButtonRow)
        .where(ButtonRow.request_key == f"{concern_id}:{AWAIT_NAME}", ButtonRow.pressed_at.is_(None))
        .values(pressed_at=uow.now)
    )
    flows.cancel(uow, concern_id=concern_id, by=by, is_admin=False, decision_id=decision_id)
    return flows.raise_(
        uow,
        originator_id=by,
        target_person_id=to,
        question=concern.question,
        priority=concern.priority,
        decision_id=decision_id,
        deadline=concern.deadline,
        origin_channel=origin_channel or concern.origin_channel,
    )


def decide(uow: UnitOfWork, *, concern_id: str, by: str, approve: bool, decision_id: str) -> Concern | None:
    """A decision maker's Approve / Decline: the answer, in the asker's language, resolves the request."""
    concern = _open(uow, concern_id)
    if concern is None or not concern.approval:
        return None
    asker = persons.get_or_404(uow, person_id=concern.originator_id)
    answer = replies.reply("decision_approved" if approve else "decision_declined", asker.locale)
    return flows.resolve(uow, concern_id=concern_id, answer=answer, answered_by=by, decision_id=decision_id)


def when_for(uow: UnitOfWork, *, person_id: str, instant: datetime) -> str:
    """A moment as the person reads it (their language and timezone)."""
    person = persons.get_or_404(uow, person_id=person_id)
    return messages.when(instant, ZoneInfo(person.timezone), person.locale, now=uow.now)
