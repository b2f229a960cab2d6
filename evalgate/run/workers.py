"""Worker processes for the structural pass, each document under a time budget.

Takes a picklable `work` (a target -> its outcome, evalgate.run.StructuralPass's) and the targets;
gives their outcomes in order. A document whose outcome is not back `budget` seconds after its worker
started on it is the worker's last: the worker is killed, the document gets `timed_out(target)`, and a
new worker takes the rest. A worker that dies (a crash, the kernel's OOM killer) costs its document
alone the same way.

Why processes: CPython's `re` does not look at signals while it matches, so nothing inside a process
can stop a pattern that backtracks without end; only killing the process can. The patterns are linear
(tests/test_linear_patterns.py), so the budget is the backstop, not the plan.

A worker is forked where that is safe (no other thread in this process, see evalgate.run) and costs
about a millisecond then; else spawned (about 0.3 s: it imports evalgate again).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
R = TypeVar("R")
CHUNK = 8  # targets handed to a worker at a time: fewer round trips, and a worker rarely waits


def _serve(connection: Connection, work: Callable[[Any], Any]) -> None:
    """A worker's loop: chunks of (index, target) in, one (index, outcome) out per target as soon as
    it is done (so the parent knows which target is in progress), until None or the pipe closes."""
    while True:
        try:
            chunk = connection.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index, target in chunk:
            connection.send((index, work(target)))


@dataclass
class _Worker(Generic[T]):
    process: BaseProcess
    connection: Connection
    queue: deque[tuple[int, T]] = field(default_factory=deque)  # handed out, not yet back
    since: float = 0.0  # when it started on the head of its queue (time.monotonic)


class Workers(Generic[T, R]):
    """Up to `count` worker processes running `work` on targets, each target within `budget` seconds."""

    def __init__(
        self,
        count: int,
        work: Callable[[T], R],
        budget: float,
        timed_out: Callable[[T, str], R],
        context: Callable[[], BaseContext],
    ) -> None:
        self._count = count
        self._work = work
        self._budget = budget
        self._timed_out = timed_out  # (target, why) -> the outcome that stands for it
        self._context = context  # asked at each start: a worker started later may need spawn
        self._workers: list[_Worker[T]] = []

    def _start(self) -> _Worker[T]:
        context = self._context()
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child, self._work), daemon=True)  # type: ignore[attr-defined]
        process.start()
        child.close()
        worker: _Worker[T] = _Worker(process, parent)
        self._workers.append(worker)
        return worker

    def map(self, targets: Sequence[T]) -> Iterator[R]:
        """The targets' outcomes, in their order, each yielded as soon as it and those before it are
        back."""
        pending: deque[tuple[int, T]] = deque(enumerate(targets))
        done: dict[int, R] = {}
        ahead = 0  # the next index to yield
        while ahead < len(targets):
            while len(self._workers) < min(self._count, len(pending)):
                self._start()
            for worker in self._workers:
                if not worker.queue and pending:
                    self._hand(worker, pending)
            busy = [w for w in self._workers if w.queue]
            deadline = min(w.since for w in busy) + self._budget
            ready = wait([w.connection for w in busy], timeout=max(0.0, deadline - time.monotonic()))
            for worker in busy:
                if worker.connection in ready:
                    self._receive(worker, done, pending)
                elif time.monotonic() - worker.since >= self._budget:
                    self._replace(worker, done, pending, f"took longer than {self._budget:g} s")
            while ahead in done:
                yield done.pop(ahead)
                ahead += 1

    def _hand(self, worker: _Worker[T], pending: deque[tuple[int, T]]) -> None:
        chunk = [pending.popleft() for _ in range(min(CHUNK, len(pending)))]
        worker.queue.extend(chunk)
        worker.since = time.monotonic()
        worker.connection.send(chunk)

    def _receive(self, worker: _Worker[T], done: dict[int, R], pending: deque[tuple[int, T]]) -> None:
        try:
            index, outcome = worker.connection.recv()
        except (EOFError, OSError):  # the worker died: its document is the one it was on
            worker.process.join(1)
            code = worker.process.exitcode
            why = f"its worker process died (exit code {code})" if code is not None else "its worker died"
            self._replace(worker, done, pending, why)
            return
        worker.queue.popleft()
        worker.since = time.monotonic()
        done[index] = outcome

    def _replace(
        self, worker: _Worker[T], done: dict[int, R], pending: deque[tuple[int, T]], why: str
    ) -> None:
        """Kill the worker; its current target gets the time-out outcome, the rest go back in front."""
        worker.process.kill()
        worker.process.join()
        worker.connection.close()
        self._workers.remove(worker)
        index, target = worker.queue.popleft()
        done[index] = self._timed_out(target, why)
        pending.extendleft(reversed(worker.queue))

    def close(self) -> None:
        """Ask every worker to stop, then make sure it has."""
        for worker in self._workers:
            with suppress(OSError):
                worker.connection.send(None)
        for worker in self._workers:
            worker.process.join(5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()
        self._workers = []
