"""Run one seeded scenario against the real service code and check the invariants after every step."""

from __future__ import annotations

import io
import logging
import random
import re
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import func, select

from app.logging import JsonFormatter
from app.settings import DEFAULT_SCHEDULE, Settings
from concern.models import OutboxEntry
from kernel.clock import FrozenClock
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.simulation import actors
from tests.simulation.invariants import Invariants
from tests.simulation.meetings import SimCalendar
from tests.simulation.platform import Faults, Platform
from tests.simulation.replicas import Replica, start
from tests.simulation.scheduler import Scheduler
from tests.simulation.world import STARTS, PersonSpec, people

# Step kinds and how often a scenario draws them.
KINDS = {
    "ask_chat": 14,
    "ask_api": 4,
    "tell_chat": 4,
    "notify_api": 3,
    "reply": 12,
    "reply_manager": 6,
    "reply_other": 3,
    "ack": 4,
    "malformed": 3,
    "snooze": 2,
    "press": 8,
    "cancel_chat": 2,
    "cancel_api": 1,
    "self_service": 2,
    "status": 2,
    "duplicate": 3,
    "burst": 2,
    "advance": 14,
    "tick": 5,
    "race": 4,
    "restart": 1,
    "hostile": 2,
    "rewrite": 1,
    "remind": 4,
    "digest": 2,
    "away": 2,
    "read": 4,
}
SETTLE_ROUNDS, SETTLE_STEP = 44, timedelta(hours=6)
SETTLE_PACED_ROUNDS, SETTLE_PACED_STEP = 30, timedelta(seconds=2)
SHORT_LAST_WAIT = {"P0": ["1h", "1h"], "P1": ["4h", "1d", "2h"], "P2": ["1d", "2d", "1h"], "P3": ["2d", "2h"]}


@dataclass(frozen=True)
class Step:
    """One step of a scenario; its randomness comes from (seed, index), so steps replay alone."""

    index: int
    kind: str


@dataclass
class Options:
    """Knobs of one run (all drawn from the seed unless given)."""

    steps: int = 70
    only: list[int] | None = None  # replay just these step indexes
    redis_url: str | None = None
    without: frozenset[str] = frozenset()  # step kinds to leave out (their indexes stay, for replay)
    ignore: frozenset[str] = frozenset()  # invariants not to check (to look past a known defect)
    keep_going: bool = False  # collect every violation and report them at the end (to catalogue what a seed finds)


class SimulationFailure(AssertionError):
    """An invariant broke: the seed, the step and the trace that lead there."""

    def __init__(self, message: str, *, signature: str = "") -> None:
        super().__init__(message)
        self.signature = signature  # the first violation with its ids and numbers blanked: what shrinking keeps


