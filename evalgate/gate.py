"""The gate: a file's dimension results + the rubric's policy -> its verdict.

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

from evalgate.judging.ensemble import band_of, ensemble_mean, ensemble_reasons, judge_means
from evalgate.results import DimensionResult, FileResult, JudgeCall, Status, Verdict
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
    """Apply the rubric's policy to one file's dimension results."""
    policy = rubric.policy
    dims: list[DimensionResult] = []
    for d in dimensions:
        if d.status is Status.ERROR and d.kind == "judge" and on_judge_error == "skip":
            # Left out of the verdict, but kept visible: the error stays on the dimension.
            d = replace(d, status=Status.SKIPPED)
        dims.append(d)

    scored = [d for d in dims if d.status is Status.SCORED and d.score is not None]
    errors = [d for d in dims if d.status is Status.ERROR]
    # statistics.fmean's own formula: importing statistics (fractions, decimal) cost a structural run ~3 ms
    mean = fsum(d.score for d in scored if d.score is not None) / len(scored) if scored else None
    reasons: list[str] = []

    hard = tuple(
        d.id for d in scored if d.hard_fail and d.score is not None and d.score < policy.hard_fail_below
    )
    for dim_id in hard:
        reasons.append(f"hard fail: {dim_id} scored below {policy.hard_fail_below}")
    if policy.fail_on_score is not None:
        for d in scored:
            if d.score is not None and d.score <= policy.fail_on_score and d.id not in hard:
                reasons.append(f"{d.id} scored {d.score}")
    if policy.min_each is not None:
        for d in scored:
            if d.score is None or d.score >= policy.min_each or d.id in hard:
                continue
            # already reported by fail_on_score (compared with `is not None`: a floor of 0 is a floor)
            if not (policy.fail_on_score is not None and d.score <= policy.fail_on_score):
                reasons.append(f"{d.id} scored {d.score} (each dimension needs {policy.min_each})")
    if policy.min_mean is not None and mean is not None and mean < policy.min_mean:
        reasons.append(f"mean {mean:.2f} is below {policy.min_mean:g}")
    for d in errors:
        reasons.append(f"{d.id} could not be evaluated: {d.error}")
    # Ensemble rules apply only when the rubric sets them and more than one judge was heard.
    means = judge_means(dims)
    band_mean = mean
    if len(means) > 1:
        reasons.extend(ensemble_reasons(means, policy.ensemble))
        band_mean = ensemble_mean(means, policy.ensemble.aggregation)

    if any(d.kind == "deterministic" for d in errors):
        verdict = Verdict.ERROR
    elif reasons:
        verdict = Verdict.FAIL
    elif not scored:
        verdict = Verdict.FAIL
        reasons.append("no dimension was evaluated")
    else:
        verdict = Verdict.PASS

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
        band=_band(rubric, band_mean),
        reasons=tuple(reasons),
    )


def error_result(path: str, message: str) -> FileResult:
    """A file that could not be evaluated at all (unreadable, binary, outside the root...)."""
    return FileResult(path=path, verdict=Verdict.ERROR, error=message, reasons=(message,))
