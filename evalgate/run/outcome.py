"""After the gate: what a file's verdict becomes when the run's budget left it unjudged, when its
judges are not calibrated and the run requires them to be, and when it went over a per-document
budget; and how long it took.

- **Not judged** (`budget:` reached before a file's judges were asked, any one of them): the file is
  decided on its structural checks alone. A failure no judge could change (a hard fail, an "any 1",
  a floor on a structural dimension) is a FAIL as ever; otherwise the verdict is NOT_JUDGED, neither
  PASS nor FAIL, and the decision says why (rule `budget`).
- **Not counted** (`require-calibration` without a current calibration): the verdict is the
  structural checks', and the rules the judged scores failed are kept as `uncounted`, shown in
  every report beside it.
- **Over budget** (`budgets:`): a file whose time or dollars pass the budget per document is flagged;
  with `over-budget: fail` it fails (rule `budgets`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from evalgate.config import Config, DocumentBudgets
from evalgate.gate import decide
from evalgate.report.usage import seconds as shown
from evalgate.results import (
    CalibrationStatus,
    Decision,
    DimensionResult,
    FileResult,
    JudgeCall,
    Report,
    RubricRef,
    Rule,
    RuleCheck,
    Status,
    Verdict,
)
from evalgate.rubric import Rubric
from evalgate.usage import RunBudget

if TYPE_CHECKING:
    from evalgate.judging.budget import JudgingBudget


def wall_ms(structural_ms: float | None, calls: Sequence[JudgeCall]) -> float | None:
    """A file's own time: its structural pass and each judge call's, added."""
    if structural_ms is None:
        return None
    return structural_ms + sum(c.latency_ms for c in calls)


def _structural(
    config: Config, path: str, dims: Sequence[DimensionResult], rubric: Rubric, reason: str, **kwargs: object
) -> FileResult:
    """The file decided with every judged dimension set aside (skipped, with `reason` on those that
    have no error of their own); the judged dimensions are returned as they were."""
    aside = [
        replace(d, status=Status.SKIPPED, error=d.error or reason) if d.kind == "judge" else d for d in dims
    ]
    return decide(path, aside, rubric, on_judge_error=config.on_judge_error, **kwargs)  # type: ignore[arg-type]


def not_judged(
    config: Config,
    path: str,
    dims: Sequence[DimensionResult],
    rubric: Rubric,
    reason: str,
    **kwargs: object,
) -> FileResult:
    """A file the budget left unjudged: FAIL when a structural rule no judge could change fails it,
    ERROR when a check could not run, else NOT_JUDGED."""
    structural = _structural(config, path, dims, rubric, reason, **kwargs)
    if structural.verdict is Verdict.ERROR:
        return structural
    decision = structural.decision or Decision(())
    conclusive = [c for c in decision.failed if c.dimension is not None]
    if conclusive:
        return structural
    detail = reason.removeprefix("not judged: ")
    budget = RuleCheck(Rule.BUDGET, "not judged", False, detail, "not judged: budget reached")
    # the structural checks' mean is not the file's, so neither it nor its rule is shown
    checks = (*(c for c in decision.checks if c.passed and c.rule is not Rule.MIN_MEAN), budget)
    return replace(
        structural,
        verdict=Verdict.NOT_JUDGED,
        mean=None,
        band=None,
        reasons=(budget.text,),
        decision=replace(decision, checks=checks, failing=()),
    )


def uncount_judged(
    config: Config, result: FileResult, rubric: Rubric, reason: str, **kwargs: object
) -> FileResult:
    """`require-calibration` without a current calibration: the verdict over the structural checks
    alone, the judged rules the file failed kept in `uncounted`. A file whose judged scores failed
    nothing is returned as it was."""
    if not any(d.kind == "judge" and d.status is not Status.SKIPPED for d in result.dimensions):
        return result
    structural = _structural(config, result.path, result.dimensions, rubric, reason, **kwargs)
    decision = structural.decision or Decision(())
    # a rubric of judged dimensions only has nothing structural: that is no failure of the file's
    checks = tuple(c for c in decision.checks if c.rule is not Rule.NOTHING_EVALUATED)
    failed = [c for c in checks if not c.passed]
    kept = {(c.rule, c.dimension) for c in failed}
    uncounted = tuple(
        c for c in (result.decision or Decision(())).failed if (c.rule, c.dimension) not in kept
    )
    if not uncounted:
        return result
    verdict = (
        structural.verdict
        if structural.verdict is Verdict.ERROR
        else Verdict.FAIL
        if failed
        else Verdict.PASS
    )
    return replace(
        structural,
        verdict=verdict,
        dimensions=result.dimensions,
        reasons=tuple(c.text for c in failed),
        decision=replace(decision, checks=checks),
        uncounted=uncounted,
    )


def over_budget(result: FileResult, budgets: DocumentBudgets) -> tuple[str, ...]:
    """What of the file went over the budgets per document, in words (empty: nothing, or not known).
    Dollars are the judge calls' (a lower bound when some call's cost is unknown: only a lower bound
    already over the budget is flagged) plus, with `runner-usd-per-minute`, the file's time."""
    over = []
    if budgets.seconds_per_document is not None and result.wall_ms is not None:
        limit = budgets.seconds_per_document
        if result.wall_ms / 1000 > limit:
            over.append(f"took {shown(result.wall_ms)}, over the budget of {limit:g} s per document")
    if budgets.usd_per_document is not None:
        cost = result.usage.cost_usd
        spent = cost.known
        if budgets.runner_usd_per_minute is not None and result.wall_ms is not None:
            spent += result.wall_ms / 60_000 * budgets.runner_usd_per_minute
        if spent > budgets.usd_per_document:
            least = "at least " if cost.unknown_calls else ""
            over.append(
                f"cost {least}${spent:.4f}, over the budget of ${budgets.usd_per_document:.4f} per document"
            )
    return tuple(over)


