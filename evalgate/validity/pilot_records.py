"""One pilot record per (task, cell), in the trio protocol's shape.

The protocol's keys come first and keep its names, nesting and types: the candidate's accounting,
one flat object per judge named `judge_<label>` (the six dimension scores, `rationale`,
`overall_verdict` = the band of that judge's mean, `mean`), then `trio_mean`, `trio_strict_pass`,
`trio_critical_fail`, `manifest_anchor`, `head_sha`. A value that is not known (no response file, a
judge that errored, a trio short of its quorum) is `null`, never a made-up zero. What evalgate adds
goes in keys the protocol does not have: `trio_fail` (the protocol's third trio rule) and an
`evalgate` object (rubric id and version, each judge's backend and error, the quorum, what is missing
and why).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import Any

from evalgate.judging.ensemble import band_of, critical_fail, ensemble_mean, strict_pass, trio_fail
from evalgate.judging.judge import JudgeOutcome
from evalgate.results import Status
from evalgate.rubric import Rubric

METRIC_KEYS = ("latency_ms", "tokens_in", "tokens_out", "cost_usd")
# The protocol's values, used when the rubric does not set its own ensemble rules.
PROTOCOL_STRICT_PASS_MEAN, PROTOCOL_CRITICAL_BELOW, PROTOCOL_FAIL_BELOW = 3.5, 2.0, 3.0


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge on one (task, cell): its scores as the rubric's dimension ids, or why it has none."""

    label: str
    backend: str  # `backend:model`, never the spec (a command line may hold more than a name)
    scores: dict[str, int | None]
    rationale: str | None
    error: str | None
    called: bool = True
    latency_ms: int | None = None
    cost_usd: float | None = None  # None: unknown (no price for its model, or a failed call)
    tokens_in: int | None = None
    tokens_out: int | None = None
    calls: int = 0  # calls made (a repair is a second); 0 when not called

    @property
    def mean(self) -> float | None:
        """The mean over every dimension, or None when any is unscored (an incomplete judgement)."""
        values = list(self.scores.values())
        if self.error or not values or any(v is None for v in values):
            return None
        return fmean(v for v in values if v is not None)


@dataclass(frozen=True)
class CellOutcome:
    """Everything known about one (task, cell) once the judges are done."""

    task_id: str
    cell_id: str
    model: str
    configuration: str
    response: str | None  # None: the response file could not be read
    metrics: dict[str, Any]
    judges: tuple[JudgeVerdict, ...]
    missing: tuple[str, ...] = ()  # why it was not judged (response file, task item)
    notes: tuple[str, ...] = ()  # problems that did not stop judging (an unreadable metrics file)


@dataclass(frozen=True)
class Trio:
    """The ensemble rules over one (task, cell)'s judge means; every value None when not heard."""

    mean: float | None
    strict_pass: bool | None
    critical_fail: bool | None
    fail: bool | None
    heard: int
    needed: int
    why_not: str | None  # why there is no trio mean, in words


def trio_of(rubric: Rubric, outcome: CellOutcome) -> Trio:
    """Apply the rubric's ensemble rules (the protocol's where the rubric is silent) to one cell."""
    ensemble = rubric.policy.ensemble
    means = {j.label: m for j in outcome.judges if (m := j.mean) is not None}
    needed = max(ensemble.quorum, 1)
    unheard = [j for j in outcome.judges if j.mean is None]
    why_not = None
    if outcome.missing:
        why_not = "not judged: " + "; ".join(outcome.missing)
    elif len(means) < needed or (unheard and ensemble.on_judge_error == "fail"):
        rule = "every judge must be heard" if ensemble.on_judge_error == "fail" else f"quorum {needed}"
        detail = "; ".join(f"{j.label}: {j.error or 'incomplete scores'}" for j in unheard)
        why_not = f"{len(means)} of {len(outcome.judges)} judges heard ({rule}): {detail}"
    if why_not is not None:
        return Trio(None, None, None, None, len(means), needed, why_not)
    majority = len(means) // 2 + 1
    at_least = (
        ensemble.strict_pass_mean if ensemble.strict_pass_mean is not None else PROTOCOL_STRICT_PASS_MEAN
    )
    below = (
        ensemble.critical_fail_below if ensemble.critical_fail_below is not None else PROTOCOL_CRITICAL_BELOW
    )
    fail_below = ensemble.fail_below if ensemble.fail_below is not None else PROTOCOL_FAIL_BELOW
    return Trio(
        mean=ensemble_mean(means, ensemble.aggregation),
        strict_pass=strict_pass(means, judges=ensemble.strict_pass_judges or majority, at_least=at_least),
        critical_fail=critical_fail(means, below=below),
        fail=trio_fail(means, judges=ensemble.fail_judges or majority, below=fail_below),
        heard=len(means),
        needed=needed,
        why_not=None,
    )


