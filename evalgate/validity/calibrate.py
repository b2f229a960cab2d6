"""`evalgate calibrate`: measure the configured judges against a labelled gold set.

The gold set (evalgate/validity/gold.py) gives, per hand-written item, the score careful humans gave
each judged dimension (one annotator, or several), the score each structural check must compute,
and the verdicts. Calibration runs the ordinary pipeline on those items and compares the judges'
scores with the labels the annotators agree on (`gold.consensus`: a pair the annotators scored
differently is left out and listed), per dimension and pooled over the judged dimensions: exact
agreement, agreement within one point, Cohen's kappa and the weighted kappas. Where several
annotators labelled an item it first reports how far they agree with each other.

The calibration passes when it meets every floor (the rubric's `calibration:` block, the
configuration's `calibration-floors`, or the options): pooled exact agreement, pooled agreement
within one, and kappa on each judged dimension (quadratic-weighted on an ordinal scale, Cohen's on a
binary one, unless `kappa_kind` says otherwise). `--record FILE` stores the result
(evalgate/judging/calibration.py), which `check` and the action then cite (`calibration:`).

It also counts the judge-vs-mechanical disagreements: where a judged dimension is ALSO computed by a
deterministic check (its `mechanical:` check), the judge disagreeing is the judge being wrong. Only
such dimensions count: a structural defect the judge was told not to judge is not its error.

The command itself (options, text report, exit codes) is in calibrate_command.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalgate.config import Config
from evalgate.judging.agreement import DimensionAgreement, Kappa, cohen_kappa, weighted_kappa
from evalgate.judging.calibration import DimensionFigures, below_floors, record_data
from evalgate.results import FileResult, Report, Status
from evalgate.rubric import CalibrationFloors, KappaKind, Rubric, load_rubric
from evalgate.validity.gold import (
    Consensus,
    GoldError,
    GoldItem,
    GoldSet,
    consensus,
    human_agreement,
    load_gold,
)
from evalgate.validity.position import PositionEffect, label_errors, orders_varied, position_effects

__all__ = ["GoldError", "GoldItem", "GoldSet", "calibrate", "load_gold", "run_calibration"]


@dataclass(frozen=True)
class DimensionCalibration:
    """The judges' scores for one dimension against the human labels."""

    dimension: str
    kind: str
    items: int
    exact: float | None
    within_one: float | None
    kappa: Kappa
    weighted_linear: Kappa
    weighted_quadratic: Kappa
    misses: tuple[str, ...] = ()  # "file: label L, scored S" for each disagreement

    def figures(self) -> DimensionFigures:
        """What a calibration record keeps of it."""
        kappas = {
            "cohen": self.kappa.value,
            "weighted_linear": self.weighted_linear.value,
            "weighted_quadratic": self.weighted_quadratic.value,
        }
        return DimensionFigures(self.dimension, self.items, self.exact, self.within_one, kappas)

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "kind": self.kind,
            "items": self.items,
            "exact": _round(self.exact),
            "within_one": _round(self.within_one),
            "cohen_kappa": self.kappa.to_json(),
            "weighted_kappa": {
                "linear": self.weighted_linear.to_json(),
                "quadratic": self.weighted_quadratic.to_json(),
            },
            "misses": list(self.misses),
        }


