"""Worker processes for the structural pass, each document under a time budget.

Takes a `work` (a target -> its outcome, evalgate.run.StructuralPass's; picklable when workers may
be spawned) and the targets; gives their outcomes in order. A document whose outcome is not back
`budget` seconds after its worker started on it is the worker's last: the worker is killed, the
document gets `timed_out(target)`, and a new worker takes the rest. A worker that dies (a crash, the
kernel's OOM killer) costs its document alone the same way.

Why processes: a pattern that backtracks without end, or C code that never looks at signals, can only
be stopped from outside the process. The patterns are linear (tests/test_linear_patterns.py), so the
budget is the backstop, not the plan.

A worker is forked where that is safe (no other thread in this process, see evalgate.run): with
`os.fork` and two pipes carrying pickled messages, which imports nothing (through multiprocessing, its
import and its start took a one-file check ~14 ms). What a fork still costs is the pages the worker
copies as it writes to memory it shares with this process, ~9 ms for one file: one file is timed in
its own process instead (evalgate.run.timer). Where only spawning is safe, multiprocessing spawns the
worker (about 0.3 s: it imports evalgate again).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")
CHUNK = 8  # the most targets handed to a worker at a time (fewer round trips)
# A worker is handed its next chunk while it is on the last target it holds, so it never waits for
# the main process between chunks (that main process decides and renders results between them).
LOW_WATER = 2
Method = Literal["fork", "spawn"]


class _Channel(Protocol):
    """One end of a worker's connection: pickled objects both ways (a multiprocessing Connection is one)."""

    def send(self, obj: Any) -> None: ...

    def recv(self) -> Any: ...


def _serve(channel: _Channel, work: Callable[[Any], Any]) -> None:
    """A worker's loop: chunks of (index, target) in, one (index, outcome) out per target as soon as
    it is done (so the parent knows which target is in progress), until None or the pipe closes."""
    while True:
        try:
            chunk = channel.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index, target in chunk:
            channel.send((index, work(target)))


class _Pipes:
    """A channel over two pipe descriptors: each message is its pickle's length (8 bytes), then it."""

    def __init__(self, incoming: int, outgoing: int) -> None:
        self.incoming = incoming
        self.outgoing = outgoing

    def send(self, obj: Any) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(len(data).to_bytes(8, "little") + data)
        while view:
            view = view[os.write(self.outgoing, view) :]

    def recv(self) -> Any:
        return pickle.loads(self._read(int.from_bytes(self._read(8), "little")))

    def _read(self, size: int) -> bytes:
        parts = []
        while size:
            part = os.read(self.incoming, min(size, 1 << 20))
            if not part:
                raise EOFError("the other end closed the pipe")
            parts.append(part)
            size -= len(part)
        return b"".join(parts)

    def close(self) -> None:
        for fd in (self.incoming, self.outgoing):
            with suppress(OSError):
                os.close(fd)


class _Forked:
    """A worker started with os.fork, serving `work` over two pipes."""

    def __init__(self, work: Callable[[Any], Any], inherited: Iterable[int]) -> None:
        down_read, down_write = os.pipe()  # this process -> the worker
        up_read, up_write = os.pipe()  # the worker -> this process
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the caller's code
            code = 1
            try:
                for fd in (down_write, up_read, *inherited):  # no other worker's pipe stays open here
                    os.close(fd)
                _serve(_Pipes(down_read, up_write), work)
                code = 0
            finally:
                os._exit(code)  # no exit functions, no flush of buffers copied from the parent
        os.close(down_read)
        os.close(up_write)
        self.pid = pid
        self.channel = _Pipes(up_read, down_write)
        self._status: int | None = None

    def fileno(self) -> int:
        return self.channel.incoming

    def descriptors(self) -> tuple[int, int]:
        return self.channel.incoming, self.channel.outgoing

    def exit_code(self) -> int | None:
        """Once its pipe has closed: how it ended (-N for signal N), as multiprocessing says it."""
        if self._status is None:
            with suppress(ChildProcessError):
                self._status = os.waitpid(self.pid, 0)[1]
        return None if self._status is None else os.waitstatus_to_exitcode(self._status)

    def kill(self) -> None:
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        self.exit_code()
        self.channel.close()

    def ask_to_stop(self) -> None:
        with suppress(OSError):
            self.channel.send(None)

    def stop(self, grace: float) -> None:
        """Once asked: wait for it to end, killed if it has not within `grace` seconds (its pipe
        closes as it exits)."""
        if select.select([self.channel.incoming], [], [], grace)[0]:
            self.exit_code()
            self.channel.close()
        else:
            self.kill()


