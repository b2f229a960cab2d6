"""What judging used: calls, tokens, dollars, Copilot premium requests and AI credits, per judge call,
per document and per run.

A backend returns each `Reply` (evalgate.judgement) with what its vendor reported; a judge's work on
one file is one `JudgeCall`; `Usage.of(calls)` adds them up for a document or a run. An amount a call
did not report is unknown, never zero: `Amount` keeps the sum of the calls that reported it apart from
the number of calls that did not, so a total is only a total when nothing is missing, and otherwise
reads "at least $X (N calls of unknown cost)". A judgement answered from the cache made no call and
cost nothing.

Premium requests and AI credits are what the Copilot CLI bills in; they are counted over the
`copilot` backend's calls only (another backend has none to report).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import fsum
from typing import Any, Literal

# Backends whose calls are billed in Copilot premium requests and AI credits.
COPILOT_BILLED = frozenset({"copilot"})


@dataclass(frozen=True)
class JudgeCall:
    """Accounting for one judge's work on one file (all attempts, including a repair retry).

    Each amount is the total over the judge's calls for the file, or None when any of them did not
    report it (or failed: a failed call may still have been billed). `calls` counts the calls made
    (0 when the cache answered); `budget_refused` says the run's `budget:` was spent before this
    judge was asked."""

    backend: str
    model: str
    latency_ms: float = 0.0
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    overall_claimed: str | None = None  # "PASS" | "FAIL" | None: the judge's own claim, never decisive
    cached: bool = False
    calls: int = 0
    error: str | None = None
    criteria_order: tuple[str, ...] = ()  # the judged dimensions in the order the prompt listed them
    premium_requests: float | None = None
    credits: float | None = None
    budget_refused: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "backend": self.backend,
            "model": self.model,
            "latency_ms": round(self.latency_ms, 1),
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "overall_claimed": self.overall_claimed,
            "cached": self.cached,
            "calls": self.calls,
            "error": self.error,
            "criteria_order": list(self.criteria_order),
        }
        if self.backend in COPILOT_BILLED:
            out["premium_requests"] = self.premium_requests
            out["credits"] = self.credits
        if self.budget_refused:
            out["budget_refused"] = True
        return out


def total(values: Iterable[float | int | None]) -> float | None:
    """The sum, or None when any value is unknown (a partial sum is not a total)."""
    present = []
    for value in values:
        if value is None:
            return None
        present.append(value)
    return fsum(present)


@dataclass(frozen=True)
class Amount:
    """An amount summed over calls: what the calls that reported it add up to, and how many did not."""

    known: float = 0.0
    unknown_calls: int = 0

    @property
    def total(self) -> float | None:
        """The total, or None when some call's amount is unknown (then `known` is a lower bound)."""
        return None if self.unknown_calls else self.known

    def plus(self, value: float | None, calls: int) -> Amount:
        """This amount with `calls` more calls whose amount together is `value` (None: unknown)."""
        if value is None:
            return Amount(self.known, self.unknown_calls + calls)
        return Amount(self.known + value, self.unknown_calls)

    def to_json(self, digits: int = 6) -> dict[str, Any]:
        rounded: float | int = round(self.known, digits) if digits else int(self.known)
        return {
            "total": None if self.unknown_calls else rounded,
            "at_least": rounded,
            "unknown_calls": self.unknown_calls,
        }


@dataclass(frozen=True)
class Usage:
    """What a document's or a run's judging used, from its judge calls."""

    calls: int = 0
    cached: int = 0  # judgements the cache answered (no call made)
    tokens_in: Amount = Amount()
    tokens_out: Amount = Amount()
    cost_usd: Amount = Amount()
    premium_requests: Amount = Amount()  # over calls billed by Copilot only
    credits: Amount = Amount()
    copilot_calls: int = 0
    latency_ms: float = 0.0  # the calls' own time, added

    @classmethod
    def of(cls, calls: Iterable[JudgeCall]) -> Usage:
        usage = cls()
        for call in calls:
            usage = usage.plus(call)
        return usage

    def plus(self, call: JudgeCall) -> Usage:
        """This usage with one more judge's work on one file."""
        n = call.calls
        copilot = call.backend in COPILOT_BILLED
        return Usage(
            calls=self.calls + n,
            cached=self.cached + (1 if call.cached else 0),
            tokens_in=self.tokens_in.plus(call.tokens_in, n),
            tokens_out=self.tokens_out.plus(call.tokens_out, n),
            cost_usd=self.cost_usd.plus(call.cost_usd, n),
            premium_requests=(
                self.premium_requests.plus(call.premium_requests, n) if copilot else self.premium_requests
            ),
            credits=self.credits.plus(call.credits, n) if copilot else self.credits,
            copilot_calls=self.copilot_calls + (n if copilot else 0),
            latency_ms=self.latency_ms + call.latency_ms,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "calls": self.calls,
            "cached": self.cached,
            "tokens_in": self.tokens_in.to_json(0),
            "tokens_out": self.tokens_out.to_json(0),
            "cost_usd": self.cost_usd.to_json(),
        }
        if self.copilot_calls:
            out["premium_requests"] = self.premium_requests.to_json(4)
            out["credits"] = self.credits.to_json(4)
        return out


@dataclass(frozen=True)
class RunBudget:
    """The run's `budget:` (calls or dollars per run), what it spent, and whether judging stopped at it.

    Calls are counted as they start; dollars from the calls that have finished and reported a cost
    (a call of unknown cost adds nothing it could be shown to have spent, and the report says how
    many there were). `not_judged`: the documents whose judges were not asked once it was reached."""

    calls: int | None
    usd: float | None
    on_budget: Literal["fail", "skip"]
    calls_made: int = 0
    usd_spent: float = 0.0
    reached: bool = False
    not_judged: int = 0
    unknown_cost_calls: int = 0  # calls that reported no cost: a dollar budget could not count them

    def limits(self) -> str:
        """`200 calls`, `$5.00`, or both."""
        parts = []
        if self.calls is not None:
            parts.append(f"{self.calls} call{'s' if self.calls != 1 else ''}")
        if self.usd is not None:
            parts.append(f"${self.usd:.2f}")
        return " or ".join(parts)

    def describe(self) -> str:
        """One sentence for every report."""
        if not self.reached:
            text = f"judging budget {self.limits()} per run: not reached"
        else:
            skipped = "they do not fail the run (on-budget: skip)"
            outcome = "the run fails" if self.on_budget == "fail" else skipped
            text = (
                f"judging budget reached ({self.limits()} per run): "
                f"{self.not_judged} document(s) not judged; {outcome}"
            )
        if self.usd is not None and self.unknown_cost_calls:
            text += (
                f" (the dollar budget counted only calls of known cost: {self.unknown_cost_calls} call(s) "
                "reported none; set `prices:` for their model)"
            )
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "usd": self.usd,
            "on_budget": self.on_budget,
            "calls_made": self.calls_made,
            "usd_spent": round(self.usd_spent, 6),
            "reached": self.reached,
            "not_judged": self.not_judged,
            "unknown_cost_calls": self.unknown_cost_calls,
        }
