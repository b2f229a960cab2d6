"""`evalgate calibrate [GOLD_DIR] --judge SPEC ...`: the command over evalgate/validity/calibrate.py.

Prints the calibration (a table per dimension, the annotators' agreement, the judge-vs-mechanical
disagreements, the position effect, the verdict against the floors) or its JSON, and with `--record
FILE` writes the calibration record that `check` and the action cite (`calibration:`).

Exit codes: 0 when every floor is met, 1 below one, 2 on usage errors (no judge, unreadable gold set,
a floor outside its range, a record that cannot be written).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from evalgate.config import ConfigError
from evalgate.judging.agreement import Kappa
from evalgate.rubric import CalibrationFloors, RubricError, load_rubric
from evalgate.validity.calibrate import Calibration, record, run_calibration
from evalgate.validity.gold import GoldError, load_gold
from evalgate.validity.position import render_text as position_text

EXIT_OK, EXIT_BELOW_BAR, EXIT_USAGE = 0, 1, 2
DEFAULT_GOLD_DIR = "gold"


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _kappa(k: Kappa) -> str:
    return f"{k.value:.2f}" if k.value is not None else "n/a"


def _human_lines(result: Calibration) -> list[str]:
    agreed = result.agreed
    if agreed is None:
        return []
    several = len(result.annotators) > 1
    lines = [""]
    if several and result.humans:
        lines.append(f"human agreement ({', '.join(result.annotators)}):")
        for a in result.humans:
            agreement = f"exact {_figure(a.exact):>4}  ±1 {_figure(a.within_one):>4}"
            kappa = f"kappa ({a.kappa_kind}) {_kappa(a.kappa)}"
            lines.append(f"  {a.dimension:32} {a.items:>3} items  {agreement}  {kappa}")
    elif several:
        lines.append(f"human agreement ({', '.join(result.annotators)}): no item was labelled by two of them")
    if not several:
        lines.append(
            f"one annotator ({result.annotators[0]}): the judges are held to all {agreed.single} judged "
            "labels; human agreement needs a second annotator's labels (`annotations:`)"
        )
        return lines
    lines.append(
        f"judged against the labels the annotators agree on: {agreed.agreed} pair(s) labelled alike by "
        f"several, {agreed.single} by one; {len(agreed.disputed)} left out (the annotators differ)"
    )
    lines.extend(f"  humans differ: {d}" for d in agreed.disputed)
    return lines


def render_text(result: Calibration) -> str:
    """A plain table per dimension, the pooled figures, the humans' agreement and the verdict."""
    judges = ", ".join(result.judges) or "(no judge)"
    lines = [f"calibration of {judges} on {result.rubric} ({result.rubric_version})", ""]
    header = ("dimension", "kind", "n", "exact", "±1", "kappa", "w-lin", "w-quad")
    lines.append("{:34} {:13} {:>3} {:>6} {:>6} {:>6} {:>6} {:>6}".format(*header))
    for d in (*result.dimensions, result.overall):
        lines.append(
            f"{d.dimension:34} {d.kind:13} {d.items:>3} {_figure(d.exact):>6} {_figure(d.within_one):>6} "
            f"{_kappa(d.kappa):>6} {_kappa(d.weighted_linear):>6} {_kappa(d.weighted_quadratic):>6}"
        )
    lines.extend(_human_lines(result))
    lines.append("")
    lines.append(
        f"judge vs mechanical (judged dimensions a check also computes): "
        f"{len(result.mechanical_disagreements)} of {result.mechanical_comparisons} disagree "
        f"({_figure(result.mechanical_rate)})"
    )
    lines.extend(f"  {note}" for note in result.mechanical_disagreements)
    for d in result.judged:
        lines.extend(f"  miss {d.dimension}: {m}" for m in d.misses)
    lines.extend(f"  not evaluated: {u}" for u in result.unevaluated)
    lines.extend(position_text(result.position, "mean error (score minus label)"))
    floors = result.floors
    rule = (
        f"exact agreement ≥ {floors.exact:.0%}, within one ≥ {floors.within_one:.0%}, "
        f"kappa ({result.kappa_kind}) ≥ {floors.kappa:.2f} on every judged dimension"
    )
    if result.passed:
        lines.append(
            f"PASS: exact agreement {_figure(result.overall.exact)}, within one "
            f"{_figure(result.overall.within_one)}; floors: {rule}"
        )
    else:
        lines.append(f"FAIL: {'; '.join(result.failures)} (floors: {rule})")
    return "\n".join(lines) + "\n"


