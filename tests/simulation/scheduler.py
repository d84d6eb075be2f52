"""A deterministic cooperative scheduler: simulated threads run one at a time and switch only at checkpoints.

Every simulated thread (a drainer, a scheduler tick, a webhook's background run) is a real thread, but only
the one the scheduler resumes may run; it runs until its next checkpoint (the start of a database
transaction, either side of a channel send) and parks there. Checkpoints lie outside transactions, so a
parked thread holds no lock and the interleaving of transactions is chosen by a seeded random generator:
the same seed gives the same interleaving. A process is "killed" by waking its parked threads with
`SimulatedCrash`, which unwinds them between two transactions: exactly what a crash leaves behind.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TURN_TIMEOUT = 60.0  # seconds one thread may run before the simulation calls it a deadlock


class SimulatedCrash(BaseException):
    """Raised at a checkpoint of a thread whose process was killed; not an Exception, so nothing catches it."""


class Deadlock(AssertionError):
    """A simulated thread did not reach its next checkpoint in time (it waits for something that never comes)."""


@dataclass
class Task:
    """One simulated thread of one simulated process."""

    name: str
    process: str
    fn: Callable[[], Any]
    go: threading.Event = field(default_factory=threading.Event)
    label: str = "start"
    done: bool = False
    crash: bool = False
    crashed: bool = False
    error: BaseException | None = None
    result: Any = None


class Scheduler:
    """Runs tasks one at a time, switching at checkpoints in an order drawn from `rng`."""

    def __init__(
        self, rng: random.Random, *, crash_rate: float = 0.0, log: Callable[[str], None] | None = None
    ) -> None:
        self.rng = rng
        self.crash_rate = crash_rate
        self._log = log or (lambda _: None)
        self._tasks: list[Task] = []
        self._by_thread: dict[int, Task] = {}
        self._turn_over = threading.Event()
        self.switches = 0

    def reseed(self, rng: random.Random, *, crash_rate: float | None = None) -> None:
        """Use a new generator (each step of a scenario has its own, so steps replay alone)."""
        self.rng = rng
        if crash_rate is not None:
            self.crash_rate = crash_rate

    def spawn(self, name: str, process: str, fn: Callable[[], Any]) -> Task:
        """Start a task; it parks at once and runs only when resumed."""
        task = Task(name=name, process=process, fn=fn)
        self._tasks.append(task)
        self._turn_over.clear()
        threading.Thread(target=self._main, args=(task,), name=f"sim-{process}-{name}", daemon=True).start()
        self._wait_turn(task)
        return task

    def checkpoint(self, label: str) -> None:
        """Called by instrumented code: park this thread here if it is a simulated one."""
        task = self._by_thread.get(threading.get_ident())
        if task is not None:
            self._park(task, label)

    def in_task(self) -> bool:
        """True on a simulated thread."""
        return threading.get_ident() in self._by_thread

    def run(self, *, crashable: set[str] | None = None) -> list[str]:
        """Resume tasks until all are done; may kill processes in `crashable`. Returns the processes killed."""
        killed: list[str] = []
        while live := [t for t in self._tasks if not t.done]:
            victims = sorted({t.process for t in live if crashable and t.process in crashable})
            if victims and self.rng.random() < self.crash_rate:
                process = self.rng.choice(victims)
                at = ", ".join(f"{t.name}@{t.label}" for t in live if t.process == process)
                self._log(f"crash {process} ({at})")
                self.kill(process)
                killed.append(process)
                continue
            self._resume(self.rng.choice(live))
        self._tasks = []
        return killed

    def kill(self, process: str) -> None:
        """Unwind every live task of `process` with SimulatedCrash at its checkpoint."""
        for task in [t for t in self._tasks if t.process == process and not t.done]:
            task.crash = True
            self._resume(task)

    def _resume(self, task: Task) -> None:
        self.switches += 1
        self._turn_over.clear()
        task.go.set()
        self._wait_turn(task)

    def _wait_turn(self, task: Task) -> None:
        if not self._turn_over.wait(TURN_TIMEOUT):
            raise Deadlock(f"{task.process}/{task.name} did not reach a checkpoint after {task.label}")

    def _park(self, task: Task, label: str) -> None:
        task.label = label
        task.go.clear()
        self._turn_over.set()
        task.go.wait()
        if task.crash:
            raise SimulatedCrash(f"{task.process} killed at {label}")

    def _main(self, task: Task) -> None:
        self._by_thread[threading.get_ident()] = task
        try:
            self._park(task, "start")
            task.result = task.fn()
        except SimulatedCrash:
            task.crashed = True
        except BaseException as exc:  # reported by the runner as a failure of the step
            task.error = exc
        finally:
            task.done = True
            self._by_thread.pop(threading.get_ident(), None)
            self._turn_over.set()
