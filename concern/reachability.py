"""What the reachability model reads about one person, gathered in one read (no writes), and its answer.

The pure model is `person.reachability.rules`; this collects its inputs: the person's policy, work state and
stand-in, their reachable channels (the preferred one first), today's proactive contacts (L1's cap, from the action
ledger), the rhythm of their own answers (resolved loops of the last weeks) and, with a calendar, their busy time
from the process's copy (`person.calendar`: a person not read yet raises CalendarNeeded, read outside, try again).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action import ledger
from concern import buttons as concern_buttons
from concern import outbound, service
from concern.models import Concern
from concern.texts import messages
from concern.texts import reach as texts
from kernel import channel_names
from kernel.context import UnitOfWork
from person import service as persons
from person import work_state
from person.calendar import BusyRead
from person.models import Person
from person.reachability.learning import LOOKBACK, Answered, Rhythm, learn
from person.reachability.models import LastContact, Reach, Situation
from person.reachability.rules import reach
from person.rules import local_day_bounds


@dataclass(frozen=True)
class Answer:
    """The model's answer about a person, with what it rests on."""

    person: Person
    tz: ZoneInfo
    reach: Reach
    rhythm: Rhythm
    calendar: BusyRead | None = None  # None: no calendar is read for this person


def rhythm_of(uow: UnitOfWork, *, person_id: str, tz: ZoneInfo, now: datetime) -> Rhythm:
    """The person's answering rhythm: their own answers to loops resolved in the last four weeks."""
    stmt = select(Concern.created_at, Concern.resolved_at).where(
        Concern.answered_by == person_id,
        Concern.target_person_id == person_id,
        Concern.resolved_at >= now - LOOKBACK,
        Concern.sandbox.is_(False),  # answers typed in the console's sandbox are not the person's rhythm
        Concern.resolved_at <= now,
    )
    answers = [Answered(asked_at=asked, answered_at=done) for asked, done in uow.session.execute(stmt)]
    return learn(answers, tz=tz, now=now)


def channels_of(uow: UnitOfWork, *, person: Person) -> tuple[str, ...]:
    """The person's reachable bound channels, the preferred one first; none for a deactivated person."""
    if not person.active:
        return ()
    found: list[str] = []
    for binding in persons.bindings_of(uow, person_id=person.person_id):
        if binding.reachable and binding.channel not in found:
            found.append(binding.channel)
    preferred = persons.policy_of(person).preferred_channel
    return tuple(sorted(found, key=lambda c: c != preferred))


def busy_of(uow: UnitOfWork, *, person: Person) -> BusyRead | None:
    """The person's busy time from the process's calendar copy; None without a calendar for them.

    Any binding on the calendar's platform will do, reachable or not: the bot need not reach them there.
    """
    if uow.calendar is None or not person.active:
        return None
    bindings = [(b.channel, b.external_user_id) for b in persons.bindings_of(uow, person_id=person.person_id)]
    return uow.calendar.seen(bindings, now=uow.now)


def situation(
    uow: UnitOfWork,
    *,
    person: Person,
    priority: str,
    kind: str,
    rhythm: Rhythm,
    last_contact: LastContact | None = None,
    latest: datetime | None = None,
    calendar: BusyRead | None = None,
) -> Situation:
    """The model's inputs about `person` now."""
    tz, state = ZoneInfo(person.timezone), work_state.read(person.work_state)
    stand_in = persons.get(uow, person_id=state.stand_in_id) if state.stand_in_id else None
    start, end = local_day_bounds(uow.now, tz)
    return Situation(
        now=uow.now,
        priority=priority,
        kind=kind,
        policy=persons.policy_of(person),
        tz=tz,
        channels=channels_of(uow, person=person),
        active=person.active,
        work_state=state,
        stand_in_name=stand_in.display_name if stand_in is not None else None,
        contacts_today=ledger.count_proactive(uow, person_id=person.person_id, start=start, end=end),
        answering_hours=rhythm.hours,
        last_contact=last_contact,
        latest=latest,
        busy=calendar.busy if calendar is not None else (),
        calendar=calendar.state if calendar is not None else "off",
    )