def _floors(args: argparse.Namespace, base: CalibrationFloors) -> CalibrationFloors:
    """The floors the options change: `--min-exact`, `--min-within-one`, `--min-kappa`, `--kappa`,
    and the older `--bar X --metric exact|within_one` (the floor of that agreement)."""
    changes: dict[str, Any] = {}
    if args.bar is not None:
        changes["within_one" if args.metric == "within_one" else "exact"] = args.bar
    for option, name in (("min_exact", "exact"), ("min_within_one", "within_one"), ("min_kappa", "kappa")):
        if getattr(args, option) is not None:
            changes[name] = getattr(args, option)
    if args.kappa is not None:
        changes["kappa_kind"] = args.kappa
    return dataclasses.replace(base, **changes)


def _share_option(args: argparse.Namespace) -> str | None:
    for option in ("bar", "min_exact", "min_within_one"):
        value = getattr(args, option)
        if value is not None and not 0.0 <= value <= 1.0:
            return f"--{option.replace('_', '-')} must be between 0 and 1, got {value}"
    if args.min_kappa is not None and not -1.0 <= args.min_kappa <= 1.0:
        return f"--min-kappa must be between -1 and 1, got {args.min_kappa}"
    return None


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Handler of `evalgate calibrate`: print the calibration and exit 0/1 by the floors, 2 on usage."""
    from evalgate.config import config_from_args

    problem = _share_option(args)
    if problem:
        print(f"evalgate calibrate: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = config_from_args(args)
        if not config.judges:
            print("evalgate calibrate: name at least one judge with --judge SPEC", file=sys.stderr)
            return EXIT_USAGE
        gold = load_gold(args.gold_dir, args.rubric)
        rubric = load_rubric(args.rubric or gold.rubric)
        floors = _floors(args, config.calibration_floors or rubric.calibration)
        result, report = run_calibration(args.gold_dir, config, floors=floors, rubric_override=args.rubric)
    except (GoldError, RubricError, ConfigError) as exc:
        print(f"evalgate calibrate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.calibration_record:
        text = json.dumps(record(result, report, gold), indent=2) + "\n"
        try:
            Path(args.calibration_record).write_text(text, encoding="utf-8")
        except OSError as exc:
            why = exc.strerror or exc
            print(f"evalgate calibrate: cannot write {args.calibration_record}: {why}", file=sys.stderr)
            return EXIT_USAGE
    text = json.dumps(result.to_json(), indent=2) + "\n" if args.format == "json" else render_text(result)
    sys.stdout.write(text)
    return EXIT_OK if result.passed else EXIT_BELOW_BAR


def register(subparsers: Any, help_text: str) -> None:
    """Add `calibrate` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    from evalgate.config import add_run_options

    parser = subparsers.add_parser("calibrate", help=help_text)
    parser.add_argument("gold_dir", nargs="?", default=DEFAULT_GOLD_DIR, metavar="GOLD_DIR")
    add_run_options(parser, record_replies="--record-replies")
    parser.add_argument("--min-exact", type=float, help="floor of pooled exact agreement, 0-1 (rubric's)")
    parser.add_argument("--min-within-one", type=float, help="floor of pooled agreement within one, 0-1")
    parser.add_argument("--min-kappa", type=float, help="floor of kappa on every judged dimension")
    parser.add_argument(
        "--kappa", choices=("cohen", "linear", "quadratic"), help="which kappa the floor applies to"
    )
    parser.add_argument("--bar", type=float, help="the floor of --metric's agreement (older form)")
    parser.add_argument(
        "--metric", choices=("exact", "within_one"), default="exact", help="the agreement --bar applies to"
    )
    parser.add_argument(
        "--record", dest="calibration_record", metavar="FILE", help="write the calibration record here (JSON)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(func=cmd_calibrate)