@dataclass(frozen=True)
class Calibration:
    """Everything a calibration run measured, and whether it met the floors."""

    rubric: str
    rubric_version: str
    judges: tuple[str, ...]
    dimensions: tuple[DimensionCalibration, ...]
    overall: DimensionCalibration
    mechanical_comparisons: int
    mechanical_disagreements: tuple[str, ...]
    unevaluated: tuple[str, ...]
    floors: CalibrationFloors = field(default_factory=CalibrationFloors)
    kappa_kind: KappaKind = "quadratic"
    position: tuple[PositionEffect, ...] = ()  # per judged dimension: its error by its place in the list
    items: int = 0  # gold items evaluated
    annotators: tuple[str, ...] = ()
    humans: tuple[DimensionAgreement, ...] = ()  # annotator against annotator, per judged dimension
    agreed: Consensus | None = None  # what the annotators agree on (the labels the judges are held to)

    @property
    def mechanical_rate(self) -> float | None:
        if not self.mechanical_comparisons:
            return None
        return len(self.mechanical_disagreements) / self.mechanical_comparisons

    @property
    def judged(self) -> tuple[DimensionCalibration, ...]:
        return tuple(d for d in self.dimensions if d.kind == "judge")

    @property
    def failures(self) -> tuple[str, ...]:
        """Every floor not met, in words; empty when the calibration passes."""
        if not self.overall.items:
            return ("no judged label was compared (no judged item could be scored)",)
        figures = [d.figures() for d in self.judged]
        exact, near = self.overall.exact, self.overall.within_one
        return tuple(below_floors(self.floors, self.kappa_kind, exact, near, figures))

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rubric": {"id": self.rubric, "version": self.rubric_version},
            "judges": list(self.judges),
            "floors": {**dataclasses.asdict(self.floors), "kappa_kind": self.kappa_kind},
            "passed": self.passed,
            "failures": list(self.failures),
            "items": self.items,
            "overall": self.overall.to_json(),
            "dimensions": [d.to_json() for d in self.dimensions],
            "mechanical": {
                "comparisons": self.mechanical_comparisons,
                "disagreements": list(self.mechanical_disagreements),
                "rate": _round(self.mechanical_rate),
            },
            "unevaluated": list(self.unevaluated),
            "position_effect": {
                "value": "score minus label",
                "varied": orders_varied(self.position),
                "criteria": [e.to_json() for e in self.position],
            },
        }
        out["human_agreement"] = human_json(self)
        return out