@dataclass
class Simulation:
    """A world of people, 1–2 replicas over one database, a fake clock and platform, and a list of steps."""

    seed: int
    database_url: str
    options: Options = field(default_factory=Options)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.start = rng.choice(STARTS)
        self.clock = FrozenClock(self.start)
        self.cast: list[PersonSpec] = people(rng, self.start)
        blocked = {(b.channel, b.user) for p in self.cast for b in p.bindings if rng.random() < 0.06}
        self.faults = Faults(
            down=rng.choice((0, 0, 0.03, 0.1)),
            timeout_after_delivery=rng.choice((0, 0, 0.03)),
            rate_limited=rng.choice((0, 0, 0.02)),
            slow=rng.choice((0, 0.05)),
            blocked=blocked,
        )
        self.replica_count = rng.choice((1, 2, 2))
        # A quarter of the worlds send Telegram over HTTP through python-telegram-bot (its logs and pacing are real).
        self.telegram = FakeTelegram().start() if rng.random() < 0.25 else None
        self.crash_rate = rng.choice((0.0, 0.0, 0.01, 0.03))
        self.busy = SimCalendar(rng, self.cast, self.start) if rng.random() < 0.5 else None  # meetings, half the time
        # A third of the worlds escalate soon after the last follow-up (a short last wait): a soft move of a follow-up
        # (half its wait, a meeting) could then land past it. Drawn apart: the other draws stay as they were.
        self.schedule = SHORT_LAST_WAIT if random.Random(f"{self.seed}:schedule").random() < 1 / 3 else DEFAULT_SCHEDULE
        kinds, weights = zip(*KINDS.items(), strict=True)
        planned = [Step(i, k) for i, k in enumerate(rng.choices(kinds, weights, k=self.options.steps))]
        self.steps = [
            s
            for s in planned
            if (self.options.only is None or s.index in self.options.only) and s.kind not in self.options.without
        ]
        self.trace: list[str] = []
        self.platform = Platform(self.clock, self.faults, log=self.log)
        self.scheduler = Scheduler(random.Random(self.seed), crash_rate=self.crash_rate, log=self.log)
        self.settings = Settings(
            _env_file=None,
            follow_up_schedule=self.schedule,
            database_url=self.database_url,
            admin_tokens="sim:sim-admin-token",
            timezone="Asia/Shanghai",
            scheduler_enabled=False,
            telegram_webhook_secret="sim-hook",
            telegram_bot_username="deputy_bot",
            feishu_urgent="app,sms",  # unread P0/P1 follow-ups on Feishu are made urgent (never after a read)
            redis_url=self.options.redis_url,
            telegram_bot_token=TOKEN if self.telegram else None,
            telegram_api_base=self.telegram.base_url if self.telegram else "http://127.0.0.1:9",
        )
        self.logs = io.StringIO()
        self.replicas: dict[str, Replica] = {}
        self.checker = Invariants(self)
        self.actors = actors.Actors(self)

    def log(self, line: str) -> None:
        """Append to the trace printed on failure."""
        self.trace.append(f"[{self.clock.now():%m-%d %H:%M}] {line}")

    def run(self) -> None:
        """Create the world, run every step, settle, and check the invariants after each."""
        handler = logging.StreamHandler(self.logs)
        handler.setFormatter(JsonFormatter())
        root = logging.getLogger()
        level = root.level
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        try:
            self._boot()
            for step in self.steps:
                self.scheduler.reseed(random.Random(f"{self.seed}:{step.index}"))
                self.platform.rng = random.Random(f"{self.seed}:{step.index}:net")
                self.log(f"step {step.index} {step.kind}")
                self.actors.do(step, random.Random(f"{self.seed}:{step.index}:act"))
                self.checker.check(step=step)
            self._settle()
            self.checker.check(step=None, final=True)
        except SimulationFailure:
            raise
        except Exception as exc:
            self.fail(f"the simulation itself raised {type(exc).__name__}: {exc}")
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
            for replica in self.replicas.values():
                replica.close()
            if self.telegram is not None:
                self.telegram.stop()

    def fail(self, *violations: str) -> None:
        """Stop with the seed, the violations and the trace."""
        backend = "sqlite" if self.database_url.startswith("sqlite") else "postgres"
        only = f" ONLY={','.join(str(i) for i in self.options.only)}" if self.options.only is not None else ""
        lines = [
            f"simulation seed {self.seed} on {backend} broke an invariant:",
            *(f"  ! {v}" for v in violations),
            "trace:",
            *(f"  {t}" for t in self.trace[-160:]),
            f"replay: make simulate SEED={self.seed} STEPS={self.options.steps} DB={backend}{only}",
        ]
        signature = re.sub(r"\d+", "#", violations[0].split(" [")[0]) if violations else ""
        raise SimulationFailure("\n".join(lines), signature=signature)

    def _boot(self) -> None:
        for index in range(self.replica_count):
            name = f"r{index + 1}"
            self.replicas[name] = start(
                name, self.settings, self.clock, self.platform, self.scheduler, telegram=self.telegram, busy=self.busy
            )
        self.actors.create_people()

    def run_tasks(self, crashable: bool = True) -> None:
        """Let the spawned tasks run to the end; restart the processes a crash killed, then run their start-up."""
        while True:
            killed = self.scheduler.run(crashable=set(self.replicas) if crashable else None)
            for task_error in self.actors.take_task_errors():
                if not self.options.keep_going:
                    self.fail(task_error)
                self.checker.violations.append(task_error)
            if not killed:
                return
            for name in dict.fromkeys(killed):
                self.restart(name)

    def restart(self, name: str) -> None:
        """Replace a process by a new one (in-memory state lost) and spawn its start-up work."""
        old = self.replicas[name]
        old.close()
        self.replicas[name] = start(
            name,
            self.settings,
            self.clock,
            self.platform,
            self.scheduler,
            generation=old.generation + 1,
            telegram=self.telegram,
            busy=self.busy,
        )
        self.log(f"restart {name} (generation {old.generation + 1})")
        self.actors.spawn_startup(self.replicas[name])

    def _settle(self) -> None:
        """No new input, no crashes: let time pass until every loop has run its course."""
        self.scheduler.reseed(random.Random(f"{self.seed}:settle"), crash_rate=0.0)
        self.platform.rng = random.Random(f"{self.seed}:settle:net")
        self.faults.slow = 0.0
        self.log("settle")
        for _ in range(SETTLE_ROUNDS):
            self.clock.advance(SETTLE_STEP)
            self.actors.tick_all()
            self.run_tasks(crashable=False)
            self.checker.check(step=None)
        # The last round may have queued sends that the pacing put off by a second or so (two notices to one chat
        # at once): their slots come, as the processor's timer would bring them, before the loops are judged.
        for _ in range(SETTLE_PACED_ROUNDS):
            if not self._queued():
                break
            self.clock.advance(SETTLE_PACED_STEP)
            self.actors.tick_all()
            self.run_tasks(crashable=False)
            self.checker.check(step=None)

    def _queued(self) -> bool:
        """Open outbox entries remain (some are waiting for a pacing slot)."""
        ctx = next(iter(self.replicas.values())).ctx
        with ctx.reader() as uow:
            return bool(
                uow.session.scalar(select(func.count()).select_from(OutboxEntry).where(OutboxEntry.state == "open"))
            )
