"""`pilot-summary.json` in the trio protocol's shape, computed from the cells' outcomes.

Protocol keys: `pilot_id`, `execution_window_utc` (`"<start> to <end>"`), `total_cost_usd`,
`total_judge_calls`, `total_candidate_calls`, `results_per_task` (per task `cell_<id>_trio_mean`,
`<h>_delta_<name>`, `<h>_directional_pass`) and `aggregate` (`<h>_pass_count`, `critical_failures`,
`pilot_verdict`). A delta whose cells have no trio mean is `null` and so is its directional pass;
it is not counted. evalgate's additions (the hypotheses as configured, trio FAILs, what was not
judged, the reasons for the verdict) are in the `evalgate` object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalgate.rubric import Rubric
from evalgate.usage import Amount
from evalgate.validity.pilot_config import Hypothesis, PilotConfig
from evalgate.validity.pilot_records import CellOutcome, Trio, round4


@dataclass(frozen=True)
class RunWindow:
    """When the run started and ended (UTC, ISO 8601) and the manifest it ran under."""

    start: str
    end: str
    anchor: str


def directional_pass(h: Hypothesis, delta: float | None) -> bool | None:
    """`delta > 0`, or `delta >= min_delta` when the hypothesis gives one; None without a delta."""
    if delta is None:
        return None
    if h.min_delta is None:
        return delta > 0
    return delta >= h.min_delta - 1e-9  # deltas of means of integers: no float dust decides a pass


def judge_usage(outcomes: list[CellOutcome]) -> dict[str, Any]:
    """The judges' calls, tokens, dollars and time over the pilot: each amount's total only when every
    call reported it (else null, with what is known and how many calls did not say)."""
    judges = [j for o in outcomes for j in o.judges if j.called]
    amounts = dict.fromkeys(("tokens_in", "tokens_out", "cost_usd"), Amount())
    for j in judges:
        for key in amounts:
            amounts[key] = amounts[key].plus(getattr(j, key), max(j.calls, 1))
    return {
        "calls": sum(j.calls for j in judges),
        "tokens_in": amounts["tokens_in"].to_json(0),
        "tokens_out": amounts["tokens_out"].to_json(0),
        "cost_usd": amounts["cost_usd"].to_json(),
        "latency_ms": sum(j.latency_ms or 0 for j in judges),
    }


def _cost(outcomes: list[CellOutcome]) -> tuple[float | None, float, int]:
    """(total or None when any call's cost is unknown, the known part, calls without a cost)."""
    costs = [o.metrics.get("cost_usd") for o in outcomes if o.response is not None]
    costs += [j.cost_usd for o in outcomes for j in o.judges if j.called]
    known = [c for c in costs if c is not None]
    unknown = len(costs) - len(known)
    total = round(sum(known), 6)
    return (None if unknown else total), total, unknown


def _where(o: CellOutcome) -> str:
    return f"{o.task_id}/{o.cell_id}"


def summarise(
    config: PilotConfig,
    rubric: Rubric,
    outcomes: list[tuple[CellOutcome, Trio]],
    window: RunWindow,
    *,
    pilot_id: str,
) -> dict[str, Any]:
    """The summary from every (task, cell)'s outcome and trio, in config order."""
    means: dict[tuple[str, str], float | None] = {(o.task_id, o.cell_id): t.mean for o, t in outcomes}
    hypotheses = config.hypothesis_set
    per_task: dict[str, dict[str, Any]] = {}
    passes: dict[str, list[str]] = {h.id: [] for h in hypotheses}
    unknown: dict[str, list[str]] = {h.id: [] for h in hypotheses}
    for task in config.tasks:
        row: dict[str, Any] = {
            f"cell_{c.id}_trio_mean": round4(means.get((task.id, c.id))) for c in config.cells
        }
        verdicts = {}
        for h in hypotheses:
            hi, lo = means.get((task.id, h.higher)), means.get((task.id, h.lower))
            delta = None if hi is None or lo is None else hi - lo
            row[f"{h.id}_delta_{h.name}"] = round4(delta)
            verdicts[h.id] = directional_pass(h, delta)
            if verdicts[h.id]:
                passes[h.id].append(task.id)
            elif verdicts[h.id] is None:
                unknown[h.id].append(task.id)
        row.update({f"{h.id}_directional_pass": verdicts[h.id] for h in hypotheses})
        per_task[task.id] = row

    reasons: list[str] = []
    for h in hypotheses:
        right = len(passes[h.id])
        if right >= config.min_tasks:
            continue
        reason = (
            f"hypothesis {h.id} ({h.name}, {h.higher}-{h.lower}): direction right in {right} of "
            f"{len(config.tasks)} tasks (needs {config.min_tasks})"
        )
        if len(config.tasks) < config.min_tasks:
            reason += f"; the pilot has only {len(config.tasks)} task(s)"
        if unknown[h.id]:
            reason += f"; no delta in {', '.join(unknown[h.id])} (a cell has no trio mean)"
        reasons.append(reason)
    critical = [o for o, t in outcomes if t.critical_fail]
    if critical:
        reasons.append(f"critical failure: {', '.join(_where(o) for o in critical)}")
    unjudged = [(o, t) for o, t in outcomes if t.mean is None]
    reasons += [f"{_where(o)}: no trio mean: {t.why_not}" for o, t in unjudged]

    total, known, without = _cost([o for o, _ in outcomes])
    judge_calls = sum(1 for o, _ in outcomes for j in o.judges if j.called)
    return {
        "pilot_id": pilot_id,
        "execution_window_utc": f"{window.start} to {window.end}",
        "total_cost_usd": total,
        "total_judge_calls": judge_calls,
        "total_candidate_calls": sum(1 for o, _ in outcomes if o.response is not None),
        "results_per_task": per_task,
        "aggregate": {
            **{f"{h.id}_pass_count": len(passes[h.id]) for h in hypotheses},
            "critical_failures": len(critical),
            "pilot_verdict": "FAIL" if reasons else "PASS",
        },
        "evalgate": {
            "rubric": {"id": rubric.id, "version": rubric.version},
            "manifest_anchor": window.anchor,
            "min_tasks": config.min_tasks,
            "hypotheses": [
                {
                    **h.model_dump(),
                    "passing_tasks": passes[h.id],
                    "pass": len(passes[h.id]) >= config.min_tasks,
                }
                for h in hypotheses
            ],
            "records": len(outcomes),
            "strict_passes": sum(1 for _, t in outcomes if t.strict_pass),
            "trio_fails": [_where(o) for o, t in outcomes if t.fail],
            "critical": [_where(o) for o in critical],
            "judge_errors": sum(1 for o, _ in outcomes for j in o.judges if j.error),
            "not_judged": [{"cell": _where(o), "why": t.why_not} for o, t in unjudged],
            "known_cost_usd": known,
            "calls_without_cost": without,
            "judge_usage": judge_usage([o for o, _ in outcomes]),
            "reasons": reasons,
        },
    }
