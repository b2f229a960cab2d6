"""Several judges, one dimension result: every judge's score is kept, the rubric says how they combine.

A judge that errored either fails the dimension (`on_judge_error: fail`, the default: a gate that
could not hear every judge does not pass) or is left out while at least `quorum` judges remain, with
the quorum recorded in the reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from evalgate.results import DimensionResult, JudgeScore, Status
from evalgate.rubric import Dimension, Ensemble


def aggregate(scores: Sequence[float], how: str) -> float:
    """Mean or median of the judges' scores."""
    from statistics import fmean, median  # only with judges: a structural run does not import statistics

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


# --- Verdict rules over judges (pure functions; `evalgate.gate.decide` applies them) ---------------


def judge_means(dimensions: Sequence[DimensionResult]) -> dict[str, float]:
    """Each judge's mean over the judged dimensions it scored, from every `judge_scores`.

    A judge with no score at all (it errored on every dimension) has no mean and is absent, so the
    ensemble rules count only the judges that were heard (the quorum).
    """
    per_judge: dict[str, list[int]] = {}
    for d in dimensions:
        if d.kind != "judge":
            continue
        for s in d.judge_scores:
            if s.score is not None:
                per_judge.setdefault(s.judge, []).append(s.score)
    return {label: aggregate(scores, "mean") for label, scores in per_judge.items()}


def ensemble_mean(means: dict[str, float], how: str = "mean") -> float | None:
    """The ensemble's mean: the judges' means combined by the rubric's aggregation (None if none)."""
    return aggregate(list(means.values()), how) if means else None


def strict_pass(means: dict[str, float], *, judges: int, at_least: float) -> bool:
    """True when at least `judges` judges' means are >= `at_least` ("at least 2 of 3 judges >= 3.5")."""
    return sum(1 for m in means.values() if m >= at_least) >= judges


def critical_fail(means: dict[str, float], *, below: float) -> bool:
    """True when a strict majority of the judges heard have a mean below `below` (2 of 3, 2 of 2)."""
    low = sum(1 for m in means.values() if m < below)
    return bool(means) and low * 2 > len(means)


def trio_fail(means: dict[str, float], *, judges: int, below: float) -> bool:
    """True when at least `judges` judges' means are < `below` ("at least 2 of 3 judges score < 3.0")."""
    return sum(1 for m in means.values() if m < below) >= judges


def band_of(mean: float | None, floors: dict[str, float]) -> str | None:
    """The first band, from the highest floor down, whose floor `mean` reaches (None if none)."""
    if mean is None:
        return None
    for name, floor in sorted(floors.items(), key=lambda kv: kv[1], reverse=True):
        if mean >= floor:
            return name
    return None


def ensemble_reasons(means: dict[str, float], ensemble: Ensemble) -> list[str]:
    """Why the ensemble rules fail a file, in words (empty when they pass or are not configured)."""
    reasons: list[str] = []
    shown = ", ".join(f"{label} {m:.2f}" for label, m in sorted(means.items()))
    judges, at_least = ensemble.strict_pass_judges, ensemble.strict_pass_mean
    if (
        judges is not None
        and at_least is not None
        and not strict_pass(means, judges=judges, at_least=at_least)
    ):
        reasons.append(f"strict pass not met: fewer than {judges} judges' means reach {at_least:g} ({shown})")
    if ensemble.critical_fail_below is not None and critical_fail(means, below=ensemble.critical_fail_below):
        reasons.append(
            f"critical fail: a majority of judges' means are below {ensemble.critical_fail_below:g} ({shown})"
        )
    judges, below = ensemble.fail_judges, ensemble.fail_below
    if judges is not None and below is not None and trio_fail(means, judges=judges, below=below):
        reasons.append(f"trio fail: at least {judges} judges' means are below {below:g} ({shown})")
    return reasons