def with_budgets(result: FileResult, budgets: DocumentBudgets) -> FileResult:
    """The file flagged for what went over its budgets; failed for it under `over-budget: fail`."""
    over = over_budget(result, budgets)
    if not over:
        return result
    result = replace(result, over_budget=over)
    if budgets.over_budget != "fail" or result.verdict is Verdict.ERROR:
        return result
    checks = tuple(RuleCheck(Rule.BUDGETS, "over budget", False, text, "over budget") for text in over)
    decision = result.decision or Decision(())
    return replace(
        result,
        verdict=Verdict.FAIL,
        reasons=(*result.reasons, *(c.text for c in checks)),
        decision=replace(decision, checks=(*decision.checks, *checks)),
    )


@dataclass(frozen=True)
class Finishing:
    """What a run decides its files by beyond the gate, and reports beside them: the calibration
    status (with `uncount`, why judged failures do not count under require-calibration), the judging
    budget and its not-judged reason."""

    config: Config
    rubric: Rubric
    prompt: str | None = None
    judged: bool = False
    calibration: CalibrationStatus | None = None
    uncount: str | None = None
    budget: JudgingBudget | None = None
    not_judged_reason: str = "not judged: the run's judging budget was reached before its judges were asked"

    @classmethod
    def start(cls, config: Config, rubric: Rubric, prompt: str | None, *, judged: bool) -> Finishing:
        """A run's finishing, before its first file: the calibration record is read once."""
        if not judged:
            return cls(config, rubric)
        calibration = calibration_for(config, rubric, prompt)
        uncount = None
        if calibration is not None and calibration.required and not calibration.current:
            uncount = f"not counted (require-calibration): {calibration.text}"
        budget = judging_budget(config)
        reason = cls.not_judged_reason
        if config.budget is not None:
            limits = RunBudget(config.budget.calls, config.budget.usd, config.on_budget).limits()
            reason = f"not judged: budget reached (the run's judging budget of {limits} was spent)"
        return cls(config, rubric, prompt, judged, calibration, uncount, budget, reason)

    def report(self, results: Sequence[FileResult], *, wall_ms: float) -> Report:
        """The run's report of `results`, with the notes the run's settings call for."""
        config, rubric = self.config, self.rubric
        notes = []
        if not self.judged and rubric.judged:
            notes.append(
                "judged dimensions were skipped (no judge configured): "
                + ", ".join(d.id for d in rubric.judged)
                + "; verdicts cover the deterministic dimensions only"
            )
        if config.budgets is not None and unpriced(results, config.budgets):
            notes.append(
                f"budgets: the dollars of {unpriced(results, config.budgets)} file(s) could not be held to "
                "usd-per-document: some judge call reported no cost (set `prices:` for its model)"
            )
        refused = sum(1 for r in results if any(j.budget_refused for j in r.judges))
        return Report(
            rubric=RubricRef(
                rubric.id,
                rubric.version,
                self.prompt,
                tuple((d.id, d.mechanical) for d in rubric.judged if d.mechanical),
            ),
            results=tuple(results),
            judges=tuple(config.judges),
            notes=tuple(notes),
            shard=config.shard,
            wall_ms=wall_ms,
            calibration=self.calibration,
            budget=self.budget.outcome(config.on_budget, refused) if self.budget is not None else None,
        )

    def finish(
        self,
        path: str,
        dims: Sequence[DimensionResult],
        calls: Sequence[JudgeCall],
        *,
        structural_ms: float | None,
        seed: int | None,
        warnings: Sequence[str],
    ) -> FileResult:
        """One evaluated file's result: the gate's verdict (the not-judged one when the budget refused
        a judge; the structural one when judged failures do not count), its time, its budgets."""
        config, rubric = self.config, self.rubric
        kwargs = {"seed": seed, "judges": calls, "warnings": warnings}
        if any(c.budget_refused for c in calls):
            result = not_judged(config, path, dims, rubric, self.not_judged_reason, **kwargs)
        else:
            result = decide(path, dims, rubric, on_judge_error=config.on_judge_error, **kwargs)  # type: ignore[arg-type]
            if self.uncount is not None:
                result = uncount_judged(config, result, rubric, self.uncount, **kwargs)
        result = replace(result, wall_ms=wall_ms(structural_ms, calls))
        return with_budgets(result, config.budgets) if config.budgets is not None else result


