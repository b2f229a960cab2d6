"""The frozen data that crosses module boundaries.

Every stage of the pipeline hands the next one values from this module: a check or a judge produces
`DimensionResult`s, a backend produces `Reply`s, the gate turns a file's dimension results into a
`FileResult`, and the run collects those into a `Report`. Nothing here does any work; it is data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

DimensionKind = Literal["deterministic", "judge"]


class Status(StrEnum):
    """Whether a dimension produced a score."""

    SCORED = "scored"
    SKIPPED = "skipped"  # not evaluated (e.g. no judge configured); the verdict is over the rest
    ERROR = "error"  # the check or judge failed; the reason is in `error`


class Verdict(StrEnum):
    """The outcome for one file, or for a whole run."""

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


@dataclass(frozen=True)
class Finding:
    """One problem a dimension found, anchored to 1-based lines of the original file.

    A notice (`notice=True`) is worth a reader's look but did not lower the score: a check reports
    it beside its findings (e.g. a Sources box that contradicts the body), and reports show it as a
    notice (the check run's `notice` annotation level, SARIF `note`), whatever the dimension scored.
    """

    line: int
    message: str
    end_line: int | None = None
    notice: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "message": self.message}
        if self.end_line is not None and self.end_line != self.line:
            out["end_line"] = self.end_line
        if self.notice:
            out["level"] = "notice"
        return out


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
    """One judge's score for one dimension (kept per judge so ensembles and agreement can use it)."""

    judge: str
    score: int | None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "score": self.score, "error": self.error}


@dataclass(frozen=True)
class DimensionResult:
    """The one result shape for a dimension, whether a deterministic check or a judge supplied it."""

    id: str
    kind: DimensionKind
    status: Status
    score: int | None = None
    findings: tuple[Finding, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    reasoning: str | None = None
    error: str | None = None
    hard_fail: bool = False
    judge_scores: tuple[JudgeScore, ...] = ()

    @property
    def unverified_evidence(self) -> int:
        return sum(1 for e in self.evidence if not e.verified)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "score": self.score,
            "status": self.status.value,
            "hard_fail": self.hard_fail,
            "findings": [f.to_json() for f in self.findings],
            "error": self.error,
        }
        if self.kind == "judge":
            out["evidence"] = [e.to_json() for e in self.evidence]
            out["reasoning"] = self.reasoning
            if self.judge_scores:
                out["judge_scores"] = [s.to_json() for s in self.judge_scores]
        return out


@dataclass(frozen=True)
class Reply:
    """What a judge backend returns for one prompt."""

    text: str
    model: str
    latency_ms: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None


@dataclass(frozen=True)
class JudgeCall:
    """Accounting for one judge's work on one file (all attempts, including a repair retry)."""

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

    def to_json(self) -> dict[str, Any]:
        return {
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
        }


@dataclass(frozen=True)
class FileResult:
    """The verdict on one file, with every dimension that led to it."""

    path: str
    verdict: Verdict
    mean: float | None = None
    hard_failures: tuple[str, ...] = ()
    error: str | None = None
    dimensions: tuple[DimensionResult, ...] = ()
    seed: int | None = None
    judges: tuple[JudgeCall, ...] = ()
    warnings: tuple[str, ...] = ()
    band: str | None = None
    reasons: tuple[str, ...] = ()  # why the gate decided as it did, in words

    @property
    def skipped(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.dimensions if d.status is Status.SKIPPED)

    @property
    def failing_dimensions(self) -> tuple[DimensionResult, ...]:
        return tuple(
            d
            for d in self.dimensions
            if d.status is Status.ERROR or d.id in self.hard_failures or (d.score is not None and d.score < 3)
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "verdict": self.verdict.value,
            "mean": None if self.mean is None else round(self.mean, 3),
            "hard_failures": list(self.hard_failures),
            "skipped": list(self.skipped),
            "error": self.error,
            "dimensions": [d.to_json() for d in self.dimensions],
            "seed": self.seed,
            "judges": [j.to_json() for j in self.judges],
            "warnings": list(self.warnings),
            "reasons": list(self.reasons),
        }
        if self.band is not None:
            out["band"] = self.band
        return out


@dataclass(frozen=True)
class NotEvaluated:
    """A changed file the run did not evaluate, and why (deleted, not matched by the paths glob, ...)."""

    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


@dataclass(frozen=True)
class RubricRef:
    id: str
    version: str


@dataclass(frozen=True)
class Report:
    """Everything one run decided: the rubric it used and a result per file."""

    rubric: RubricRef
    results: tuple[FileResult, ...]
    judges: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    agreement: dict[str, Any] = field(default_factory=dict)  # per judged dimension, with 2+ judges
    shard: str | None = None  # "i/n" when this report covers one shard of a run
    # on a pull request judged by its base's policy: what the pull request would change in it
    policy_changes: tuple[str, ...] = ()
    # in the action: the changed files under the root of `paths` that were not evaluated, with the reason
    not_evaluated: tuple[NotEvaluated, ...] = ()

    @property
    def verdict(self) -> Verdict:
        if any(r.verdict is Verdict.ERROR for r in self.results):
            return Verdict.ERROR
        if any(r.verdict is Verdict.FAIL for r in self.results):
            return Verdict.FAIL
        return Verdict.PASS

    def summary(self) -> dict[str, Any]:
        counts = {v.value: sum(1 for r in self.results if r.verdict is v) for v in Verdict}
        skipped = sorted({d for r in self.results for d in r.skipped})
        unverified = sum(d.unverified_evidence for r in self.results for d in r.dimensions)
        calls = [j for r in self.results for j in r.judges]
        return {
            "verdict": self.verdict.value,
            "evaluated": len(self.results),
            "passed": counts["PASS"],
            "failed": counts["FAIL"],
            "errors": counts["ERROR"],
            "skipped_dimensions": skipped,
            "unverified_evidence": unverified,
            "judge_calls": sum(j.calls for j in calls),
            "cached_judgements": sum(1 for j in calls if j.cached),
            "tokens_in": sum(j.tokens_in or 0 for j in calls),
            "tokens_out": sum(j.tokens_out or 0 for j in calls),
            "cost_usd": round(sum(j.cost_usd or 0.0 for j in calls), 6),
            "notes": list(self.notes),
        }

    def to_json(self, *, results: list[Any] | None = None) -> dict[str, Any]:
        """`results`: what to put in place of the results' own to_json() (the JSON report's lines,
        rendered while the run went on)."""
        out: dict[str, Any] = {
            "rubric": {"id": self.rubric.id, "version": self.rubric.version},
            "judges": list(self.judges),
            "results": [r.to_json() for r in self.results] if results is None else results,
            "summary": self.summary(),
        }
        if self.agreement:
            out["agreement"] = self.agreement
        if self.shard:
            out["shard"] = self.shard
        if self.policy_changes:
            out["policy_changes"] = list(self.policy_changes)
        if self.not_evaluated:
            out["not_evaluated"] = [entry.to_json() for entry in self.not_evaluated]
        return out


# Exit codes of every evaluating command: 0 every file passed; 1 any file failed or could not be
# evaluated; 2 usage or configuration error.
EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def exit_code(report: Report) -> int:
    """The exit code a workflow can trust: 0 only when the report's verdict is PASS."""
    return EXIT_PASS if report.verdict is Verdict.PASS else EXIT_FAIL
