"""`evalgate calibrate`: measure the configured judges against a labelled gold set.

The gold set (gold/labels.yml) gives, per hand-written item, the score a careful human gave each
judged dimension, the score each structural check must compute, and the verdicts. Calibration runs the
ordinary pipeline on those items and compares, per dimension and pooled over all judged dimensions:
exact agreement, agreement within one point, Cohen's kappa and weighted kappa (Likert scores are
ordinal, so a 4 against a 5 costs less than a 1 against a 5).

It also counts the judge-vs-mechanical disagreements: where a dimension is ALSO computed
deterministically (a judged dimension's `mechanical:` check), or where the structural checks already
fail the item but the judge claims PASS, the judge disagreeing is the judge being wrong.

Exit codes: 0 at or above the bar (default 80% exact agreement on judged dimensions), 1 below it,
2 on usage errors (no judge, unreadable gold set).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evalgate.config import Config
from evalgate.judging.agreement import Kappa, cohen_kappa, weighted_kappa
from evalgate.results import FileResult, Report, Status
from evalgate.rubric import Rubric, RubricError, load_rubric
from evalgate.validity.position import PositionEffect, label_errors, orders_varied, position_effects
from evalgate.validity.position import render_text as position_text
from evalgate.yamlsafe import safe_load

EXIT_OK, EXIT_BELOW_BAR, EXIT_USAGE = 0, 1, 2
DEFAULT_GOLD_DIR = "gold"
DEFAULT_BAR = 0.8


class GoldError(Exception):
    """The gold set cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class GoldItem:
    """One labelled item: its file (relative to the gold directory) and the human labels."""

    file: str
    judged: dict[str, int]
    deterministic: dict[str, int] = field(default_factory=dict)
    structural_verdict: str | None = None  # the verdict over the structural checks alone


@dataclass(frozen=True)
class GoldSet:
    """A gold directory's labels for one rubric."""

    directory: Path
    rubric: str
    items: tuple[GoldItem, ...]


