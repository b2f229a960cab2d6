"""The frozen data that crosses module boundaries.

Every stage of the pipeline hands the next one values from this module: a check or a judge produces
`DimensionResult`s, a backend produces `Reply`s, the gate turns a file's dimension results into a
`FileResult`, and the run collects those into a `Report`. Nothing here does any work; it is data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from evalgate.rubric import CalibrationStatus

# Defined with the rest of the accounting in evalgate.usage; most of the package imports them from here.
from evalgate.usage import JudgeCall as JudgeCall
from evalgate.usage import RunBudget, Usage

if TYPE_CHECKING:  # what a judge gave: imported by a run that judges (evalgate.judgement)
    from evalgate.judgement import Evidence, JudgeScore

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
    # neither PASS nor FAIL: the run's `budget:` was spent before the file's judges were asked (a file
    # the structural checks fail outright is FAIL all the same). The run fails on it unless
    # `on-budget: skip`; the check run's conclusion is then `neutral` (docs/action.md).
    NOT_JUDGED = "NOT_JUDGED"


@dataclass(frozen=True)
class Finding:
    """One problem a dimension found, anchored to 1-based lines of the original file.

    A notice (`notice=True`) is worth a reader's look but did not lower the score: a check reports
    it beside its findings (e.g. a Sources box that contradicts the body), and reports show it as a
    notice (the check run's `notice` annotation level, SARIF `note`), whatever the dimension scored.

    `rule` names which of its dimension's rules the finding breaks (`unexpanded`, `missing_section`),
    set by the check. With the dimension and the message it makes the finding's fingerprint, which
    `gate-on: new` compares with the base version's (evalgate/gate/compare.py): `key`, when the check sets
    it, stands in for the message there (a message that numbers or counts things, "Key Finding 3
    has 12 words", whose numbers move when a line is inserted). `anchor` is a digest of the text of
    the lines the finding points at (set by `checks.run_check`), used only to tell which of several
    findings with one fingerprint are the new ones. `existed`: the base version had this finding,
    so under `gate-on: new` it is reported as a notice ("existed before this change").
    """

    line: int
    message: str
    end_line: int | None = None
    notice: bool = False
    rule: str = ""
    key: str | None = None
    anchor: str = field(default="", compare=False)
    existed: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "message": self.message}
        if self.end_line is not None and self.end_line != self.line:
            out["end_line"] = self.end_line
        if self.notice:
            out["level"] = "notice"
        if self.rule:
            out["rule"] = self.rule
        if self.existed:
            out["existed"] = True
        return out


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


class Rule(StrEnum):
    """The gate's rules, each named by the rubric key (or configuration key) that sets it (the JSON's
    `rule`)."""

    HARD_FAIL = "hard_fail"  # a hard-fail dimension below `hard_fail_below`
    FAIL_ON_SCORE = "fail_on_score"  # "any 1": a dimension at or below `fail_on_score`
    MIN_EACH = "min_each"  # the floor every dimension must reach
    MIN_MEAN = "min_mean"  # the mean the file (or the ensemble) must reach
    STRICT_PASS = "strict_pass"  # ensemble: enough judges' means reach `strict_pass_mean`
    TRIO_FAIL = "trio_fail"  # ensemble: `fail_judges` judges' means below `fail_below`
    CRITICAL_FAIL = "critical_fail"  # ensemble: a majority of judges' means below `critical_fail_below`
    ENSEMBLE_ERROR = "ensemble_error"  # several judges, and some could not score a dimension
    JUDGE_ERROR = "judge_error"  # the one judge could not score a dimension
    CHECK_ERROR = "check_error"  # a deterministic check failed to run: the verdict is ERROR
    NOTHING_EVALUATED = "nothing_evaluated"
    FILE_ERROR = "file_error"  # the file could not be read or parsed
    BUDGETS = "budgets"  # `budgets:` with `over-budget: fail`: the file took more time or money than allowed
    BUDGET = "budget"  # the run's `budget:` was spent before the file was judged (NOT_JUDGED)


@dataclass(frozen=True)
class RuleCheck:
    """One rule of the gate applied to one file: whether the file passed it, and why, in words.

    `text` ("trio FAIL: 2 of 3 judges' means are below 3 (...)") is the full sentence; `brief`
    ("trio FAIL: 2 of 3 judges < 3") fits a table cell. A rule about one dimension names it."""

    rule: Rule
    name: str  # as reports name the rule: "hard fail", "any 1", "floor", "mean", "trio FAIL", ...
    passed: bool
    detail: str
    brief: str
    dimension: str | None = None

    @property
    def text(self) -> str:
        return f"{self.name}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule.value,
            "name": self.name,
            "passed": self.passed,
            "text": self.text,
            "brief": self.brief,
        }
        if self.dimension is not None:
            out["dimension"] = self.dimension
        return out


@dataclass(frozen=True)
class Decision:
    """Why the gate decided a file as it did, as data every report renders from.

    `checks` holds every rule the gate applied, failed ones once per dimension they caught;
    `decided_by` is what decided: the failed checks, or, for a pass, every check passed. `mean_of`
    says what the file's `mean` is: the mean of its scored dimensions, or with several judges heard
    the ensemble's mean of each judge's mean (`judge_means`). A binary rubric (a 0-1 scale) counts
    `criteria` met instead."""

    checks: tuple[RuleCheck, ...]
    scale: tuple[int, int] = (1, 5)
    mean_of: Literal["dimensions", "judges"] = "dimensions"
    judge_means: tuple[tuple[str, float], ...] = ()
    criteria: tuple[int, int] | None = None  # (met, total) on a binary rubric
    failing: tuple[str, ...] = ()  # the dimensions the rules counted against the file

    @property
    def binary(self) -> bool:
        return self.scale[1] - self.scale[0] == 1

    @property
    def failed(self) -> tuple[RuleCheck, ...]:
        return tuple(c for c in self.checks if not c.passed)

    @property
    def decided_by(self) -> tuple[RuleCheck, ...]:
        return self.failed or self.checks

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "decided_by": list(dict.fromkeys(c.rule.value for c in self.decided_by)),
            "checks": [c.to_json() for c in self.checks],
            "scale": list(self.scale),
            "mean_of": self.mean_of,
            "failing": list(self.failing),
        }
        if self.judge_means:
            out["judge_means"] = {label: round(m, 4) for label, m in self.judge_means}
        if self.criteria is not None:
            out["criteria"] = {"met": self.criteria[0], "total": self.criteria[1]}
        return out


GateOnMode = Literal["new", "all"]


@dataclass(frozen=True)
class AgainstBase:
    """A file judged under `gate-on: new`: what it was compared with at the base commit, and what
    the change made worse (evalgate/gate/compare.py decides it).

    `new` counts the findings the base version does not have, `existing` those it has too (reported
    as notices). `existed_rules` are the rules the file fails that its base version failed as well,
    and no worse: reported, never counted. `base_path` is the document's path at the base commit
    (another path for a rename); None when it has no version there, and then `note` says why and
    every finding is new. `base_calls` are the judge calls that scored the base version."""

    base_sha: str
    base_path: str | None
    new: int = 0
    existing: int = 0
    base_mean: float | None = None
    base_scores: tuple[tuple[str, int | None], ...] = ()
    existed_rules: tuple[RuleCheck, ...] = ()
    note: str | None = None
    base_calls: tuple[JudgeCall, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mode": "new",
            "base": self.base_sha,
            "base_path": self.base_path,
            "new_findings": self.new,
            "existing_findings": self.existing,
            "base_mean": None if self.base_mean is None else round(self.base_mean, 3),
            "base_scores": dict(self.base_scores),
            "existed_rules": [c.to_json() for c in self.existed_rules],
        }
        if self.note is not None:
            out["note"] = self.note
        if self.base_calls:
            out["base_judges"] = [j.to_json() for j in self.base_calls]
        return out


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
    reasons: tuple[str, ...] = ()  # why the gate decided as it did, in words (the failed checks' texts)
    decision: Decision | None = None  # the same, as data (None on results made without the gate)
    against_base: AgainstBase | None = None  # under `gate-on: new`: the comparison that decided
    # the wall-clock time of the file's own steps: its structural pass plus each judge call's, added
    # (not the time it waited for a worker or a call slot); None when not measured
    wall_ms: float | None = None
    # judged rules the file failed that did not count against it: `require-calibration` with no
    # current calibration (the verdict is then the structural checks'); reports show them as such
    uncounted: tuple[RuleCheck, ...] = ()
    # what went over a per-document budget (`budgets:`): "412 s, over the budget of 300 s per document"
    over_budget: tuple[str, ...] = ()

    @property
    def usage(self) -> Usage:
        """What judging this file used (its judges' calls added up)."""
        return Usage.of(self.judges)

    @property
    def skipped(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.dimensions if d.status is Status.SKIPPED)

    @property
    def failing_dimensions(self) -> tuple[DimensionResult, ...]:
        """The dimensions the gate's rules counted against the file (without a decision: those in
        error, hard-failed or below 3 on the 1-5 scale)."""
        if self.decision is not None:
            failing = set(self.decision.failing)
            return tuple(d for d in self.dimensions if d.id in failing)
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
        if self.decision is not None:
            out["decision"] = self.decision.to_json()
        if self.against_base is not None:
            out["gate_on"] = self.against_base.to_json()
        if self.wall_ms is not None:
            out["wall_ms"] = round(self.wall_ms, 1)
        if self.judges:
            out["usage"] = self.usage.to_json()
        if self.uncounted:
            out["uncounted"] = [c.to_json() for c in self.uncounted]
        if self.over_budget:
            out["over_budget"] = list(self.over_budget)
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
    """What scored a run: the rubric's id and version, and (when judges ran) the prompt version, a
    hash over the judge template and every template it includes (see judging.prompt)."""

    id: str
    version: str
    prompt: str | None = None
    # (judged dimension, the deterministic check that also computes it): the rubric's `mechanical:`
    # links, the only pairs where a judge can be compared with a check (rubric health)
    mechanical: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """`research-loop version e8e3b0209f64` (`, prompt 158118978994` when judged)."""
        prompt = f", prompt {self.prompt}" if self.prompt is not None else ""
        return f"{self.id} version {self.version}{prompt}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "version": self.version}
        if self.prompt is not None:
            out["prompt"] = self.prompt
        if self.mechanical:
            out["mechanical"] = dict(self.mechanical)
        return out


@dataclass(frozen=True)
class GateOn:
    """Which findings a run's verdicts count (`gate-on`), and why that mode: `new`, what the change
    made worse against `base_sha`; `all`, every finding (evalgate/gate/compare.py)."""

    mode: GateOnMode
    why: str  # "the default on pull_request", "the gate-on input", "gate-on in .evalgate.yml", ...
    base_sha: str | None = None

    def describe(self) -> str:
        """`gate-on: new (the default on pull_request), against base commit 1a2b3c4d5e6f`."""
        against = f", against base commit {self.base_sha[:12]}" if self.base_sha else ""
        return f"gate-on: {self.mode} ({self.why}){against}"


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
    # which findings the verdicts count (None: not stated, every finding, as `evalgate check` by default)
    gate_on: GateOn | None = None
    wall_ms: float | None = None  # the run's wall-clock time, start to report (None: not measured)
    calibration: CalibrationStatus | None = None  # what the `calibration:` record says, when configured
    budget: RunBudget | None = None  # the run's `budget:` and whether judging stopped at it

    @property
    def verdict(self) -> Verdict:
        if any(r.verdict is Verdict.ERROR for r in self.results):
            return Verdict.ERROR
        if any(r.verdict is Verdict.FAIL for r in self.results):
            return Verdict.FAIL
        if any(r.verdict is Verdict.NOT_JUDGED for r in self.results):
            return Verdict.NOT_JUDGED
        return Verdict.PASS

    @property
    def usage(self) -> Usage:
        """What the run's judging used, every file's judges added up (with their base versions')."""
        calls = [j for r in self.results for j in r.judges]
        # under `gate-on: new`, the base versions' calls are the run's too
        calls += [j for r in self.results if r.against_base for j in r.against_base.base_calls]
        return Usage.of(calls)

    def summary(self) -> dict[str, Any]:
        counts = {v.value: sum(1 for r in self.results if r.verdict is v) for v in Verdict}
        skipped = sorted({d for r in self.results for d in r.skipped})
        unverified = sum(d.unverified_evidence for r in self.results for d in r.dimensions)
        usage = self.usage
        cost = usage.cost_usd.total
        out: dict[str, Any] = {
            "verdict": self.verdict.value,
            "evaluated": len(self.results),
            "passed": counts["PASS"],
            "failed": counts["FAIL"],
            "errors": counts["ERROR"],
            "not_judged": counts["NOT_JUDGED"],
            "skipped_dimensions": skipped,
            "unverified_evidence": unverified,
            "judge_calls": usage.calls,
            "cached_judgements": usage.cached,
            # totals, or null when a call did not report them (`usage` has the part that is known)
            "tokens_in": None if usage.tokens_in.total is None else int(usage.tokens_in.known),
            "tokens_out": None if usage.tokens_out.total is None else int(usage.tokens_out.known),
            "cost_usd": None if cost is None else round(cost, 6),
            "usage": usage.to_json(),
            "wall_ms": None if self.wall_ms is None else round(self.wall_ms, 1),
            "over_budget": sum(1 for r in self.results if r.over_budget),
            "uncounted_judged_failures": sum(1 for r in self.results if r.uncounted),
            "notes": list(self.notes),
        }
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_json()
        if self.budget is not None:
            out["budget"] = self.budget.to_json()
        if self.gate_on is not None:
            out["gate_on"] = self.gate_on_summary()
        return out

    def gate_on_summary(self) -> dict[str, Any]:
        """The mode, why, the base commit and (under `new`) how many findings are new and how many
        existed before this change, over every file compared."""
        assert self.gate_on is not None
        out: dict[str, Any] = {"mode": self.gate_on.mode, "why": self.gate_on.why}
        if self.gate_on.mode == "new":
            compared = [r.against_base for r in self.results if r.against_base is not None]
            out["base"] = self.gate_on.base_sha
            out["new_findings"] = sum(c.new for c in compared)
            out["existing_findings"] = sum(c.existing for c in compared)
        return out

    def to_json(self, *, results: list[Any] | None = None) -> dict[str, Any]:
        """`results`: what to put in place of the results' own to_json() (the JSON report's lines,
        rendered while the run went on)."""
        out: dict[str, Any] = {
            "rubric": self.rubric.to_json(),
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
    """The exit code a workflow can trust: 0 only when the report's verdict is PASS, or NOT_JUDGED
    under `on-budget: skip` (files the budget left unjudged, none failed)."""
    if report.verdict is Verdict.NOT_JUDGED:
        skip = report.budget is not None and report.budget.on_budget == "skip"
        return EXIT_PASS if skip else EXIT_FAIL
    return EXIT_PASS if report.verdict is Verdict.PASS else EXIT_FAIL
