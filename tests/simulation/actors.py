"""The people and operators of a simulation: each step kind as what they do, and what must follow from it."""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text

from app.inbound import PerceptionInbound
from app.pipeline import start_up, tick
from channels.inbound import InboundMessage, InboundPress, InboundRead
from concern.models import ACTIVE_STATES, Concern
from concern.outbox import drain as outbox
from perception import service as perception
from tests.simulation import conversation, inputs
from tests.simulation.inputs import Said
from tests.simulation.platform import Delivery
from tests.simulation.scheduler import Task
from tests.simulation.world import PersonSpec

if TYPE_CHECKING:
    from tests.simulation.replicas import Replica
    from tests.simulation.runner import Simulation, Step

ADMIN = {"Authorization": "Bearer sim-admin-token"}
ADVANCES = ((1, 5), (10, 6), (60, 6), (180, 5), (540, 4), (1440, 3), (2880, 2))  # (minutes, weight)


class Actors:
    """Carries out steps: inbound messages, API calls, ticks, races, crashes, hostile input."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.people = {p.person_id: p for p in sim.cast}
        self._n = itertools.count(1)
        self._events = itertools.count(1)
        self.sent: list[InboundMessage] = []
        self._tasks: list[Task] = []
        self._presses: list[str] = []  # event ids of presses so far (a platform may deliver one again)

    # --- plumbing -------------------------------------------------------------------------------------------

    def _replica(self, rng: random.Random) -> Replica:
        return self.sim.replicas[rng.choice(sorted(self.sim.replicas))]

    def _spawn(self, replica: Replica, name: str, fn: Any) -> None:
        self._tasks.append(self.sim.scheduler.spawn(name, replica.name, fn))

    def spawn_startup(self, replica: Replica) -> None:
        """What a process does when it starts: finish interrupted actions, resume the inbox."""
        self._spawn(replica, "startup", lambda ctx=replica.ctx: start_up(ctx))

    def tick_all(self) -> None:
        """Every replica's scheduler ticks at once."""
        for replica in self.sim.replicas.values():
            ctx = replica.ctx
            self._spawn(replica, "tick", lambda ctx=ctx: tick(ctx))

    def take_task_errors(self) -> list[str]:
        """Exceptions that escaped a task since the last call (the service must handle its own errors)."""
        errors = [
            f"{t.process}/{t.name} raised {type(t.error).__name__}: {t.error}"
            for t in self._tasks
            if t.error is not None
        ]
        self._tasks = [t for t in self._tasks if not t.done]
        return errors

    def api(self, method: str, path: str, **kwargs: Any) -> Any:
        """One HTTP request to a replica; a 5xx is a violation."""
        headers = {**ADMIN, **kwargs.pop("headers", {})}
        response = self.sim.replicas["r1"].client.request(method, path, headers=headers, **kwargs)
        self.sim.log(f"  {method} {path} → {response.status_code}")
        if response.status_code >= 500:
            self.sim.checker.violations.append(f"{method} {path} answered {response.status_code}")
        return response

    def _reader(self):
        return self.sim.replicas["r1"].ctx.reader()

    def _active(self, **where: Any) -> list[Concern]:
        with self._reader() as uow:
            stmt = select(Concern).where(Concern.state.in_(ACTIVE_STATES))
            for name, value in where.items():
                stmt = stmt.where(getattr(Concern, name) == value)
            return list(uow.session.scalars(stmt.order_by(Concern.concern_id)))

    def _concern(self, concern_id: str) -> Concern:
        with self._reader() as uow:
            return uow.session.get(Concern, concern_id)

    def say(self, said: Said, rng: random.Random, *, event: InboundMessage | None = None) -> None:
        """A person writes to the bot: recorded as the webhook would, then processed by racing workers."""
        n = next(self._events)
        message = event or InboundMessage(
            channel=said.channel,
            event_id=f"sim_evt_{n}",
            message_id=f"sim_in_{n}",
            chat_id=said.user,
            chat_type="p2p",
            external_user_id=said.user,
            text=said.text,
            reply_to_message_id=said.reply_to,
            occurred_at=self.sim.clock.now(),
        )
        self.sim.checker.user_texts.add(message.text)
        self.sent.append(message)
        self.sim.log(
            f"  {said.person.person_id if said else '?'} says {message.text!r}"
            + (f" quoting {message.reply_to_message_id}" if message.reply_to_message_id else "")
        )
        perception.record_message(self.sim.replicas["r1"].ctx, message=message)
        replica = self._replica(rng)
        self._spawn(replica, "webhook", lambda ctx=replica.ctx: tick(ctx))  # what the processor does when woken
        if rng.random() < 0.35:
            other = self._replica(rng)
            self._spawn(other, "tick", lambda ctx=other.ctx: tick(ctx))
        self.sim.run_tasks()

    def _said(self, rng: random.Random, person: PersonSpec, text_: str, *, quoting: Delivery | None = None) -> Said:
        if quoting is not None:  # a quoted reply comes from the chat the quoted message went to
            return Said(person, quoting.channel, quoting.user, text_, quoting.message_id)
        channel, user = inputs.binding_of(rng, person)
        return Said(person, channel, user, text_)

    def _last_message_to(self, person: PersonSpec, concern_id: str) -> Delivery | None:
        """The platform id of the newest bot message about `concern_id` that `person` received."""
        with self._reader() as uow:
            rows = uow.session.execute(
                text("SELECT action_id FROM actions WHERE request_key LIKE :k"), {"k": f"{concern_id}:%"}
            ).all()
        ids = {r[0] for r in rows}
        users = {b.user for b in person.bindings}
        found = [d for d in self.sim.platform.deliveries if d.action_id in ids and d.user in users]
        return found[-1] if found else None

    # --- steps ------------------------------------------------------------------------------------------------

    def do(self, step: Step, rng: random.Random) -> None:
        """Carry out one step."""
        getattr(self, f"_{step.kind}")(rng)

    def create_people(self) -> None:
        """Every person through the admin API (managers first)."""
        for person in self.sim.cast:
            response = self.api("POST", "/v1/persons", json=person.create_body())
            assert response.status_code == 201, response.text
            self.sim.checker.user_texts.update([person.display_name, *person.aliases])

    def _principals(self) -> list[PersonSpec]:
        return [p for p in self.sim.cast if p.role == "principal"]

    def _ask_chat(self, rng: random.Random) -> None:
        asker = rng.choice(self._principals())
        target = rng.choice([p for p in self.sim.cast if p.person_id != asker.person_id])
        if rng.random() < 0.5:
            q = inputs.question(rng, next(self._n), asker.locale)
        else:  # as people type: their 我 / my, fillers, or a question whose answer is information
            q, information = inputs.spoken_question(rng, next(self._n), asker.locale)
            if information is not None:
                self.sim.checker.conversation.information[conversation.marker(q) or ""] = information
        self.sim.checker.conversation.asked_in_chat.add(conversation.marker(q) or "")
        self.sim.checker.user_texts.add(q)
        self.say(self._said(rng, asker, inputs.ask_text(rng, asker, target, q)), rng)

    def _ask_api(self, rng: random.Random) -> None:
        asker = rng.choice(self._principals())
        target = rng.choice([p for p in self.sim.cast if p.person_id != asker.person_id])
        q = inputs.question(rng, next(self._n), asker.locale)
        self.sim.checker.user_texts.add(q)
        body: dict[str, Any] = {
            "originator_id": asker.person_id,
            "target_person_id": target.person_id,
            "question": q,
            "priority": rng.choice(inputs.PRIORITIES),
        }
        if rng.random() < 0.3:
            body["deadline"] = (self.sim.clock.now() + timedelta(hours=rng.choice((3, 9, 30, 50)))).isoformat()
        self.api("POST", "/v1/concerns", json=body)
        self.sim.run_tasks()

    def _tell_chat(self, rng: random.Random) -> None:
        asker = rng.choice(self._principals())
        target = rng.choice([p for p in self.sim.cast if p.person_id != asker.person_id])
        command, body = inputs.tell_text(rng, asker, target, next(self._n))
        self.sim.checker.user_texts.add(body)
        self.say(self._said(rng, asker, command), rng)

    def _notify_api(self, rng: random.Random) -> None:
        target = rng.choice(self.sim.cast)
        body = (
            f"通知{next(self._n)}：服务器将在今晚维护"
            if target.locale == "zh"
            else f"Notice{next(self._n)}: maintenance tonight"
        )
        self.sim.checker.user_texts.add(body)
        self.api(
            "POST",
            "/v1/notifications",
            json={
                "target_person_id": target.person_id,
                "text": body,
                "notification_type": rng.choice(inputs.NOTIFICATION_TYPES),
                "priority": rng.choice(inputs.PRIORITIES),
            },
        )
        self.sim.run_tasks()

    def _burst(self, rng: random.Random) -> None:
        """Three notices to one person at the same moment (each its own type: the cooldown does not stop them)."""
        target = rng.choice(self.sim.cast)
        for n in range(3):
            body = (
                f"通知{next(self._n)}：第{n + 1}条" if target.locale == "zh" else f"Notice{next(self._n)}: part {n + 1}"
            )
            self.sim.checker.user_texts.add(body)
            self.api(
                "POST",
                "/v1/notifications",
                json={
                    "target_person_id": target.person_id,
                    "text": body,
                    "notification_type": f"burst_{n}",
                    "priority": "P1",
                },
            )
        self.sim.run_tasks()

    def _reply(self, rng: random.Random) -> None:
        waiting = self._active()
        if not waiting:
            return self._reply_other(rng)
        concern = rng.choice(waiting)
        target = self.people[concern.target_person_id]
        quoting = self._last_message_to(target, concern.concern_id) if rng.random() < 0.4 else None
        said = self.sim.checker.conversation.information.get(conversation.marker(concern.question) or "")
        said = said or inputs.answer(rng, next(self._n), target.locale)
        self.say(self._said(rng, target, said, quoting=quoting), rng)

    def _reply_other(self, rng: random.Random) -> None:
        person = rng.choice(self.sim.cast)
        self.say(self._said(rng, person, inputs.answer(rng, next(self._n), person.locale)), rng)

    def _reply_manager(self, rng: random.Random) -> None:
        escalated = [c for c in self._active(state="escalated") if c.escalated_to and c.escalated_to != c.originator_id]
        if not escalated:
            return self._reply(rng)
        concern = rng.choice(escalated)
        manager = self.people[concern.escalated_to]
        quoting = self._last_message_to(manager, concern.concern_id) if rng.random() < 0.5 else None
        reply = f"上级答复{next(self._n)}：我来处理，周五前给结果"
        self.say(self._said(rng, manager, reply, quoting=quoting), rng)
        # Quoted, it answers that escalation; unquoted, the manager's most recent open loop (maybe their own question).
        with self._reader() as uow:
            answered = list(uow.session.scalars(select(Concern).where(Concern.answer == reply)))
        expected = [concern.concern_id] if quoting is not None else [c.concern_id for c in answered]
        if not answered or [c.concern_id for c in answered] != expected or answered[0].answered_by != manager.person_id:
            after = self._concern(concern.concern_id)
            if after.state in ACTIVE_STATES:
                self.sim.checker.violations.append(
                    f"{manager.person_id} answered the escalation of {concern.concern_id} but it is still {after.state}"
                )

    def _ack(self, rng: random.Random) -> None:
        self._not_an_answer(rng, rng.choice(inputs.ACKS))

    def _malformed(self, rng: random.Random) -> None:
        self._not_an_answer(rng, rng.choice(inputs.MALFORMED))

    def _not_an_answer(self, rng: random.Random, said: str) -> None:
        waiting = [c for c in self._active() if c.state == "waiting_reply"]
        if not waiting:
            return self._reply_other(rng)
        concern = rng.choice(waiting)
        target = self.people[concern.target_person_id]
        self.say(self._said(rng, target, said), rng)
        after = self._concern(concern.concern_id)
        if after.state == "resolved" and after.answer == said:
            self.sim.checker.violations.append(
                f"{said!r} from {target.person_id} became the answer to {concern.concern_id}"
            )

    def _snooze(self, rng: random.Random) -> None:
        waiting = self._active(state="waiting_reply")
        if waiting:
            target = self.people[rng.choice(waiting).target_person_id]
            self.say(self._said(rng, target, rng.choice(("稍后 2小时", "later 2h", "/later 30m"))), rng)

    def _press(self, rng: random.Random) -> None:
        """Someone taps a button: mostly its addressee, sometimes someone else, sometimes twice or a platform retry."""
        offered = [d for d in self.sim.platform.deliveries[-30:] if d.buttons]
        if not offered:
            return self._reply(rng)
        delivery = rng.choice(offered)
        label, token = rng.choice(delivery.buttons)
        owner = next((p for p in self.sim.cast if any(b.user == delivery.user for b in p.bindings)), None)
        presser = owner if owner is not None and rng.random() < 0.8 else rng.choice(self.sim.cast)
        channel, user = (delivery.channel, delivery.user) if presser is owner else inputs.binding_of(rng, presser)
        n = next(self._events)
        press = InboundPress(
            channel=channel,
            event_id=f"sim_press_{n}" if rng.random() < 0.8 or not self._presses else rng.choice(self._presses),
            press_id=f"cb_{n}",
            token=token,
            external_user_id=user,
            chat_id=user,
            message_id=delivery.message_id,
            occurred_at=self.sim.clock.now(),
        )
        self._presses.append(press.event_id)
        self.sim.log(f"  {presser.person_id} taps {label!r} on {delivery.message_id}")
        replica = self._replica(rng)
        toast = PerceptionInbound(replica.ctx).press(press).toast
        self.sim.log(f"    toast {toast!r}")
        self._spawn(replica, "webhook", lambda ctx=replica.ctx: tick(ctx))
        if rng.random() < 0.35:
            other = self._replica(rng)
            self._spawn(other, "tick", lambda ctx=other.ctx: tick(ctx))
        self.sim.run_tasks()

    def _read(self, rng: random.Random) -> None:
        """Someone reads a recent Feishu message; Feishu tells Deputy (sometimes the same event twice)."""
        waiting = [(self.people[c.target_person_id], c.concern_id) for c in self._active(state="waiting_reply")]
        latest = [
            d for d in (self._last_message_to(p, c) for p, c in waiting) if d is not None and d.channel == "feishu"
        ]
        recent = [d for d in self.sim.platform.deliveries[-30:] if d.channel == "feishu"]
        if not latest and not recent:
            return self._tick(rng)
        # Mostly the message an open loop waits on (what decides its next follow-up), sometimes any recent one.
        delivery = rng.choice(latest if latest and rng.random() < 0.8 else recent or latest)
        self.sim.platform.read(delivery.user, delivery.message_id)
        n = next(self._events)
        receipt = InboundRead(channel="feishu", event_id=f"sim_read_{n}", external_user_id=delivery.user,
                              message_ids=[delivery.message_id], read_at=self.sim.clock.now())  # fmt: skip
        self.sim.log(f"  {delivery.user} reads {delivery.message_id}")
        replica = self._replica(rng)
        for _ in range(2 if rng.random() < 0.2 else 1):
            PerceptionInbound(replica.ctx).read(receipt)
        if rng.random() < 0.5:
            self._spawn(replica, "tick", lambda ctx=replica.ctx: tick(ctx))
            self.sim.run_tasks()
        return None

    def _cancel_chat(self, rng: random.Random) -> None:
        open_ = self._active()
        if open_:
            concern = rng.choice(open_)
            originator = self.people[concern.originator_id]
            target = self.people.get(concern.target_person_id)
            if target is not None and originator.role == "principal" and rng.random() < 0.5:
                said = inputs.cancel_text(rng, originator, target)  # in words: `跟张三那个事不用问了`
            else:
                said = rng.choice(("/cancel ", "取消 ")) + concern.concern_id
            self.say(self._said(rng, originator, said), rng)

    def _cancel_api(self, rng: random.Random) -> None:
        open_ = self._active()
        if open_:
            self.api("POST", f"/v1/concerns/{rng.choice(open_).concern_id}/cancel")
            self.sim.run_tasks()

    def _self_service(self, rng: random.Random) -> None:
        person = rng.choice(self.sim.cast)
        self.say(self._said(rng, person, rng.choice(inputs.SELF_SERVICE)), rng)

    def _away(self, rng: random.Random) -> None:
        """Someone goes away or comes back: said in chat, or set by an admin (with a return time or open-ended)."""
        person = rng.choice([p for p in self.sim.cast if p.role != "principal"] or self.sim.cast)
        roll = rng.random()
        if roll < 0.4:
            self.say(self._said(rng, person, rng.choice(inputs.AWAY)), rng)
        elif roll < 0.8:
            self.say(self._said(rng, person, rng.choice(inputs.BACK)), rng)
        else:
            hours = rng.choice((None, 2, 20, 60))
            until = None if hours is None else (self.sim.clock.now() + timedelta(hours=hours)).isoformat()
            body = {"work_state": {"status": rng.choice(("away", "on_leave")), "until": until}}
            if rng.random() < 0.3:
                body = {"work_state": {"status": "available"}}
            self.sim.log(f"  {person.person_id} work state {body}")
            self.api("PATCH", f"/v1/persons/{person.person_id}", json=body)
            self.sim.run_tasks()

    def _status(self, rng: random.Random) -> None:
        said = rng.choice(inputs.STATUS if rng.random() < 0.5 else inputs.SPOKEN_STATUS)
        self.say(self._said(rng, rng.choice(self._principals()), said), rng)

    def _duplicate(self, rng: random.Random) -> None:
        if self.sent:
            event = rng.choice(self.sent)
            person = next((p for p in self.sim.cast if any(b.user == event.external_user_id for b in p.bindings)), None)
            self.sim.log(f"  platform repeats event {event.event_id}")
            self.say(Said(person, event.channel, event.external_user_id, event.text), rng, event=event)

    def _remind(self, rng: random.Random) -> None:
        """Someone sets a reminder for themselves (zh or en, a span or a clock time)."""
        person = rng.choice(self.sim.cast)
        command, what = inputs.remind_text(rng, person, next(self._n))
        self.sim.checker.user_texts.add(what)
        self.say(self._said(rng, person, command), rng)

    def _digest(self, rng: random.Random) -> None:
        """A person's digest is switched on (mostly) or off, with a short or a long wait."""
        person = rng.choice(self.sim.cast)
        body = {"digest": rng.random() < 0.75, "digest_max_wait": rng.choice(("30m", "2h", "4h", "1d"))}
        self.sim.log(f"  {person.person_id} digest {body}")
        self.api("PATCH", f"/v1/persons/{person.person_id}/interaction_policy", json=body)
        self.sim.run_tasks()

    def _advance(self, rng: random.Random) -> None:
        minutes, weights = zip(*ADVANCES, strict=True)
        delta = rng.choices(minutes, weights)[0]
        self.sim.clock.advance(timedelta(minutes=delta))
        self.tick_all()
        self.sim.run_tasks()

    def _tick(self, rng: random.Random) -> None:
        replica = self._replica(rng)
        self._spawn(replica, "tick", lambda ctx=replica.ctx: tick(ctx))
        self.sim.run_tasks()

    def _race(self, rng: random.Random) -> None:
        for _ in range(rng.randint(2, 3)):
            replica = self._replica(rng)
            work = rng.choice((("tick", tick), ("drain", outbox.drain), ("webhook", tick)))
            self._spawn(replica, work[0], lambda ctx=replica.ctx, fn=work[1]: fn(ctx))
        self.sim.run_tasks()

    def _restart(self, rng: random.Random) -> None:
        self.sim.restart(rng.choice(sorted(self.sim.replicas)))
        self.sim.run_tasks()

    def _hostile(self, rng: random.Random) -> None:
        principal = rng.choice(self._principals()).person_id
        target = rng.choice([p for p in self.sim.cast if p.person_id != principal]).person_id
        for method, path, kwargs in inputs.hostile_requests(rng, self.sim.clock.now().isoformat(), principal, target):
            self.api(method, path, **kwargs)
        self.sim.run_tasks()

    def _rewrite(self, rng: random.Random) -> None:
        self.sim.checker.violations += self.sim.checker.log_guard.attempt_rewrite()