class _Spawned:
    """A worker spawned by multiprocessing (a new interpreter that imports evalgate again)."""

    def __init__(self, work: Callable[[Any], Any]) -> None:
        from multiprocessing import get_context

        context = get_context("spawn")
        self.channel, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, work), daemon=True)
        self._process.start()
        child.close()

    def fileno(self) -> int:
        return self.channel.fileno()

    def descriptors(self) -> tuple[int, ...]:
        return (self.channel.fileno(),)

    def exit_code(self) -> int | None:
        self._process.join(1)
        return self._process.exitcode

    def kill(self) -> None:
        self._process.kill()
        self._process.join()
        self.channel.close()

    def ask_to_stop(self) -> None:
        with suppress(OSError):
            self.channel.send(None)

    def stop(self, grace: float) -> None:
        self._process.join(grace)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self.channel.close()


@dataclass
class _Worker(Generic[T]):
    process: _Forked | _Spawned
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
        method: Callable[[], Method],
    ) -> None:
        self._count = count
        self._work = work
        self._budget = budget
        self._timed_out = timed_out  # (target, why) -> the outcome that stands for it
        self._method = method  # asked at each start: a worker started later may need spawn
        self._workers: list[_Worker[T]] = []
        self._leaving: list[_Worker[T]] = []  # asked to stop, not yet waited for

    def _start(self) -> _Worker[T]:
        if self._method() == "fork":
            ours = [fd for w in (*self._workers, *self._leaving) for fd in w.process.descriptors()]
            process: _Forked | _Spawned = _Forked(self._work, ours)
        else:
            process = _Spawned(self._work)
        worker: _Worker[T] = _Worker(process)
        self._workers.append(worker)
        return worker

    def map(self, targets: Sequence[T], *, last: bool = False) -> Iterator[R]:
        """The targets' outcomes, in their order, each yielded as soon as it and those before it are
        back. `last`: no other map follows, so each worker is asked to stop as soon as it has nothing
        left, and ends while the others finish (close() then only waits for it)."""
        pending: deque[tuple[int, T]] = deque(enumerate(targets))
        done: dict[int, R] = {}
        ahead = 0  # the next index to yield
        self._top_up(pending, last=last)
        while ahead < len(targets):
            busy = [w for w in self._workers if w.queue]
            deadline = min(w.since for w in busy) + self._budget
            fds = [w.process.fileno() for w in busy]
            ready, _, _ = select.select(fds, [], [], max(0.0, deadline - time.monotonic()))
            for worker in busy:
                if worker.process.fileno() in ready:
                    self._receive(worker, done, pending)
                elif time.monotonic() - worker.since >= self._budget:
                    self._replace(worker, done, pending, f"took longer than {self._budget:g} s")
            # before the caller gets the outcomes (and decides and renders them), every worker has
            # its next targets
            self._top_up(pending, last=last)
            while ahead in done:
                yield done.pop(ahead)
                ahead += 1

    def _top_up(self, pending: deque[tuple[int, T]], *, last: bool) -> None:
        """Workers started for what is pending, each handed more while it is on its last target;
        with `last` and nothing pending, the idle ones let go."""
        while len(self._workers) < min(self._count, len(pending)):
            self._start()
        for worker in self._workers:
            if len(worker.queue) < LOW_WATER and pending:
                self._hand(worker, pending)
        if last and not pending:
            self._let_go([w for w in self._workers if not w.queue])

    def _hand(self, worker: _Worker[T], pending: deque[tuple[int, T]]) -> None:
        """The worker's next chunk: CHUNK targets while many are left, fewer towards the end (about
        an eighth of what is left per worker, down to one), so that the workers finish together
        rather than one idling while another works through a last chunk of eight."""
        size = max(1, min(CHUNK, len(pending) // (8 * self._count)))
        chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
        if not worker.queue:  # else it is still on its queue's head, started when that began
            worker.since = time.monotonic()
        worker.queue.extend(chunk)
        # A worker may have died since its last outcome (a chunk goes out while it works): its pipe
        # is closed, and _receive then finds it gone and hands its queue, this chunk too, to a new
        # worker, but for the target it died on.
        with suppress(OSError):
            worker.process.channel.send(chunk)

    def _receive(self, worker: _Worker[T], done: dict[int, R], pending: deque[tuple[int, T]]) -> None:
        try:
            index, outcome = worker.process.channel.recv()
        except (EOFError, OSError):  # the worker died: its document is the one it was on
            code = worker.process.exit_code()
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
        self._workers.remove(worker)
        index, target = worker.queue.popleft()
        done[index] = self._timed_out(target, why)
        pending.extendleft(reversed(worker.queue))

    def _let_go(self, idle: list[_Worker[T]]) -> None:
        """Ask idle workers to stop; they end on their own, and close() waits for them."""
        for worker in idle:
            worker.process.ask_to_stop()
            self._workers.remove(worker)
            self._leaving.append(worker)

    def close(self) -> None:
        """Ask every worker to stop, then make sure it has: one still busy (the run was interrupted)
        is killed."""
        busy = [w for w in self._workers if w.queue]
        self._let_go([w for w in self._workers if not w.queue])
        for worker in self._leaving:
            worker.process.stop(5)
        for worker in busy:
            worker.process.kill()
        self._workers, self._leaving = [], []
