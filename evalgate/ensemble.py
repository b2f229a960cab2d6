"""Several judges, one dimension result: every judge's score is kept, the rubric says how they combine.

A judge that errored either fails the dimension (`on_judge_error: fail`, the default: a gate that
could not hear every judge does not pass) or is left out while at least `quorum` judges remain, with
the quorum recorded in the reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from statistics import fmean, median

from evalgate.results import DimensionResult, JudgeScore, Status
from evalgate.rubric import Dimension, Ensemble


def aggregate(scores: Sequence[int], how: str) -> float:
    """Mean or median of the judges' scores."""
    return float(median(scores)) if how == "median" else fmean(scores)


def round_half_up(value: float) -> int:
    """Scores are integers on the rubric's scale; 3.5 rounds to 4 (not to the even 4 / 2 of round())."""
    return int(value + 0.5)


def combine_dimension(
    dimension: Dimension, per_judge: Sequence[tuple[str, DimensionResult]], ensemble: Ensemble
) -> DimensionResult:
    """One dimension's result from each judge's result for it."""
    if len(per_judge) == 1:
        return per_judge[0][1]
    judge_scores = tuple(JudgeScore(label, r.score, r.error) for label, r in per_judge)
    ok = [(label, r) for label, r in per_judge if r.status is Status.SCORED and r.score is not None]
    failed = [(label, r) for label, r in per_judge if not (r.status is Status.SCORED and r.score is not None)]
    evidence = tuple(e for _, r in ok for e in r.evidence)
    reasoning = "\n".join(f"{label}: {r.reasoning}" for label, r in ok if r.reasoning) or None
    base = DimensionResult(
        id=dimension.id,
        kind="judge",
        status=Status.ERROR,
        hard_fail=dimension.hard_fail,
        evidence=evidence,
        reasoning=reasoning,
        judge_scores=judge_scores,
    )
    errors = "; ".join(f"{label}: {r.error or 'no score'}" for label, r in failed)
    if failed and ensemble.on_judge_error == "fail":
        return replace(base, error=f"{len(failed)} of {len(per_judge)} judges failed ({errors})")
    if len(ok) < max(1, ensemble.quorum):
        return replace(
            base,
            error=f"only {len(ok)} of {len(per_judge)} judges scored (quorum {ensemble.quorum}): {errors}",
        )
    value = aggregate([r.score for _, r in ok if r.score is not None], ensemble.aggregation)
    note = f"quorum {len(ok)}/{len(per_judge)}; left out: {errors}" if failed else None
    return replace(
        base,
        status=Status.SCORED,
        score=round_half_up(value),
        reasoning="\n".join(x for x in (note, reasoning) if x) or None,
    )
