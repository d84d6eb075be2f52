"""The invariants every step of a simulation must keep, read from the database and the platform's deliveries."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action.models import ActionRow, ButtonRow
from concern import metrics as concern_metrics
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from concern.texts.messages import clip
from fact.models import Fact
from perception.models import InboxEntry
from person.models import InteractionPolicy, Person
from person.rules import is_quiet, local_day_bounds
from tests.simulation.away import AwayTimeline
from tests.simulation.conversation import ConversationChecks
from tests.simulation.factlog import FactLogGuard
from tests.simulation.meetings import placed_past_deadline, placed_past_escalation
from tests.simulation.platform import Delivery
from tests.simulation.politeness import PolitenessFromFacts

if TYPE_CHECKING:
    from tests.simulation.runner import Simulation, Step

TERMINAL_OUTCOMES = {"undeliverable", "expired", "cancelled"}
_ENGLISH = re.compile(r"[A-Za-z]{3,}")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Commands with words the bot itself writes into its texts ("发送 /brief all 查看全部"): taken out before the
# people's own texts are, which could take "/brief" and leave "all".
_BOT_COMMANDS = ("/brief all",)
# Parts of a message that are not language: ids, commands, durations, channel names.
_NOT_WORDS = re.compile(
    r"\b(?:con|act|dec|fact)_[\d_…]+|\bp_[a-z0-9_]+|/[a-z]+(?: all\b)?|@\S+|\b\d+[smhd]\b|Telegram|Feishu|Lark|HH:MM"
)


@dataclass
class State:
    """One consistent read of everything the invariants look at."""

    concerns: list[Concern]
    actions: dict[str, ActionRow]
    outbox: list[OutboxEntry]
    inbox_failed: int
    persons: dict[str, Person]
    stuck: list[Concern]  # the definition deputy_stuck_concerns alerts on (concern.metrics.stuck_clause)


class Invariants:
    """Checks after every step; violations found by actors' oracles are collected here too."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.violations: list[str] = []
        self.seen: dict[str, str] = {}  # with keep_going: every violation once, where it first appeared
        self.user_texts: set[str] = set()
        self.log_guard = FactLogGuard(sim)
        self.from_facts = PolitenessFromFacts(sim)
        self.away = AwayTimeline()
        self.conversation = ConversationChecks()
        self._last_fact_pk = 0
        self._policies: dict[str, list[tuple[datetime, InteractionPolicy]]] = defaultdict(list)
        self._reported_outcome: dict[str, str] = {}
        self._language_checked = 0

    def check(self, *, step: Step | None, final: bool = False) -> None:
        """Run every invariant; stop the simulation with the trace on the first violations."""
        state = self._read()
        self._new_facts()
        for rule in (
            self._active_has_timer,
            self._one_terminal_message,
            self._no_double_delivery,
            self._pending_never_failed,
            self._proactive_limits,
            self._concern_contact_limit,
            self._one_result_fact,
            self._nothing_set_aside,
            self._language,
            self._never_failed_by_own_pacing,
            self._solicited_not_capped,
            self._no_secret_in_logs,
            self._buttons_act_once_for_their_addressee,
            self._one_brief_a_day,
            self._reminders_neither_lost_nor_doubled,
            self._digest_never_holds_urgent,
            self._bundle_never_exceeds_l1,
            self._never_urgent_after_a_read,
            self._politeness_from_facts_alone,
            self._nothing_proactive_while_away,
            self._soft_moves_keep_the_deadline,
            self._soft_moves_keep_the_escalation,
            self._forwarded_words_are_the_readers,
        ):
            if rule.__name__.strip("_") not in self.sim.options.ignore:
                rule(state, final)
        if final:
            self.violations += self.log_guard.unchanged()
        where = f"after step {step.index} ({step.kind})" if step else ("at the end" if final else "while settling")
        if self.sim.options.keep_going:
            for v in self.violations:
                self.seen.setdefault(v, f"{v} [{where}]")
            self.violations = []
            if final and self.seen:
                self.sim.fail(*self.seen.values())
        elif self.violations:
            self.sim.fail(*(f"{v} [{where}]" for v in self.violations))

    # --- reading ------------------------------------------------------------------------------------------------

    def _reader(self):
        return self.sim.replicas["r1"].ctx.reader()

    def _read(self) -> State:
        with self._reader() as uow:
            s = uow.session
            return State(
                concerns=list(s.scalars(select(Concern).order_by(Concern.concern_id))),
                actions={a.action_id: a for a in s.scalars(select(ActionRow))},
                outbox=list(s.scalars(select(OutboxEntry))),
                inbox_failed=len(list(s.scalars(select(InboxEntry).where(InboxEntry.state == "failed")))),
                persons={p.person_id: p for p in s.scalars(select(Person))},
                stuck=concern_metrics.stuck(uow),
            )

    def _new_facts(self) -> None:
        with self._reader() as uow:
            rows = list(uow.session.scalars(select(Fact).where(Fact.pk > self._last_fact_pk).order_by(Fact.pk)))
        for fact in rows:
            self.log_guard.remember(fact)
            self.away.remember(fact)
            self._last_fact_pk = fact.pk
            after = fact.content.get("after") if fact.fact_type == "person_changed" else None
            if isinstance(after, dict) and "interaction_policy" in after:
                policy = InteractionPolicy.model_validate(after["interaction_policy"])
                self._policies[fact.content["person_id"]].append((fact.timestamp, policy))
        self.results = Counter()  # action_id → action_result facts, recounted below
        with self._reader() as uow:
            for content in uow.session.scalars(select(Fact.content).where(Fact.fact_type == "action_result")):
                self.results[content["action_id"]] += 1
            self.concern_facts = list(uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed")))

    def _policies_at(self, person_id: str, at: datetime) -> list[InteractionPolicy]:
        """The policy in force at `at` (both, when it changed at that very instant)."""
        timeline = self._policies[person_id]
        before = [p for t, p in timeline if t < at]
        same = [p for t, p in timeline if t == at]
        return (before[-1:] + same) or same

    def _deliveries(self, state: State) -> list[tuple[Delivery, ActionRow]]:
        return [(d, state.actions[d.action_id]) for d in self.sim.platform.deliveries if d.action_id in state.actions]

    # --- the invariants -------------------------------------------------------------------------------------------

    def _active_has_timer(self, state: State, final: bool) -> None:
        """Every active concern has a timer, a held delivery, or a queued action in flight."""
        for c in state.stuck:
            self.violations.append(f"{c.concern_id} is {c.state} with no timer and no held delivery (stuck)")

    def _one_terminal_message(self, state: State, final: bool) -> None:
        """A loop that ended tells its originator exactly once how it ended."""
        told: dict[str, list[str]] = defaultdict(list)
        for delivery, row in self._deliveries(state):
            for c in state.concerns:
                if row.target_person_id == c.originator_id and any(
                    _terminal_for(part, delivery.text, c.concern_id) for part in _carried(row)
                ):
                    told[c.concern_id].append(delivery.action_id)
        for c in state.concerns:
            if c.kind == "reminder":  # the person's own: Done is theirs, an unanswered one closes quietly by design
                continue
            messages = sorted(set(told[c.concern_id]))
            if len(messages) > 1:
                self.violations.append(
                    f"{c.originator_id} was told {len(messages)} times how {c.concern_id} ended: {messages}"
                )
            if final and c.state not in ACTIVE_STATES and not messages and not c.pending_deliveries:
                tried = [
                    a
                    for a in state.actions.values()
                    if a.target_person_id == c.originator_id
                    and a.result == "failed"
                    and any(_terminal_for(part, "", c.concern_id) for part in _carried(a))
                ]
                if not tried:
                    self.violations.append(f"{c.originator_id} was never told that {c.concern_id} ended ({c.state})")

    def _no_double_delivery(self, state: State, final: bool) -> None:
        """No action reaches a person twice."""
        for action_id, n in Counter(d.action_id for d in self.sim.platform.deliveries).items():
            if n > 1:
                self.violations.append(f"{action_id} was delivered {n} times")

    def _pending_never_failed(self, state: State, final: bool) -> None:
        """A concern never records as failed an action that went out or is still in flight."""
        for fact in self.concern_facts:
            change = fact.content.get("change", "")
            if change in ("undeliverable", "escalation_failed") or change.endswith("_failed"):
                row = state.actions.get(fact.causation_id or "")
                if row is not None and row.result in ("success", "pending"):
                    self.violations.append(
                        f"{fact.content['concern_id']} recorded {change} for {row.action_id}, which is {row.result}"
                    )

    def _proactive_limits(self, state: State, final: bool) -> None:
        """Caps per local day (interrupted ones included), quiet hours except P0, pause, proactive switch."""
        per_day: Counter[tuple[str, datetime]] = Counter()
        for _, row in self._deliveries(state):
            if not row.proactive:
                continue
            person = state.persons[row.target_person_id]
            tz = ZoneInfo(person.timezone)
            solicited = row.action_type == "backflow" or bool(getattr(row, "solicited", False))
            policies = self._policies_at(person.person_id, row.created_at)
            if not policies:
                continue
            at = row.created_at
            if row.priority != "P0" and all(is_quiet(p, tz, at) for p in policies):
                self.violations.append(
                    f"{row.action_id} ({row.action_type}) reached {person.person_id} in quiet time "
                    f"{at.astimezone(tz):%a %H:%M}"
                )
            if all(p.paused_until is not None and at < p.paused_until for p in policies):
                self.violations.append(f"{row.action_id} reached {person.person_id} while paused")
            if solicited:
                continue
            if all(not p.allow_proactive_ping for p in policies):
                self.violations.append(f"{row.action_id} reached {person.person_id}, who allows no proactive contact")
            day = local_day_bounds(at, tz)[0]
            per_day[(person.person_id, day)] += 1
            cap = min(p.max_proactive_contacts_per_day for p in policies)
            if per_day[(person.person_id, day)] > max(p.max_proactive_contacts_per_day for p in policies):
                self.violations.append(
                    f"{person.person_id} got {per_day[(person.person_id, day)]} proactive contacts on "
                    f"{day.astimezone(tz):%m-%d} (cap {cap})"
                )

    def _concern_contact_limit(self, state: State, final: bool) -> None:
        """One concern reaches its target at most N times in any rolling window (L3)."""
        times: dict[str, list[datetime]] = defaultdict(list)
        for delivery, row in self._deliveries(state):
            if row.action_type == "send_message" and row.concern_id:
                for concern_id in row.result_detail.get("concerns") or [row.concern_id]:  # a bundle: each of its loops
                    times[concern_id].append(delivery.at)
        limit, window = self.sim.settings.concern_contact_limit, self.sim.settings.concern_contact_window
        for concern_id, seen in times.items():
            seen.sort()
            for i in range(len(seen) - limit):
                if seen[i + limit] - seen[i] < window:
                    self.violations.append(f"{concern_id} reached its target {limit + 1} times within {window}")
                    break

    def _one_result_fact(self, state: State, final: bool) -> None:
        """Every finished person-facing action has exactly one action_result fact; a pending one has none."""
        for row in state.actions.values():
            n = self.results[row.action_id]
            expected = 0 if row.result == "pending" else 1
            if row.action_type in ("query", "internal_update"):
                ok = n <= 1
            else:
                ok = n == expected
            if not ok:
                self.violations.append(f"{row.action_id} ({row.result}) has {n} action_result facts")

    def _buttons_act_once_for_their_addressee(self, state: State, final: bool) -> None:
        """A message's buttons act at most once (Why this? only reads), only for the person they were sent to."""
        with self._reader() as uow:
            presses = {
                f.fact_id: f.content
                for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "button_pressed"))
            }
            owners = {b.token: b for b in uow.session.scalars(select(ButtonRow))}
            rules = [
                f.content
                for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "decision"))
                if f.content.get("rule", "").startswith("press:")
            ]
            # A press that changed nothing (a refused nudge) gives the message's buttons back: it does not count.
            released = {
                f.content["fact_id"]
                for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "system"))
                if f.content.get("event") == "press_released"
            }
        acted: Counter[str] = Counter()
        for decision in rules:
            if decision["kind"] == "ignore":
                continue
            read_only = decision["rule"] == "press:why"  # "why this?" only reads: pressable again, never spent
            if decision["inputs"][0] in released:
                continue
            press = presses.get(decision["inputs"][0], {})
            button = owners.get(press.get("token", ""))
            if button is None or press.get("person_id") != button.addressee_id:
                self.violations.append(f"{decision['decision_id']} acted on a press by {press.get('person_id')}")
                continue
            if not read_only:
                acted[button.request_key] += 1
        for key, n in acted.items():
            if n > 1:
                self.violations.append(f"the buttons of {key} acted {n} times")

    def _one_brief_a_day(self, state: State, final: bool) -> None:
        """A principal gets at most one scheduled brief per local day (across replicas, restarts and ticks)."""
        days: Counter[tuple[str, str]] = Counter()
        for row in state.actions.values():
            if row.notification_type != "daily_brief" or row.result not in ("success", "pending"):
                continue
            person = state.persons[row.target_person_id]
            days[(person.person_id, f"{row.created_at.astimezone(ZoneInfo(person.timezone)):%Y-%m-%d}")] += 1
        for (person_id, day), n in days.items():
            if n > 1:
                self.violations.append(f"{person_id} got {n} daily briefs on {day}")

    def _nothing_set_aside(self, state: State, final: bool) -> None:
        """No queued action and no signal is given up on."""
        failed = [e.request_key for e in state.outbox if e.state == "failed"]
        if failed:
            self.violations.append(f"outbox entries set aside: {failed}")
        if state.inbox_failed:
            self.violations.append(f"{state.inbox_failed} signals set aside")

    def _language(self, state: State, final: bool) -> None:
        """What the bot writes is in the reader's language (no English template words in zh, no Chinese in en),
        unless it frames words passed on in the other language: then the frame follows those words."""
        deliveries = self.sim.platform.deliveries[self._language_checked :]
        self._language_checked += len(deliveries)
        # The principal's words as forwarded (rewritten for the reader) are theirs too.
        texts = sorted(self.user_texts | {c.question for c in state.concerns}, key=len, reverse=True)
        # What the bot quotes (a /did line shows the start of a question or of what it passed on) is quoted, not
        # written: the question and message previews, as /did clips them.
        previews = [a.content_preview for a in state.actions.values()] + [c.question for c in state.concerns]
        quoted = sorted({clip(t) for t in previews} | set(previews), key=len, reverse=True)
        for d in deliveries:
            row = state.actions.get(d.action_id)
            person = state.persons.get(row.target_person_id) if row else None
            if person is None:
                continue
            bare = d.text
            for command in _BOT_COMMANDS:
                bare = bare.replace(command, " ")
            for t in quoted:
                bare = bare.replace(t, " ")
            # Words passed on in the other language are framed in their language (issue 21).
            carried = [t for t in texts if t in bare]
            for t in texts:
                bare = bare.replace(t, " ")
            bare = _NOT_WORDS.sub(" ", bare)
            in_zh = any(_CJK.search(t) for t in carried)
            in_en = any(not _CJK.search(t) and _ENGLISH.search(t) for t in carried)
            if person.locale == "zh" and (words := _ENGLISH.findall(bare)) and not in_en:
                self.violations.append(f"zh reader {person.person_id} got English {words[:5]} in {d.text!r}")
            if person.locale == "en" and _CJK.search(bare) and not in_zh:
                self.violations.append(f"en reader {person.person_id} got Chinese in {d.text!r}")

    def _never_failed_by_own_pacing(self, state: State, final: bool) -> None:
        """The service's own pacing defers a send; it never fails one, nor pushes it onto another channel."""
        for row in state.actions.values():
            attempts = row.result_detail.get("attempts", []) if row.result != "pending" else []
            if any(a.get("code") == "pacing" for a in attempts):
                self.violations.append(
                    f"{row.action_id} ({row.result}) went through the service's own pacing as a "
                    f"failed attempt: {attempts}"
                )

    def _solicited_not_capped(self, state: State, final: bool) -> None:
        """An answer the originator asked for is never held by their cap or their proactive switch."""
        for row in state.actions.values():
            blocked_by = row.result_detail.get("blocked_by") if row.result == "blocked" else None
            solicited = row.action_type == "backflow" or bool(getattr(row, "solicited", False))
            if solicited and blocked_by in ("L1:daily_cap", "L1:proactive_disabled"):
                self.violations.append(
                    f"{row.action_type} {row.action_id} to {row.target_person_id} was blocked by {blocked_by}"
                )

    def _reminders_neither_lost_nor_doubled(self, state: State, final: bool) -> None:
        """A reminder reaches its person once per time it is due (and one repeat), never twice; none is lost."""
        later = Counter(
            f.content["concern_id"] for f in self.concern_facts if f.content.get("change") == "snoozed"
        )  # 稍后 1小时 makes it due again
        reached: Counter[tuple[str, bool]] = Counter()
        for _, row in self._deliveries(state):
            if row.concern_id and ":reminder:" in (row.request_key or ""):
                repeat = row.content_preview.startswith(("⏰ 再提醒", "⏰ Reminder again"))
                reached[(row.concern_id, repeat)] += 1
        tried = {a.concern_id for a in state.actions.values() if ":reminder:" in (a.request_key or "")}
        for c in state.concerns:
            if c.kind != "reminder":
                continue
            for repeat in (False, True):
                if reached[(c.concern_id, repeat)] > 1 + later[c.concern_id]:
                    what = "repeat" if repeat else "reminder"
                    self.violations.append(
                        f"{c.concern_id}'s {what} reached {c.originator_id} {reached[(c.concern_id, repeat)]} times"
                    )
            if c.state == "expired" and c.concern_id not in tried:
                self.violations.append(f"{c.concern_id} expired without ever being sent (lost)")
            if final and c.state in ACTIVE_STATES:
                self.violations.append(f"{c.concern_id} is still open after settling (lost)")

    def _bundle_never_exceeds_l1(self, state: State, final: bool) -> None:
        """A bundle asks one person, at its highest item's priority, and carries no item L1 would hold on its own
        (none below P0 in quiet time)."""
        loops = {c.concern_id: c for c in state.concerns}
        rank = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
        for _, row in self._deliveries(state):
            items = [loops[c] for c in row.result_detail.get("concerns", []) if c in loops]
            if not items:
                continue
            if any(c.target_person_id != row.target_person_id for c in items):
                self.violations.append(f"bundle {row.action_id} carries a loop waiting on someone else")
            if row.priority != min((c.priority for c in items), key=rank.__getitem__):
                self.violations.append(f"bundle {row.action_id} is {row.priority}, not its highest item's priority")
            person = state.persons[row.target_person_id]
            policies = self._policies_at(person.person_id, row.created_at)
            tz = ZoneInfo(person.timezone)
            if policies and all(is_quiet(p, tz, row.created_at) for p in policies):
                below = [c.concern_id for c in items if c.priority != "P0"]
                if below:
                    self.violations.append(f"bundle {row.action_id} carried {below} through quiet time")

    def _digest_never_holds_urgent(self, state: State, final: bool) -> None:
        """A digest never holds a P0/P1; after settling nothing is still held for one."""
        for e in state.outbox:
            if e.state in ("digest", "digested") and e.request.get("priority") in ("P0", "P1"):
                self.violations.append(f"{e.request_key} ({e.request['priority']}) was held for a digest")
            if final and e.state == "digest":
                self.violations.append(f"{e.request_key} is still held for a digest after settling")

    def _never_urgent_after_a_read(self, state: State, final: bool) -> None:
        """A follow-up is made urgent only while its loop's previous message to that person is unread."""
        platform = self.sim.platform
        by_message = {d.message_id: (i, d) for i, d in enumerate(platform.deliveries)}
        for order, user, message_id in platform.urgents:
            index, sent = by_message[message_id]
            row = state.actions.get(sent.action_id)
            concern_id = row.concern_id if row is not None else None
            earlier = [d for d in platform.deliveries[:index] if d.user == user and d.channel == sent.channel
                       and (a := state.actions.get(d.action_id)) is not None and a.concern_id == concern_id
                       and a.action_type == "send_message"]  # fmt: skip
            if concern_id is None or not earlier:
                self.violations.append(f"{sent.action_id} made urgent with no earlier message of its loop")
                continue
            if any(o < order and u == user and m == earlier[-1].message_id for o, u, m in platform.reads):
                self.violations.append(f"{sent.action_id} ({concern_id}) made urgent after {user} read the last one")

    def _politeness_from_facts_alone(self, state: State, final: bool) -> None:
        """Quiet hours except P0 and the daily cap, proven from `GET /v1/facts` alone (tests/simulation/politeness)."""
        self.violations += self.from_facts.violations()

    def _nothing_proactive_while_away(self, state: State, final: bool) -> None:
        """Nobody away gets a proactive message below P0 (tests/simulation/away)."""
        kinds = {c.concern_id: c.kind for c in state.concerns}
        self.violations += self.away.violations(self._deliveries(state), kinds)

    def _forwarded_words_are_the_readers(self, state: State, final: bool) -> None:
        """Forwarded words leave no 我 / me nor filler; information never opens a commitment (conversation.py)."""
        self.violations += self.conversation.violations(state.concerns)

    def _soft_moves_keep_the_deadline(self, state: State, final: bool) -> None:
        """No contact moved for a meeting, the usual hour or a promise lands after its deadline (meetings.py)."""
        self.violations += placed_past_deadline(self.concern_facts, {c.concern_id: c for c in state.concerns})

    def _soft_moves_keep_the_escalation(self, state: State, final: bool) -> None:
        """No follow-up moved for a meeting, the usual hour or a promise lands after its escalation (meetings.py)."""
        concerns = {c.concern_id: c for c in state.concerns}

        def stretches(person_id: str, at: datetime) -> list[float]:
            found = [p.follow_up_stretch for p in self._policies_at(person_id, at)]
            person = state.persons.get(person_id)
            if found or person is None:
                return found or [1.0]
            return [InteractionPolicy.model_validate(person.interaction_policy).follow_up_stretch]

        self.violations += placed_past_escalation(
            self.concern_facts, concerns, state.actions, self.sim.settings, stretches
        )

    def _no_secret_in_logs(self, state: State, final: bool) -> None:
        """No bot token, webhook secret or API token in any log line."""
        logged = self.sim.logs.getvalue()
        s = self.sim.settings
        secrets = [v.get_secret_value() for v in (s.telegram_bot_token, s.telegram_webhook_secret) if v is not None]
        secrets += [v.get_secret_value() for v in s.admin_tokens.values()]
        leaked = [x[:6] + "…" for x in secrets if x and x in logged]
        if leaked:
            self.violations.append(f"secrets in the logs: {leaked}")


def _carried(row: Any) -> list[Any]:
    """The action itself and, for a digest, each item it carried (as a row with just its request key)."""
    items = row.result_detail.get("items", []) if row.notification_type == "digest" else []
    return [row, *(SimpleNamespace(request_key=key) for key in items)]


def _terminal_for(row: Any, text_: str, concern_id: str) -> bool:
    """Whether an action to the originator tells how `concern_id` ended."""
    key = row.request_key or ""
    if key.startswith(f"{concern_id}:backflow"):
        return True
    if key.startswith(f"{concern_id}:outcome:"):
        return key.split(":")[2].split("#")[0] in TERMINAL_OUTCOMES
    # Before outcome keys: the question's ack said either "sent" or "could not send"; a cancel reply names the concern.
    if key == f"{concern_id}:ack":
        return text_.startswith(("没能发给", "Could not reach"))
    return key.endswith(":reply") and concern_id in text_ and text_.startswith(("已取消", "Cancelled"))