def judging_budget(config: Config) -> JudgingBudget | None:
    """The run's `budget:`, when one is set."""
    if config.budget is None:
        return None
    from evalgate.judging.budget import JudgingBudget

    return JudgingBudget(config.budget.calls, config.budget.usd)


def calibration_for(config: Config, rubric: Rubric, prompt: str | None) -> CalibrationStatus | None:
    """What the `calibration:` record says about this run's judges (None when none is configured and
    none is required)."""
    if config.calibration is None:
        if not config.require_calibration:
            return None
        text = (
            "not calibrated: require-calibration is set and no calibration record is configured "
            "(`calibration:`): scores are a signal, not a measurement"
        )
        return CalibrationStatus(current=False, text=text, required=True)
    from evalgate.judging.calibration import calibration_status

    return calibration_status(
        config.calibration,
        rubric,
        prompt,
        config.judges,
        floors=config.calibration_floors,
        required=config.require_calibration,
    )


def unpriced(results: Sequence[FileResult], budgets: DocumentBudgets) -> int:
    """Files whose dollars could not be held to `usd-per-document`: some judge call reported no cost,
    and what is known stays within the budget."""
    if budgets.usd_per_document is None:
        return 0
    return sum(
        1
        for r in results
        if r.judges and r.usage.cost_usd.unknown_calls and not any("cost" in o for o in r.over_budget)
    )
