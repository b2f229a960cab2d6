"""The gate: a file's dimension results + the rubric's policy -> its verdict.

Takes a file's dimension results (deterministic and judged) and the rubric; gives its FileResult with
the verdict and the decision that names each rule. `compare`: under `gate-on: new`, a result against
its base version's -> what the change made worse.

The verdict is computed here from scores and the rubric alone. A judge's own OVERALL claim is recorded
elsewhere and never consulted. Dimensions that were not evaluated (`skipped`) are left out and the
result says so; a judged dimension in error fails the file unless the run says `on_judge_error: skip`,
because a gate that could not judge must not pass. A deterministic check in error is a tool fault: the
file's verdict is ERROR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from math import fsum

from evalgate.judging.ensemble import (
    band_of,
    ensemble_checks,
    ensemble_mean,
    judge_document_means,
    judge_means,
)
from evalgate.results import (
    Decision,
    DimensionResult,
    FileResult,
    JudgeCall,
    Rule,
    RuleCheck,
    Status,
    Verdict,
)
from evalgate.rubric import Rubric


def _band(rubric: Rubric, mean: float | None) -> str | None:
    bands = rubric.policy.bands
    return None if bands is None else band_of(mean, bands.floors)


def _mechanical_disagreements(rubric: Rubric, dims: Sequence[DimensionResult]) -> list[str]:
    """A judged dimension that is also computed by a deterministic check: say when the two differ."""
    by_id = {d.id: d for d in dims}
    notes = []
    for dim in rubric.judged:
        judged, computed = by_id.get(dim.id), by_id.get(dim.mechanical or "")
        if judged is None or computed is None or judged.score is None or computed.score is None:
            continue
        if judged.score != computed.score:
            notes.append(
                f"{dim.id}: the judge scored {judged.score} but the mechanical check "
                f"{computed.id} computed {computed.score}"
            )
    return notes


def _missing_evidence(rubric: Rubric, dims: Sequence[DimensionResult]) -> list[str]:
    """Binary criteria (those with worked examples) must carry the span that decided them."""
    with_examples = {d.id for d in rubric.judged if d.examples}
    return [
        f"{d.id}: the judge's verdict carries no evidence span"
        for d in dims
        if d.id in with_examples and d.status is Status.SCORED and not d.evidence
    ]


def _score_rule_name(rubric: Rubric, at_or_below: int) -> str:
    """How reports name `fail_on_score`: "any 1" at the bottom of the scale, "any 2 or lower" above
    it, and "not met" on a binary rubric, where it is the criterion rule."""
    if rubric.scale.max - rubric.scale.min == 1:
        return "not met"
    return f"any {at_or_below}" if at_or_below <= rubric.scale.min else f"any {at_or_below} or lower"


def _dimension_checks(rubric: Rubric, scored: Sequence[DimensionResult]) -> list[RuleCheck]:
    """hard fail, any N and floor: a failed check per dimension caught (each by its first rule only),
    else one passed check per rule that applies."""
    policy, checks = rubric.policy, []
    caught: set[str] = set()
    below = policy.hard_fail_below
    hard = [d for d in scored if d.hard_fail]
    for d in hard:
        if d.score is not None and d.score < below:
            caught.add(d.id)
            detail = f"{d.id} scored {d.score}, below {below}"
            checks.append(
                RuleCheck(Rule.HARD_FAIL, "hard fail", False, detail, f"hard fail: {d.id} {d.score}", d.id)
            )
    if hard and not caught:
        checks.append(
            RuleCheck(
                Rule.HARD_FAIL,
                "hard fail",
                True,
                f"every hard-fail dimension reaches {below}",
                "no hard fail",
            )
        )
    if policy.fail_on_score is not None:
        floor, name = policy.fail_on_score, _score_rule_name(rubric, policy.fail_on_score)
        low = [d for d in scored if d.score is not None and d.score <= floor and d.id not in caught]
        for d in low:
            detail = f"{d.id} scored {d.score}" if name != "not met" else d.id
            checks.append(RuleCheck(Rule.FAIL_ON_SCORE, name, False, detail, f"{name}: {d.id}", d.id))
        caught.update(d.id for d in low)
        if not low:
            passed = (
                "every criterion is met" if name == "not met" else f"no dimension scored {floor} or lower"
            )
            brief = f"all {len(scored)} met" if name == "not met" else f"none ≤ {floor}"
            checks.append(RuleCheck(Rule.FAIL_ON_SCORE, name, True, passed, brief))
    if policy.min_each is not None:
        need = policy.min_each
        low = [d for d in scored if d.score is not None and d.score < need and d.id not in caught]
        for d in low:
            detail = f"{d.id} scored {d.score} (each dimension needs {need})"
            checks.append(
                RuleCheck(Rule.MIN_EACH, "floor", False, detail, f"floor: {d.id} {d.score} < {need}", d.id)
            )
        caught.update(d.id for d in low)
        if not any(d.score is not None and d.score < need for d in scored):
            checks.append(
                RuleCheck(Rule.MIN_EACH, "floor", True, f"every dimension reaches {need}", f"all ≥ {need}")
            )
    return checks


def _mean_check(
    rubric: Rubric, mean: float, band: str | None, judge_means: dict[str, float]
) -> RuleCheck | None:
    need = rubric.policy.min_mean
    if need is None:
        return None
    basis = ""
    if judge_means:
        how = rubric.policy.ensemble.aggregation
        shown = ", ".join(f"{label} {m:.2f}" for label, m in sorted(judge_means.items()))
        basis = f"the {how} of {len(judge_means)} judges' means: {shown}"
    if band:
        basis = f"{basis}; band {band}" if basis else f"band {band}"
    suffix = f" ({basis})" if basis else ""
    passed = mean >= need
    detail = f"{mean:.2f} {'reaches' if passed else 'is below'} {need:g}{suffix}"
    brief = f"mean {mean:.2f} {'≥' if passed else '<'} {need:g}"
    return RuleCheck(Rule.MIN_MEAN, "mean", passed, detail, brief)


def _error_check(dim: DimensionResult) -> RuleCheck:
    if dim.kind == "deterministic":
        rule, name = Rule.CHECK_ERROR, "check error"
    elif len(dim.judge_scores) > 1:
        rule, name = Rule.ENSEMBLE_ERROR, "ensemble error"
    else:
        rule, name = Rule.JUDGE_ERROR, "judge error"
    return RuleCheck(
        rule, name, False, f"{dim.id} could not be evaluated: {dim.error}", f"{name}: {dim.id}", dim.id
    )


def decide(
    path: str,
    dimensions: Sequence[DimensionResult],
    rubric: Rubric,
    *,
    on_judge_error: str = "fail",
    seed: int | None = None,
    judges: Sequence[JudgeCall] = (),
    warnings: Sequence[str] = (),
) -> FileResult:
    """Apply the rubric's policy to one file's dimension results.

    Every rule the rubric sets is applied and recorded as a RuleCheck (`FileResult.decision`); the
    failed ones' texts are the `reasons`. With more than one judge heard, the file's mean is the
    ensemble's: each judge's mean over the file combined by the rubric's `aggregation` (3.5, 3.5 and
    3.0 give 3.33), and `min_mean` and the band apply to it, not to the mean of rounded scores."""
    policy = rubric.policy
    dims: list[DimensionResult] = []
    for d in dimensions:
        if d.status is Status.ERROR and d.kind == "judge" and on_judge_error == "skip":
            # Left out of the verdict, but kept visible: the error stays on the dimension.
            d = replace(d, status=Status.SKIPPED)
        dims.append(d)

    scored = [d for d in dims if d.status is Status.SCORED and d.score is not None]
    errors = [d for d in dims if d.status is Status.ERROR]
    means = judge_means(dims)
    several = len(means) > 1
    per_judge = judge_document_means(dims, list(means)) if several else {}
    if per_judge:
        mean: float | None = ensemble_mean(per_judge, policy.ensemble.aggregation)
    else:
        # statistics.fmean's formula: importing statistics (fractions, decimal) cost a structural run ~3 ms
        mean = fsum(d.score for d in scored if d.score is not None) / len(scored) if scored else None
    band = _band(rubric, mean)

    checks = _dimension_checks(rubric, scored)
    mean_check = _mean_check(rubric, mean, band, per_judge) if mean is not None else None
    if mean_check is not None:
        checks.append(mean_check)
    checks.extend(_error_check(d) for d in errors)
    # Ensemble rules apply only when the rubric sets them and more than one judge was heard.
    if several:
        checks.extend(ensemble_checks(means, policy.ensemble))
    if not scored:
        checks.append(
            RuleCheck(
                Rule.NOTHING_EVALUATED,
                "nothing evaluated",
                False,
                "no dimension was evaluated",
                "nothing evaluated",
            )
        )
    failed = [c for c in checks if not c.passed]
    if any(d.kind == "deterministic" for d in errors):
        verdict = Verdict.ERROR
    elif failed:
        verdict = Verdict.FAIL
    else:
        verdict = Verdict.PASS

    hard = tuple(c.dimension for c in failed if c.rule is Rule.HARD_FAIL and c.dimension)
    binary = rubric.scale.max - rubric.scale.min == 1
    criteria = (sum(1 for d in scored if d.score == rubric.scale.max), len(scored)) if binary else None
    decision = Decision(
        checks=tuple(checks),
        scale=(rubric.scale.min, rubric.scale.max),
        mean_of="judges" if per_judge else "dimensions",
        judge_means=tuple(sorted(per_judge.items())),
        criteria=criteria,
        failing=tuple(dict.fromkeys(c.dimension for c in failed if c.dimension)),
    )
    # Skipped dimensions are not a warning: every report lists them from the dimensions' status.
    notes = list(warnings) + _mechanical_disagreements(rubric, dims) + _missing_evidence(rubric, dims)
    return FileResult(
        path=path,
        verdict=verdict,
        mean=mean,
        hard_failures=hard,
        dimensions=tuple(dims),
        seed=seed,
        judges=tuple(judges),
        warnings=tuple(notes),
        band=band,
        reasons=tuple(c.text for c in failed),
        decision=decision,
    )


def error_result(path: str, message: str) -> FileResult:
    """A file that could not be evaluated at all (unreadable, binary, outside the root...)."""
    check = RuleCheck(Rule.FILE_ERROR, "file error", False, message, "file error")
    return FileResult(
        path=path, verdict=Verdict.ERROR, error=message, reasons=(message,), decision=Decision((check,))
    )
