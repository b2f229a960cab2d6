"""One document's structural pass in this process, under its time budget: an interval timer.

Takes the same `work`, budget and time-out outcome as evalgate.run.workers.Workers, and the same
targets; gives their outcomes in order. It is what a run of one file uses (a pre-commit hook, a
judged file): a forked worker process cost that run ~9 ms, two thirds of it copying the pages the
worker wrote, which it shared with this process.

The timer stops what a document can make run long: the interpreter runs a signal's handler between
bytecodes, and CPython's regular expression engine looks for signals as it matches (3.11, the
oldest Python evalgate runs on, stops the pattern that hung an 88-byte row within the budget:
tests/test_document_budget.py), so a pattern that backtracks without end is stopped too. The
handler raises `OverBudget`, a BaseException, which passes the `except Exception` that turns a
check's own failure into an error on its dimension. C code that does not look for signals is not
stopped: on a document's pass that is linear work on a file of at most `max-file-mb` (a string's
methods, libyaml on at most 64 KB of front matter). A stopped pass may leave a module-level memo
half filled, and this process does read other documents after it (a judged run of a few files, a
base version under `gate-on: new`): the memos the checks keep are keyed by their whole input and
written in one step, so a half-done pass leaves an entry missing, never a wrong one. Measured: 210
passes stopped at random points, each followed by a corpus item in the same process, gave that
item's result as read alone every time (the 2026-12-04 review of the new surfaces).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")
V = TypeVar("V")


class OverBudget(BaseException):
    """The document's time is up (raised by the timer's handler in the main thread)."""


def usable() -> bool:
    """Whether this process can time a document itself: in its main thread (the only one signals reach),
    with SIGALRM's handler not already someone else's."""
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    )


class Timed(Generic[T, R]):
    """`work` on each target in this process, each within `budget` seconds (see the module's doc)."""

    def __init__(self, work: Callable[[T], R], budget: float, timed_out: Callable[[T, str], R]) -> None:
        self._work = work
        self.budget = budget
        self._timed_out = timed_out
        self._running = False  # the handler raises only while timed work runs

    def _alarm(self, _signal: int, _frame: FrameType | None) -> None:
        if self._running:
            raise OverBudget

    def map(self, targets: Sequence[T], *, last: bool = False) -> Iterator[R]:
        """The targets' outcomes, in their order (`last`, as Workers.map takes it: no process to stop)."""
        for target in targets:
            done, outcome = self.within(self.budget, self._work, target)
            yield cast(R, outcome) if done else self.timed_out(target)

    def timed_out(self, target: T) -> R:
        """What stands for a target whose time ran out."""
        return self._timed_out(target, f"took longer than {self.budget:g} s")

    def within(self, seconds: float, work: Callable[..., V], *args: Any) -> tuple[bool, V | None]:
        """(True, `work(*args)`) when it returns within `seconds`, else (False, None), the work
        stopped where it was."""
        if seconds <= 0:  # (a timer of 0 is no timer)
            return False, None
        previous = signal.signal(signal.SIGALRM, self._alarm)
        try:
            try:
                self._running = True
                signal.setitimer(signal.ITIMER_REAL, seconds)
                value = work(*args)
                self._running = False
            finally:
                self._running = False
                signal.setitimer(signal.ITIMER_REAL, 0)
        except OverBudget:  # also when it lands in the `finally` above, before the timer is off
            return False, None
        finally:
            signal.signal(signal.SIGALRM, previous)
        return True, value

    def close(self) -> None:
        """Nothing to stop (the same interface as Workers)."""
