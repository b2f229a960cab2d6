"""`evalgate canary`: re-judge frozen fixtures and report how far the scores moved.

The fixtures never change, so their scores should not either: a moving score on a stable system is a
judge problem (a new model snapshot, a changed provider default, a prompt edit) until proven
otherwise. A canary directory holds frozen documents, `canary.yml` with the scores recorded for each
(and the sha256 of the prompt that produced them), and by default `replies/`, recorded replies for
`replay:` so the canary runs offline. Drift is the mean absolute change per judged dimension; any
dimension past the tolerance, or any item the judge could not score, fails the canary (exit 1).

`--rebaseline` re-baselines: it judges the fixtures with the given judge, records its replies under
`replies/` (replacing the old recordings) and rewrites the recorded scores, with who recorded them (a
live judge and its model, or a fixture judge: see `canary_baseline`) and the prompt version.

The judge reply cache is always off here: a cached reply would hide exactly the drift being measured.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from evalgate.config import Config
from evalgate.document import DocumentError, read_document
from evalgate.judging.prompt import PromptError, prompt_version, render_judge_prompt
from evalgate.results import Report, Status
from evalgate.rubric import Rubric, RubricError, load_rubric
from evalgate.validity.canary_baseline import (
    SOURCES,
    Baseline,
    Comparison,
    compare_with,
    read_baseline,
    source_of,
)
from evalgate.validity.gold import GoldError, read_item_list, score_mapping

EXIT_OK, EXIT_DRIFT, EXIT_USAGE = 0, 1, 2
DEFAULT_DIR = "gold/canary"
DEFAULT_TOLERANCE = 0.5
FIXTURES_FILE = "canary.yml"
REPLIES_DIR = "replies"


class CanaryError(GoldError):
    """The canary directory is unusable; the message names the file and the entry.

    A canary directory is read like a gold set (a YAML list of items), hence the shared base."""


@dataclass(frozen=True)
class CanaryItem:
    """One frozen document and the judged scores recorded for it."""

    file: str
    scores: dict[str, int]
    prompt_sha256: str | None = None


@dataclass(frozen=True)
class Fixtures:
    """A canary directory's `canary.yml`."""

    directory: Path
    rubric: str
    seed: int
    items: tuple[CanaryItem, ...]
    baseline: Baseline = field(default_factory=lambda: Baseline("unknown"))


@dataclass(frozen=True)
class DimensionDrift:
    """How far one judged dimension moved over the fixtures."""

    dimension: str
    items: int
    mean_abs_change: float
    max_abs_change: int
    changes: tuple[str, ...]  # "file: recorded R, now S" for each item that moved

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "items": self.items,
            "mean_abs_change": round(self.mean_abs_change, 4),
            "max_abs_change": self.max_abs_change,
            "changes": list(self.changes),
        }


@dataclass(frozen=True)
class Drift:
    """The canary's finding: drift per dimension, unscored items, stale recordings, the verdict."""

    dimensions: tuple[DimensionDrift, ...]
    unscored: tuple[str, ...]
    stale: tuple[str, ...]
    tolerance: float
    comparison: Comparison | None = None
    baseline: Baseline | None = None
    judges: tuple[str, ...] = field(default=())  # this run's judges (empty: the recordings replayed)

    @property
    def drifted(self) -> tuple[DimensionDrift, ...]:
        return tuple(d for d in self.dimensions if d.mean_abs_change > self.tolerance)

    @property
    def passed(self) -> bool:
        return not self.drifted and not self.unscored

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "tolerance": self.tolerance,
            "dimensions": [d.to_json() for d in self.dimensions],
            "drifted": [d.dimension for d in self.drifted],
            "unscored": list(self.unscored),
            "stale": list(self.stale),
            "judges": list(self.judges),
            "baseline": None if self.baseline is None else _baseline_json(self.baseline),
            "comparison": None if self.comparison is None else self.comparison.kind,
            "notes": [] if self.comparison is None else list(self.comparison.notes),
        }


def _baseline_json(baseline: Baseline) -> dict[str, Any]:
    return {
        "source": baseline.source,
        "judges": list(baseline.judges),
        "models": list(baseline.models),
        "recorded": baseline.recorded,
        "prompt_version": baseline.prompt_version,
    }


def load_fixtures(directory: str | Path) -> Fixtures:
    """Read `DIRECTORY/canary.yml`; a problem is a CanaryError naming the file and the item."""
    root = Path(directory)
    path = root / FIXTURES_FILE
    missing = "no canary fixtures (record them with --rebaseline --judge SPEC)"
    raw, entries = read_item_list(path, missing=missing, error=CanaryError)
    items = []
    for where, entry in entries:
        scores = score_mapping(entry.get("scores"), f"{where}.scores", CanaryError)
        sha = entry.get("prompt_sha256")
        items.append(CanaryItem(entry["file"], scores, str(sha) if sha else None))
    seed = raw.get("seed", 0)
    if not isinstance(seed, int):
        raise CanaryError(f"{path}: seed must be an integer")
    try:
        baseline = read_baseline(raw)
    except ValueError as exc:
        raise CanaryError(f"{path}: {exc}") from None
    return Fixtures(root, str(raw.get("rubric") or "research-loop"), seed, tuple(items), baseline)