def human_json(result: Calibration) -> dict[str, Any]:
    """The annotators' agreement with each other, and what it left the judges to be held to."""
    agreed = result.agreed
    return {
        "annotators": list(result.annotators),
        "agree_means": "every annotator who labelled an (item, dimension) gave the same score",
        "dimensions": {a.dimension: a.to_json() for a in result.humans},
        "pairs": {
            "single_annotator": agreed.single if agreed else 0,
            "agreed": agreed.agreed if agreed else 0,
            "disputed": len(agreed.disputed) if agreed else 0,
        },
        "disputed": list(agreed.disputed) if agreed else [],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def compare_scores(
    dimension: str, kind: str, pairs: list[tuple[str, int, int | None]], scale: tuple[int, int]
) -> DimensionCalibration:
    """Agreement of (file, label, score) triples; a missing score (judge error) counts as a miss."""
    scored = [(label, score) for _, label, score in pairs if score is not None]
    labels = [label for label, _ in scored]
    scores = [score for _, score in scored]
    total = len(pairs)
    exact = sum(1 for _, label, score in pairs if score == label)
    near = sum(1 for _, label, score in pairs if score is not None and abs(score - label) <= 1)
    return DimensionCalibration(
        dimension,
        kind,
        total,
        exact / total if total else None,
        near / total if total else None,
        cohen_kappa(labels, scores),
        weighted_kappa(labels, scores, weights="linear", scale=scale),
        weighted_kappa(labels, scores, weights="quadratic", scale=scale),
        tuple(f"{f}: label {label}, scored {score}" for f, label, score in pairs if score != label),
    )


def _match(report: Report, gold: GoldSet) -> tuple[list[tuple[GoldItem, FileResult]], list[str]]:
    """Pair each gold item with its result (display paths are relative to the gold directory)."""
    by_path = {r.path: r for r in report.results}
    matched, unevaluated = [], []
    for item in gold.items:
        result = by_path.get(item.file) or by_path.get(str(gold.directory / item.file))
        if result is None or result.error is not None:
            unevaluated.append(f"{item.file}: {result.error if result else 'not in the report'}")
        else:
            matched.append((item, result))
    return matched, unevaluated


def _mechanical(rubric: Rubric, item: GoldItem, result: FileResult) -> tuple[int, list[str]]:
    """Judge-vs-mechanical comparisons for one file, over the judged dimensions a deterministic check
    also computes (`mechanical:`): (count, disagreements)."""
    by_id = {d.id: d for d in result.dimensions}
    count, wrong = 0, []
    for dim in rubric.judged:
        judged, computed = by_id.get(dim.id), by_id.get(dim.mechanical or "")
        if judged is None or computed is None or judged.score is None or computed.score is None:
            continue
        count += 1
        if judged.score != computed.score:
            wrong.append(
                f"{item.file}: {dim.id} judged {judged.score}, {computed.id} computed {computed.score}"
            )
    return count, wrong


def calibrate(
    report: Report, gold: GoldSet, rubric: Rubric, *, floors: CalibrationFloors | None = None
) -> Calibration:
    """Compare a report on the gold items with the labels the annotators agree on."""
    floors = floors or rubric.calibration
    matched, unevaluated = _match(report, gold)
    agreed = consensus(gold)
    scale = (rubric.scale.min, rubric.scale.max)
    per_dimension: list[DimensionCalibration] = []
    pooled: list[tuple[str, int, int | None]] = []
    for dim in rubric.dimensions:
        pairs: list[tuple[str, int, int | None]] = []
        for item, result in matched:
            labels = agreed.labels.get(item.file, {}) if dim.kind == "judge" else item.deterministic
            found = next((d for d in result.dimensions if d.id == dim.id), None)
            if dim.id not in labels or found is None or found.status is Status.SKIPPED:
                continue
            pairs.append((item.file, labels[dim.id], found.score if found.status is Status.SCORED else None))
        if pairs:
            per_dimension.append(compare_scores(dim.id, dim.kind, pairs, scale))
            if dim.kind == "judge":
                pooled.extend((f"{dim.id} {f}", label, score) for f, label, score in pairs)
    comparisons, wrong = 0, []
    for item, result in matched:
        count, notes = _mechanical(rubric, item, result)
        comparisons += count
        wrong.extend(notes)
    labelled = ((agreed.labels.get(item.file, {}), result) for item, result in matched)
    return Calibration(
        rubric=rubric.id,
        rubric_version=rubric.version,
        judges=report.judges,
        dimensions=tuple(per_dimension),
        overall=compare_scores("overall (judged)", "judge", pooled, scale),
        mechanical_comparisons=comparisons,
        mechanical_disagreements=tuple(wrong),
        unevaluated=tuple(unevaluated),
        floors=floors,
        kappa_kind=floors.kind_for(rubric.scale),
        position=tuple(position_effects(label_errors(labelled))),
        items=len(matched),
        annotators=gold.annotators,
        humans=tuple(human_agreement(gold, rubric)),
        agreed=agreed,
    )


def run_calibration(
    gold_dir: str | Path,
    config: Config,
    *,
    floors: CalibrationFloors | None = None,
    rubric_override: str | None = None,
) -> tuple[Calibration, Report]:
    """Evaluate the gold items with the configured judges and compare with the labels.

    The labels were written against the gold set's own rubric (`rubric:` in labels.yml, or the pack
    the directory is named after), so that rubric is used whatever `.evalgate.yml` says;
    `rubric_override` (the CLI's --rubric) replaces it, e.g. to calibrate an edited copy of the
    rubric before it ships. Every item is judged: the configuration's judging budget, calibration
    requirement and per-document budgets do not apply to a measurement.
    """
    from evalgate.run import run

    gold = load_gold(gold_dir, rubric_override)
    config = config.with_overrides(rubric=gold.rubric).for_measurement()
    rubric = load_rubric(config.rubric)
    base = gold.directory.resolve()
    report = run(config.with_overrides(root=str(base)), [item.file for item in gold.items], base=base)
    return calibrate(report, gold, rubric, floors=floors or config.calibration_floors), report


def record(result: Calibration, report: Report, gold: GoldSet, now: datetime | None = None) -> dict[str, Any]:
    """The calibration record `--record FILE` writes (evalgate/judging/calibration.py reads it)."""
    models: list[dict[str, None]] = [{} for _ in report.judges]
    for r in report.results:
        for index, call in enumerate(r.judges[: len(models)]):
            if call.model:
                models[index][call.model] = None
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return record_data(
        date=stamp,
        rubric={"id": result.rubric, "version": result.rubric_version, "prompt": report.rubric.prompt},
        judges=[(spec, list(found)) for spec, found in zip(report.judges, models, strict=True)],
        gold={"directory": str(gold.directory), "items": result.items, "annotators": list(gold.annotators)},
        floors={**dataclasses.asdict(result.floors), "kappa_kind": result.kappa_kind},
        passed=result.passed,
        failures=list(result.failures),
        overall=result.overall.figures(),
        dimensions=[d.figures() for d in result.judged],
        human_agreement=human_json(result),
    )