def answer(uow: UnitOfWork, *, person_id: str, priority: str = "P2", kind: str = "follow_up") -> Answer:
    """Now or when, how and why a message of `priority` and `kind` would reach the person; NotFound if unknown."""
    person = persons.get_or_404(uow, person_id=person_id)
    tz = ZoneInfo(person.timezone)
    rhythm = rhythm_of(uow, person_id=person_id, tz=tz, now=uow.now)
    read = busy_of(uow, person=person)  # shown at every priority, though only P2/P3 wait for a meeting
    seen = situation(uow, person=person, priority=priority, kind=kind, rhythm=rhythm, calendar=read)
    return Answer(person=person, tz=tz, reach=reach(seen), rhythm=rhythm, calendar=read)


# The model's reasons that change how a follow-up goes, from the read state of the loop's latest message.
READ_REASONS = ("read_unanswered", "unread_other_channel", "unread_urgent")


@dataclass(frozen=True)
class Means:
    """How a follow-up goes: the channel to try first (None: the usual order) and the urgent modes after sending."""

    channel: str | None = None
    urgent: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def last_contact(concern: Concern) -> LastContact | None:
    """The loop's latest message as the model reads it: its channel, and its read state where the platform says."""
    if not concern.contact_ref:
        return None
    channel = concern.contact_ref.partition(":")[0]
    platform = channel_names.platform(channel)
    return LastContact(channel, read_at=concern.read_at, read_known=platform is not None and platform.read_receipts)


def means(uow: UnitOfWork, concern: Concern) -> Means:
    """For a follow-up of a question: where it goes first and whether it is made urgent (the model's `_means`).

    Read but unanswered: the same channel, never urgent. Unread at P0/P1: the person's other channel, else urgent on
    Feishu when DEPUTY_FEISHU_URGENT allows. Anything else (a platform that says nothing of reads): unchanged.
    """
    target = persons.get(uow, person_id=concern.target_person_id)
    last = last_contact(concern)
    if target is None or not target.active or last is None or not last.read_known:
        return Means()
    tz = ZoneInfo(target.timezone)
    rhythm = rhythm_of(uow, person_id=target.person_id, tz=tz, now=uow.now)
    seen = situation(uow, person=target, priority=concern.priority, kind="follow_up", rhythm=rhythm, last_contact=last)
    modes = tuple(getattr(uow.settings, "feishu_urgent", ()))  # DEPUTY_FEISHU_URGENT, validated by its plugin
    found = reach(replace(seen, urgent_modes=modes))
    codes = [code for code in found.codes() if code in READ_REASONS]
    if not codes:
        return Means(reasons=[code for code in found.codes() if code == "unread"])
    return Means(channel=found.channel, urgent=list(modes) if found.urgent else [], reasons=codes)


# L1's refusals as the hold a loop records (`held_by`).
# The model acts before sending on these; quiet time, a pause and the cap stay L1's to refuse (and record).
_OWN_HOLDS = ("away", "busy")
_MOVES = ("answering_hours", "promised")
RECHECK = timedelta(hours=6)  # an open-ended leave is looked at again this often (a return may lack a date)


def _latest(
    uow: UnitOfWork, concern: Concern, *, kind: str, step_at: datetime, escalation: datetime | None
) -> datetime | None:
    """How late a soft move may place the contact: the deadline, the loop's escalation (the caller's word:
    `concern.schedule.escalates_at`), and for a follow-up half its own wait."""
    bounds = [moment for moment in (concern.deadline, escalation) if moment is not None]
    waits = uow.settings.follow_up_schedule.get(concern.priority, [])
    if kind == "follow_up" and concern.follow_up_count < len(waits):
        bounds.append(step_at + waits[concern.follow_up_count] / 2)
    return min(bounds) if bounds else None


def _waits_for_meetings(concern: Concern) -> bool:
    """P2/P3 wait for a meeting to end, once per step: a step already held as busy goes when that hold ends."""
    return concern.priority in ("P2", "P3") and concern.held_by != "busy"


