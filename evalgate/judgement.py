"""What a judge gave back: the backend's `Reply` to one prompt (with the usage its vendor reported),
each judge's `JudgeScore` for a dimension, and the `Evidence` quotes it gave, checked against the
document. A judged `DimensionResult` (evalgate.results) holds the scores and the quotes.

Its own module, because a run without a judge never makes any of them: Python 3.11 creates a frozen
dataclass by compiling each of its methods, ~0.4 ms a class, and a one-file check imports only the
types it uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What a judge backend returns for one prompt, with the usage its vendor reported (None: not
    reported). `attempts` counts the calls made for it, retried ones included; `latency_ms` runs
    from the first attempt to this reply."""

    text: str
    model: str
    latency_ms: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    premium_requests: float | None = None  # Copilot premium requests, multipliers applied
    credits: float | None = None  # Copilot AI credits (1 credit = $0.01 under usage-based billing)
    attempts: int = 1


@dataclass(frozen=True)
class Evidence:
    """A verbatim quote a judge gave as evidence, and whether it was found in the document."""

    quote: str
    verified: bool
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"quote": self.quote, "verified": self.verified, "line": self.line}


@dataclass(frozen=True)
class JudgeScore:
    """One judge's score for one dimension (kept per judge so ensembles and agreement can use it),
    and where the dimension stood in the criteria list that judge was shown (1 = first), so a
    position effect can be measured."""

    judge: str
    score: int | None
    error: str | None = None
    position: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"judge": self.judge, "score": self.score, "error": self.error}
        if self.position is not None:
            out["position"] = self.position
        return out