def prompt_sha256(fixtures: Fixtures, rubric: Rubric, item: CanaryItem) -> str | None:
    """The sha256 of the prompt a judge gets for this item now (None if it cannot be rendered)."""
    try:
        document = read_document(fixtures.directory / item.file)
        return render_judge_prompt(rubric, document, fixtures.seed).sha256
    except (DocumentError, PromptError):
        return None


def scores_by_file(report: Report) -> dict[str, dict[str, int | None]]:
    """Each file's judged scores (None where the judge produced none)."""
    return {
        r.path: {
            d.id: d.score if d.status is Status.SCORED else None for d in r.dimensions if d.kind == "judge"
        }
        for r in report.results
    }


def measure_drift(
    items: Sequence[CanaryItem],
    now: dict[str, dict[str, int | None]],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    stale: Sequence[str] = (),
) -> Drift:
    """Compare recorded scores with the scores now, per dimension (pure: no judging here)."""
    changes: dict[str, list[tuple[str, int, int]]] = {}
    unscored: list[str] = []
    for item in items:
        current = now.get(item.file, {})
        for dimension, recorded in item.scores.items():
            score = current.get(dimension)
            if score is None:
                unscored.append(f"{item.file}: {dimension} has no score now (recorded {recorded})")
                continue
            changes.setdefault(dimension, []).append((item.file, recorded, score))
    dims = tuple(
        DimensionDrift(
            dimension,
            len(rows),
            sum(abs(s - r) for _, r, s in rows) / len(rows),
            max(abs(s - r) for _, r, s in rows),
            tuple(f"{f}: recorded {r}, now {s}" for f, r, s in rows if s != r),
        )
        for dimension, rows in sorted(changes.items())
    )
    return Drift(dims, tuple(unscored), tuple(stale), tolerance)


def _config(config: Config, fixtures: Fixtures, judges: tuple[str, ...], record_dir: Path | None) -> Config:
    return config.for_measurement().with_overrides(
        rubric=fixtures.rubric,
        seed=fixtures.seed,
        judges=judges,
        cache=False,
        root=str(fixtures.directory.resolve()),
        record_dir=str(record_dir) if record_dir is not None else None,
    )


def _prompt_version(rubric: Rubric) -> str | None:
    try:
        return prompt_version(rubric)
    except PromptError:
        return None


def _evaluate(config: Config, fixtures: Fixtures) -> Report:
    from evalgate.run import run

    base = fixtures.directory.resolve()
    return run(config, [item.file for item in fixtures.items], base=base)


def run_canary(directory: str | Path, config: Config, *, tolerance: float = DEFAULT_TOLERANCE) -> Drift:
    """Re-judge the fixtures (by default with their recorded replies) and measure the drift."""
    fixtures = load_fixtures(directory)
    judges = config.judges or (f"replay:{fixtures.directory / REPLIES_DIR}",)
    rubric = load_rubric(fixtures.rubric)
    stale = [
        f"{item.file}: the prompt changed since it was recorded (rubric, template or document)"
        for item in fixtures.items
        if item.prompt_sha256 and prompt_sha256(fixtures, rubric, item) != item.prompt_sha256
    ]
    report = _evaluate(_config(config, fixtures, judges, None), fixtures)
    drift = measure_drift(fixtures.items, scores_by_file(report), tolerance=tolerance, stale=stale)
    comparison = compare_with(
        fixtures.baseline, config.judges, str(directory), prompt_now=_prompt_version(rubric)
    )
    return replace(drift, comparison=comparison, baseline=fixtures.baseline, judges=tuple(config.judges))