def round4(value: float | None) -> float | None:
    """Means and deltas as written: 4 decimals (computed from the unrounded values)."""
    return None if value is None else round(value, 4)


def judge_object(rubric: Rubric, verdict: JudgeVerdict) -> dict[str, Any]:
    """`judge_<label>`: the dimension scores flat, then rationale, overall_verdict and mean."""
    mean = verdict.mean
    bands = rubric.policy.bands
    return {
        **{d.id: verdict.scores.get(d.id) for d in rubric.judged},
        "rationale": verdict.rationale,
        "overall_verdict": None if bands is None else band_of(mean, bands.floors),
        "mean": round4(mean),
    }


def build_record(
    rubric: Rubric, outcome: CellOutcome, trio: Trio, anchor: str, sha: str | None
) -> dict[str, Any]:
    """One JSONL record in the protocol's key order, evalgate's additions last."""
    return {
        "task_id": outcome.task_id,
        "cell_id": outcome.cell_id,
        "model": outcome.model,
        "configuration": outcome.configuration,
        "candidate_response": outcome.response,
        **{f"candidate_{k}": outcome.metrics.get(k) for k in METRIC_KEYS},
        **{f"judge_{j.label}": judge_object(rubric, j) for j in outcome.judges},
        "trio_mean": round4(trio.mean),
        "trio_strict_pass": trio.strict_pass,
        "trio_critical_fail": trio.critical_fail,
        "manifest_anchor": anchor,
        "head_sha": sha,
        "trio_fail": trio.fail,
        "evalgate": {
            "rubric": {"id": rubric.id, "version": rubric.version},
            "judges": {
                j.label: {
                    "backend": j.backend,
                    "called": j.called,
                    "error": j.error,
                    "latency_ms": j.latency_ms,
                    "tokens_in": j.tokens_in,
                    "tokens_out": j.tokens_out,
                    "cost_usd": j.cost_usd,
                }
                for j in outcome.judges
            },
            "quorum": {"heard": trio.heard, "judges": len(outcome.judges), "needed": trio.needed},
            "missing": list(outcome.missing),
            "notes": list(outcome.notes),
            "why_no_trio": trio.why_not,
        },
    }


def verdict_from(rubric: Rubric, label: str, outcome: JudgeOutcome) -> JudgeVerdict:
    """A `JudgeVerdict` from one judge's dimension results and the accounting of its calls."""
    judged = {d.id for d in rubric.judged}
    mine = [d for d in outcome.dimensions if d.id in judged]
    call = outcome.call
    scores = {d.id: d.score if d.status is Status.SCORED else None for d in mine}
    errors = sorted({d.error for d in mine if d.status is not Status.SCORED and d.error})
    error = call.error or ("; ".join(errors) or None)
    # The protocol's rationale explains the lowest dimension; the knowledge-work prompt asks for it
    # there, so the first reasoning given (in rubric order) is that one.
    rationale = next((d.reasoning for d in mine if d.reasoning), None)
    return JudgeVerdict(
        label=label,
        backend=f"{call.backend}:{call.model}",
        scores=scores,
        rationale=rationale,
        error=error,
        latency_ms=round(call.latency_ms),
        cost_usd=call.cost_usd,
        tokens_in=call.tokens_in,
        tokens_out=call.tokens_out,
        calls=call.calls,
    )