def score_mapping(raw: Any, where: str, error: type[GoldError] = GoldError) -> dict[str, int]:
    """A `{dimension id: integer score}` mapping from YAML (None is empty), else `error` at `where`."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, int) for v in raw.values()):
        raise error(f"{where}: expected a mapping of dimension id to an integer score")
    return {str(k): int(v) for k, v in raw.items()}


def read_item_list(
    path: Path, *, missing: str, error: type[GoldError] = GoldError
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """Read a YAML mapping whose `items` list names a `file` each: (top level, [(where, item)]).

    Shared by the gold labels and the canary fixtures; `missing` says what to do when the file is absent.
    """
    try:
        raw = safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
        raise error(f"{path}: expected a mapping with `rubric` and a list of `items`")
    entries = []
    for index, entry in enumerate(raw["items"]):
        where = f"{path}: items[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise error(f"{where}: each item needs a `file`")
        entries.append((where, entry))
    return raw, entries


def load_gold(directory: str | Path) -> GoldSet:
    """Read `DIRECTORY/labels.yml`; every problem is a GoldError naming the file and the item."""
    root = Path(directory)
    missing = "no labels file (a gold set is a directory with labels.yml)"
    raw, entries = read_item_list(root / "labels.yml", missing=missing)
    items = []
    for where, entry in entries:
        verdict = entry.get("verdict")
        structural = verdict.get("structural") if isinstance(verdict, dict) else None
        items.append(
            GoldItem(
                file=entry["file"],
                judged=score_mapping(entry.get("judged"), f"{where}.judged"),
                deterministic=score_mapping(entry.get("deterministic"), f"{where}.deterministic"),
                structural_verdict=str(structural) if structural else None,
            )
        )
    return GoldSet(root, str(raw.get("rubric") or "research-loop"), tuple(items))


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
    """Everything a calibration run measured, and whether it met the bar."""

    rubric: str
    rubric_version: str
    judges: tuple[str, ...]
    dimensions: tuple[DimensionCalibration, ...]
    overall: DimensionCalibration
    mechanical_comparisons: int
    mechanical_disagreements: tuple[str, ...]
    unevaluated: tuple[str, ...]
    bar: float
    metric: str = "exact"
    position: tuple[PositionEffect, ...] = ()  # per judged dimension: its error by its place in the list

    @property
    def mechanical_rate(self) -> float | None:
        if not self.mechanical_comparisons:
            return None
        return len(self.mechanical_disagreements) / self.mechanical_comparisons

    @property
    def score(self) -> float | None:
        return self.overall.exact if self.metric == "exact" else self.overall.within_one

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score >= self.bar

    def to_json(self) -> dict[str, Any]:
        return {
            "rubric": {"id": self.rubric, "version": self.rubric_version},
            "judges": list(self.judges),
            "bar": self.bar,
            "metric": self.metric,
            "passed": self.passed,
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
    """Judge-vs-mechanical comparisons for one file: (count, disagreements)."""
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
    if item.structural_verdict == "FAIL":
        for call in result.judges:
            if call.overall_claimed is None:
                continue
            count += 1
            if call.overall_claimed == "PASS":
                wrong.append(f"{item.file}: {call.backend} claimed PASS but the structural checks fail it")
    return count, wrong


def calibrate(
    report: Report, gold: GoldSet, rubric: Rubric, *, bar: float = DEFAULT_BAR, metric: str = "exact"
) -> Calibration:
    """Compare a report on the gold items with the gold labels."""
    matched, unevaluated = _match(report, gold)
    scale = (rubric.scale.min, rubric.scale.max)
    per_dimension: list[DimensionCalibration] = []
    pooled: list[tuple[str, int, int | None]] = []
    for dim in rubric.dimensions:
        pairs: list[tuple[str, int, int | None]] = []
        for item, result in matched:
            labels = item.judged if dim.kind == "judge" else item.deterministic
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

    return Calibration(
        rubric=rubric.id,
        rubric_version=rubric.version,
        judges=report.judges,
        dimensions=tuple(per_dimension),
        overall=compare_scores("overall (judged)", "judge", pooled, scale),
        mechanical_comparisons=comparisons,
        mechanical_disagreements=tuple(wrong),
        unevaluated=tuple(unevaluated),
        bar=bar,
        metric=metric,
        position=tuple(position_effects(label_errors((item.judged, result) for item, result in matched))),
    )


def run_calibration(
    gold_dir: str | Path,
    config: Config,
    *,
    bar: float = DEFAULT_BAR,
    metric: str = "exact",
    rubric_override: str | None = None,
) -> Calibration:
    """Evaluate the gold items with the configured judges and compare with the labels.

    The labels were written against the gold set's own rubric (`rubric:` in labels.yml), so that rubric
    is used whatever `.evalgate.yml` says; `rubric_override` (the CLI's --rubric) replaces it, e.g. to
    calibrate an edited copy of the rubric before it ships.
    """
    from evalgate.run import run

    gold = load_gold(gold_dir)
    config = config.with_overrides(rubric=rubric_override or gold.rubric)
    rubric = load_rubric(config.rubric)
    base = gold.directory.resolve()
    report = run(config.with_overrides(root=str(base)), [item.file for item in gold.items], base=base)
    return calibrate(report, gold, rubric, bar=bar, metric=metric)


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _kappa(k: Kappa) -> str:
    return f"{k.value:.2f}" if k.value is not None else "n/a"


def render_text(result: Calibration) -> str:
    """A plain table per dimension, the pooled figures and the verdict against the bar."""
    judges = ", ".join(result.judges) or "(no judge)"
    lines = [f"calibration of {judges} on {result.rubric} ({result.rubric_version})", ""]
    header = ("dimension", "kind", "n", "exact", "±1", "kappa", "w-lin", "w-quad")
    lines.append("{:34} {:13} {:>3} {:>6} {:>6} {:>6} {:>6} {:>6}".format(*header))
    for d in (*result.dimensions, result.overall):
        lines.append(
            f"{d.dimension:34} {d.kind:13} {d.items:>3} {_figure(d.exact):>6} {_figure(d.within_one):>6} "
            f"{_kappa(d.kappa):>6} {_kappa(d.weighted_linear):>6} {_kappa(d.weighted_quadratic):>6}"
        )
    lines.append("")
    lines.append(
        f"judge vs mechanical: {len(result.mechanical_disagreements)} of {result.mechanical_comparisons} "
        f"disagree ({_figure(result.mechanical_rate)})"
    )
    lines.extend(f"  {note}" for note in result.mechanical_disagreements)
    for d in result.dimensions:
        if d.kind == "judge":
            lines.extend(f"  miss {d.dimension}: {m}" for m in d.misses)
    lines.extend(f"  not evaluated: {u}" for u in result.unevaluated)
    lines.extend(position_text(result.position, "mean error (score minus label)"))
    verdict = "PASS" if result.passed else "FAIL"
    lines.append(
        f"{verdict}: {result.metric} agreement {_figure(result.score)} against a bar of {result.bar:.0%}"
    )
    return "\n".join(lines) + "\n"


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Handler of `evalgate calibrate`: print the calibration and exit 0/1 by the bar, 2 on usage."""
    from evalgate.config import config_from_args

    if not 0.0 <= args.bar <= 1.0:
        print(f"evalgate calibrate: --bar must be between 0 and 1, got {args.bar}", file=sys.stderr)
        return EXIT_USAGE
    config = config_from_args(args)
    if not config.judges:
        print("evalgate calibrate: name at least one judge with --judge SPEC", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = run_calibration(
            args.gold_dir, config, bar=args.bar, metric=args.metric, rubric_override=args.rubric
        )
    except (GoldError, RubricError) as exc:
        print(f"evalgate calibrate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    text = json.dumps(result.to_json(), indent=2) + "\n" if args.format == "json" else render_text(result)
    sys.stdout.write(text)
    return EXIT_OK if result.passed else EXIT_BELOW_BAR


def register(subparsers: Any, help_text: str) -> None:
    """Add `calibrate` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    from evalgate.config import add_run_options

    parser = subparsers.add_parser("calibrate", help=help_text)
    parser.add_argument("gold_dir", nargs="?", default=DEFAULT_GOLD_DIR, metavar="GOLD_DIR")
    add_run_options(parser)
    parser.add_argument("--bar", type=float, default=DEFAULT_BAR, help="minimum agreement, 0-1 (default 0.8)")
    parser.add_argument(
        "--metric", choices=("exact", "within_one"), default="exact", help="agreement the bar applies to"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(func=cmd_calibrate)
