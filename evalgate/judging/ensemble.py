"""Several judges, one dimension result: every judge's score is kept, the rubric says how they combine.

A judge that errored either fails the dimension (`on_judge_error: fail`, the default: a gate that
could not hear every judge does not pass) or is left out while at least `quorum` judges remain, with
the quorum recorded in the reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from math import fsum

from evalgate.results import DimensionResult, Rule, RuleCheck, Status
from evalgate.rubric import Dimension, Ensemble


def aggregate(scores: Sequence[float], how: str) -> float:
    """Mean or median of the judges' scores, by statistics.fmean's and statistics.median's formulas
    (importing statistics, with fractions and decimal, cost a judged run ~2 ms)."""
    if how != "median":
        return fsum(scores) / len(scores)
    ordered = sorted(scores)
    middle = len(ordered) // 2
    return float(ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2)


def round_half_up(value: float) -> int:
    """Scores are integers on the rubric's scale; 3.5 rounds to 4 (not to the even 4 / 2 of round())."""
    return int(value + 0.5)


def combine_dimension(
    dimension: Dimension, per_judge: Sequence[tuple[str, DimensionResult]], ensemble: Ensemble
) -> DimensionResult:
    """One dimension's result from each judge's result for it."""
    if len(per_judge) == 1:
        return per_judge[0][1]
    # here, not at the top: the gate imports this module for every run, and a run without several
    # judges makes no JudgeScore (evalgate.judgement)
    from evalgate.judgement import JudgeScore

    judge_scores = tuple(
        JudgeScore(label, r.score, r.error, r.judge_scores[0].position if r.judge_scores else None)
        for label, r in per_judge
    )
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


def judge_document_means(dimensions: Sequence[DimensionResult], heard: Sequence[str]) -> dict[str, float]:
    """Each heard judge's mean over the whole file: every scored dimension, the judged ones with that
    judge's own score (where it gave one), the deterministic ones as computed. With judged
    dimensions only (knowledge-work) this is `judge_means`; with checks beside (research-loop) it is
    the file mean each judge's scores alone would give."""
    scored = [d for d in dimensions if d.status is Status.SCORED and d.score is not None]
    fixed = [d.score for d in scored if d.kind != "judge" and d.score is not None]
    out = {}
    for label in heard:
        own = [s.score for d in scored if d.kind == "judge" for s in d.judge_scores if s.judge == label]
        values = fixed + [score for score in own if score is not None]
        if values:
            out[label] = aggregate(values, "mean")
    return out


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


def _shown(means: dict[str, float]) -> str:
    return ", ".join(f"{label} {m:.2f}" for label, m in sorted(means.items()))


def ensemble_checks(means: dict[str, float], ensemble: Ensemble) -> list[RuleCheck]:
    """The ensemble rules the rubric sets, applied to the judges' means: one check per rule, passed
    or not, each saying how many judges stood where (empty when no rule is configured)."""
    checks: list[RuleCheck] = []
    heard, shown = len(means), _shown(means)
    judges, at_least = ensemble.strict_pass_judges, ensemble.strict_pass_mean
    if judges is not None and at_least is not None:
        reached = sum(1 for m in means.values() if m >= at_least)
        met = strict_pass(means, judges=judges, at_least=at_least)
        detail = f"{reached} of {heard} judges' means reach {at_least:g} ({shown}); it needs {judges}"
        brief = f"trio strict pass{'' if met else ' not met'}: {reached} of {heard} judges ≥ {at_least:g}"
        checks.append(RuleCheck(Rule.STRICT_PASS, "trio strict pass", met, detail, brief))
    if ensemble.critical_fail_below is not None:
        below = ensemble.critical_fail_below
        low = sum(1 for m in means.values() if m < below)
        failed = critical_fail(means, below=below)
        detail = f"{low} of {heard} judges' means are below {below:g} ({shown}); a majority fails the file"
        brief = f"critical fail: {low} of {heard} judges < {below:g}" if failed else "no critical fail"
        checks.append(RuleCheck(Rule.CRITICAL_FAIL, "critical fail", not failed, detail, brief))
    judges, line = ensemble.fail_judges, ensemble.fail_below
    if judges is not None and line is not None:
        low = sum(1 for m in means.values() if m < line)
        failed = trio_fail(means, judges=judges, below=line)
        detail = f"{low} of {heard} judges' means are below {line:g} ({shown}); {judges} fail the file"
        brief = f"trio FAIL: {low} of {heard} judges < {line:g}" if failed else "no trio FAIL"
        checks.append(RuleCheck(Rule.TRIO_FAIL, "trio FAIL", not failed, detail, brief))
    return checks