def _judge(
    uow: UnitOfWork, concern: Concern, *, kind: str, step_at: datetime, escalation: datetime | None = None
) -> tuple[Person, Reach, bool, dict] | None:
    """The model's word on contacting the loop's target now: (target, its finding, moved, the fact's extra), or
    None when the target is gone."""
    target = persons.get(uow, person_id=concern.target_person_id)
    if target is None or not target.active:
        return None
    tz = ZoneInfo(target.timezone)
    rhythm = rhythm_of(uow, person_id=target.person_id, tz=tz, now=uow.now)
    latest = _latest(uow, concern, kind=kind, step_at=step_at, escalation=escalation)
    read = busy_of(uow, person=target) if _waits_for_meetings(concern) else None
    found = reach(
        situation(uow, person=target, priority=concern.priority, kind=kind, rhythm=rhythm, latest=latest, calendar=read)
    )
    moved = found.held_by is None and any(code in _MOVES for code in found.codes())
    extra = {"kind": kind, "reasons": found.codes()}
    if read is not None and read.state == "failed":
        extra["calendar_error"] = read.why
    return target, found, moved, extra


def _holds(found: Reach, moved: bool) -> bool:
    return not found.now and (found.held_by in _OWN_HOLDS or moved)


def would_gate(
    uow: UnitOfWork, concern: Concern, *, kind: str, step_at: datetime, escalation: datetime | None = None
) -> bool:
    """True when `gate` would hold or move the contact; nothing is changed (a bundle asks this of each item)."""
    judged = _judge(uow, concern, kind=kind, step_at=step_at, escalation=escalation)
    return judged is not None and _holds(judged[1], judged[2])


def gate(
    uow: UnitOfWork, concern: Concern, *, kind: str, step_at: datetime, escalation: datetime | None = None
) -> bool:
    """Ask the model before a loop contacts its target; True when it held or moved the contact (its timer is set).
    `escalation`: when the loop escalates (a follow-up's soft move never goes past it).

    Away and busy holds and the soft moves (a promise, the usual answering hour) are the model's own; quiet time,
    a pause and the cap are left to L1, which refuses and records them. A calendar that could not be read lets the
    contact go on, and the loop records why (`calendar_unavailable`).
    """
    judged = _judge(uow, concern, kind=kind, step_at=step_at, escalation=escalation)
    if judged is None:
        return False
    target, found, moved, extra = judged
    if not _holds(found, moved):
        if "calendar_unavailable" in extra["reasons"]:
            service.change(uow, concern, change="calendar_unavailable", supersedes=False, extra=extra)
        return False
    held = found.held_by is not None
    service.change(
        uow,
        concern,
        change="held" if held else "moved",
        step_at=found.next_at or uow.now + RECHECK,
        held_until=found.next_at if held else None,
        held_by=found.held_by,
        extra=extra,
    )
    if found.held_by == "away" and kind in ("question", "follow_up"):  # once per loop (the notice is keyed)
        _tell_held(uow, concern, target=target, until=found.next_at)
    return True


def _tell_held(uow: UnitOfWork, concern: Concern, *, target: Person, until: datetime | None) -> None:
    """Tell the originator, once per loop, that the question waits for the target's return."""
    originator = persons.get(uow, person_id=concern.originator_id)
    if originator is None:
        return
    state, locale = work_state.read(target.work_state), originator.locale
    values = {"target": target.display_name, "text": concern.question}
    if until is None:
        text = texts.render("held_open", locale, **values)
    else:
        when = messages.when(until, ZoneInfo(originator.timezone), locale, now=uow.now)
        text = texts.render("held_leave" if state.status == "on_leave" else "held_away", locale, until=when, **values)
    stand_in = persons.get(uow, person_id=state.stand_in_id) if state.stand_in_id else None
    options = [("cancel", texts.render("button_cancel", locale), {}, "danger")]
    if stand_in is not None and stand_in.active:
        text += " " + texts.render("stand_in", locale, stand_in=stand_in.display_name, target=target.display_name)
        ask = texts.render("button_stand_in", locale, stand_in=stand_in.display_name)
        options.insert(0, ("ask_stand_in", ask, {"person_id": stand_in.person_id}, "primary"))
    wait = texts.render("button_wait", locale, target=target.display_name)
    options.insert(len(options) - 1, ("wait_back", wait, {}, "default"))
    key = f"{concern.concern_id}:held:away"
    buttons = concern_buttons.styled(
        uow, request_key=key, addressee_id=originator.person_id, concern_id=concern.concern_id, options=options
    )
    outbound.notice(uow, concern, to=originator.person_id, text=text, key=key, buttons=buttons)