def record_canary(directory: str | Path, config: Config, *, source: str | None = None) -> Fixtures:
    """Judge the fixtures with the configured judge, record its replies (replacing the old ones) and
    rewrite the scores with who recorded them. `source` (live or fixture) overrides the source the
    judges' backends imply."""
    fixtures = load_fixtures(directory)
    rubric = load_rubric(fixtures.rubric)
    replies = fixtures.directory / REPLIES_DIR
    fresh = fixtures.directory / f".{REPLIES_DIR}-rebaseline"
    shutil.rmtree(fresh, ignore_errors=True)
    report = _evaluate(_config(config, fixtures, config.judges, fresh), fixtures)
    now = scores_by_file(report)
    items = tuple(
        CanaryItem(
            item.file,
            {d: s for d, s in now.get(item.file, {}).items() if s is not None},
            prompt_sha256(fixtures, rubric, item),
        )
        for item in fixtures.items
    )
    models = sorted({f"{j.backend}:{j.model}" for r in report.results for j in r.judges})
    baseline = Baseline(
        source="live" if source == "live" else "fixture" if source == "fixture" else source_of(config.judges),
        judges=tuple(config.judges),
        models=tuple(models),
        recorded=datetime.now(UTC).strftime("%Y-%m-%d"),
        prompt_version=_prompt_version(rubric),
    )
    raw = {
        "rubric": fixtures.rubric,
        "rubric_version": rubric.version,
        "prompt_version": baseline.prompt_version,
        "seed": fixtures.seed,
        "recorded_with": list(config.judges),
        "baseline": baseline.to_data(),
        "items": [{"file": i.file, "prompt_sha256": i.prompt_sha256, "scores": i.scores} for i in items],
    }
    text = (
        "# Canary fixtures: recorded scores; rewrite with `evalgate canary DIR --rebaseline --judge SPEC`.\n"
        f"# Baseline: {baseline.describe()}.\n"
    )
    if baseline.source == "fixture":
        text += (
            "# A fixture baseline: compare a live judge with it only after re-recording it with that judge.\n"
        )
    (fixtures.directory / FIXTURES_FILE).write_text(text + yaml.safe_dump(raw, sort_keys=False), "utf-8")
    # the old recordings answer prompts nobody asks any more: the new set replaces them whole
    shutil.rmtree(replies, ignore_errors=True)
    if fresh.is_dir():
        fresh.rename(replies)
    return Fixtures(fixtures.directory, fixtures.rubric, fixtures.seed, items, baseline)


def render_text(drift: Drift) -> str:
    """What is compared with what, one line per dimension with its drift, then what moved and the
    verdict."""
    lines = []
    if drift.baseline is not None:
        judges = ", ".join(drift.judges) or "the recorded replies"
        lines.append(f"baseline: {drift.baseline.describe()}; now: {judges}")
    if drift.comparison is not None:
        lines.extend(f"note: {n}" for n in drift.comparison.notes)
    lines.append(f"{'dimension':34} {'n':>3} {'drift':>6} {'max':>4}")
    for d in drift.dimensions:
        flag = "  <- past tolerance" if d in drift.drifted else ""
        lines.append(f"{d.dimension:34} {d.items:>3} {d.mean_abs_change:>6.2f} {d.max_abs_change:>4}{flag}")
    for d in drift.dimensions:
        lines.extend(f"  {d.dimension}: {c}" for c in d.changes)
    lines.extend(f"  unscored: {u}" for u in drift.unscored)
    lines.extend(f"  stale: {s}" for s in drift.stale)
    verdict = "PASS" if drift.passed else "FAIL"
    lines.append(f"{verdict}: tolerance {drift.tolerance} mean absolute change per dimension")
    return "\n".join(lines) + "\n"


def cmd_canary(args: argparse.Namespace) -> int:
    """Handler of `evalgate canary`: 0 within tolerance, 1 drift or unscored items, 2 usage errors."""
    from evalgate.config import config_from_args

    if args.tolerance < 0:
        print(f"evalgate canary: --tolerance must be >= 0, got {args.tolerance}", file=sys.stderr)
        return EXIT_USAGE
    config = config_from_args(args)
    try:
        if args.rebaseline:
            if not config.judges:
                print(
                    "evalgate canary: --rebaseline needs the judge to record: --judge SPEC", file=sys.stderr
                )
                return EXIT_USAGE
            fixtures = record_canary(args.directory, config, source=args.baseline_source)
            where = fixtures.directory / FIXTURES_FILE
            print(f"recorded {len(fixtures.items)} canary items in {where}")
            print(f"baseline: {fixtures.baseline.describe()}")
            return EXIT_OK
        drift = run_canary(args.directory, config, tolerance=args.tolerance)
    except (CanaryError, RubricError) as exc:
        print(f"evalgate canary: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(
        json.dumps(drift.to_json(), indent=2) + "\n" if args.format == "json" else render_text(drift)
    )
    return EXIT_OK if drift.passed else EXIT_DRIFT


def register(subparsers: Any, help_text: str) -> None:
    """Add `canary` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    from evalgate.config import add_run_options

    parser = subparsers.add_parser("canary", help=help_text)
    parser.add_argument("directory", nargs="?", default=DEFAULT_DIR, metavar="DIR")
    add_run_options(parser)
    parser.add_argument(
        "--tolerance", type=float, default=DEFAULT_TOLERANCE, help="mean absolute change allowed (0.5)"
    )
    parser.add_argument(
        "--rebaseline", action="store_true", help="judge with --judge, record its replies and scores"
    )
    parser.add_argument(
        "--baseline-source",
        choices=SOURCES,
        help="with --rebaseline: who records it (default: live for copilot and openai judges, else fixture)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(func=cmd_canary)
