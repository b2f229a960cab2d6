"""The run's judging budget (`budget:` in .evalgate.yml): calls or dollars per run.

Every judgement's first call asks the budget for admission while it holds its call slot, and each
call is counted, with the dollars it reported, before it gives the slot back: a call is admitted
while the calls made stay below the call budget and the dollars spent stay below the dollar budget.
So a call budget admits exactly that many judgements, and with one call in flight (`--jobs 1`) a
dollar budget admits the same number on every run; which documents they are follows the order the
calls reach their slots, which the judge threads do not fix.
Once either is reached nothing more is admitted, and the run reports each document whose judges
were refused as "not judged: budget reached" (`evalgate.run`). A judgement's repair call, and a
backend's retries, belong to a call that was admitted and are not refused (so the budget may be
passed by a call per judgement in flight); they are counted all the same. The dollars a call of
unknown cost spent cannot be counted: the report says how many calls that was.
"""

from __future__ import annotations

import threading

from evalgate.usage import RunBudget


class BudgetReached(Exception):
    """Raised inside a judgement whose first call the budget refused."""


class JudgingBudget:
    """Admission to judge calls while the run's budget lasts (thread-safe)."""

    def __init__(self, calls: int | None, usd: float | None) -> None:
        self.calls = calls
        self.usd = usd
        self.calls_made = 0
        self.usd_spent = 0.0
        self.unknown_cost_calls = 0
        self.reached = False
        self._lock = threading.Lock()

    def admit(self) -> bool:
        """Whether one more judgement may make its first call (counted here when it may)."""
        with self._lock:
            if self.calls is not None and self.calls_made >= self.calls:
                self.reached = True
            if self.usd is not None and self.usd_spent >= self.usd:
                self.reached = True
            if self.reached:
                return False
            self.calls_made += 1
            return True

    def spent(self, attempts: int, cost_usd: float | None, *, admitted: bool) -> None:
        """Count a finished call: its `attempts` (less the one `admit` counted, when it was admitted)
        and the dollars it reported (None: unknown)."""
        with self._lock:
            self.calls_made += max(0, attempts - (1 if admitted else 0))
            if cost_usd is None:
                self.unknown_cost_calls += attempts
            else:
                self.usd_spent += cost_usd

    def outcome(self, on_budget: str, not_judged: int) -> RunBudget:
        """What the report says about the budget at the end of the run."""
        return RunBudget(
            calls=self.calls,
            usd=self.usd,
            on_budget="skip" if on_budget == "skip" else "fail",
            calls_made=self.calls_made,
            usd_spent=self.usd_spent,
            reached=self.reached,
            not_judged=not_judged,
            unknown_cost_calls=self.unknown_cost_calls,
        )
