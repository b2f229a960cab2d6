"""`evalgate pilot CONFIG`: a multiplier pilot — tasks x cells (model x configuration), judged blind.

Each task is a knowledge-work item without its response (persona, scenario, question, materials);
each cell's candidate response to it is a file. Every (task, cell) is judged by every judge (a trio)
on the rubric's six dimensions, seeing only the named input parts: never the model, the
configuration or the cell. The run writes one JSONL record per (task, cell) and `pilot-summary.json`:
per-task trio means per cell, the hypotheses' deltas (B-A, D-C, D-A by default) with their
directional passes, critical failures, and the verdict — PASS when every hypothesis has the right
sign (and reaches its minimum delta, where it asks for one) in at least `min_tasks` tasks and no
(task, cell) is a critical failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalgate.judging.backends import Backend, UnknownBackendError, make_backend
from evalgate.judging.ensemble import critical_fail, strict_pass
from evalgate.judging.family import generator_warnings
from evalgate.judging.judge import JudgeJob, JudgeOutcome, judge_label, judge_many
from evalgate.results import Status
from evalgate.rubric import Rubric, RubricError, load_rubric
from evalgate.yamlsafe import safe_load

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
METRIC_KEYS = ("latency_ms", "tokens_in", "tokens_out", "cost_usd")


class PilotError(Exception):
    """A pilot configuration or one of its files is unusable; the message names the file."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Cell(_Strict):
    """One arm of the experiment: a model under a configuration."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    model: str
    configuration: str


class Task(_Strict):
    """One task: a YAML item with the rubric's parts except the response."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    item: str  # path, relative to the config file


class Hypothesis(_Strict):
    """`higher` is expected to beat `lower`: trio mean delta > 0, and >= min_delta when given."""

    id: str
    higher: str
    lower: str
    min_delta: float | None = None


DEFAULT_HYPOTHESES = (
    Hypothesis(id="B-A", higher="B", lower="A", min_delta=0.30),
    Hypothesis(id="D-C", higher="D", lower="C", min_delta=0.30),
    Hypothesis(id="D-A", higher="D", lower="A"),
)


class PilotConfig(_Strict):
    """The pilot's shape; file paths are relative to the config file."""

    rubric: str = "knowledge-work"
    judges: tuple[str, ...] = ()
    seed: int = 0
    jobs: int = 4
    tasks: tuple[Task, ...] = Field(min_length=1)
    cells: tuple[Cell, ...] = Field(min_length=2)
    responses: str = "responses/{task_id}/{cell_id}.md"
    metrics: str | None = "responses/{task_id}/{cell_id}.json"  # optional per-file latency/tokens/cost
    hypotheses: tuple[Hypothesis, ...] = DEFAULT_HYPOTHESES
    min_tasks: int = 2  # a hypothesis passes when its direction is right in at least this many tasks
    output: str = "pilot-out"
    manifest_anchor: str | None = None  # default: sha256 over the config and every response


@dataclass(frozen=True)
class Candidate:
    """One (task, cell): the item the judges see and the response's own accounting."""

    task: Task
    cell: Cell
    item_text: str  # YAML of the task's parts plus the response: the judges see only the parts
    response: str
    metrics: dict[str, Any]


def load_pilot_config(path: Path) -> PilotConfig:
    """Load and validate a pilot config (PilotError with the file and key on any problem)."""
    try:
        raw = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PilotError(f"{path}: cannot load pilot config: {exc}") from None
    try:
        config = PilotConfig.model_validate(raw if isinstance(raw, dict) else {})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise PilotError(f"{path}: invalid pilot config: {problems}") from None
    cell_ids = {c.id for c in config.cells}
    for h in config.hypotheses:
        if not {h.higher, h.lower} <= cell_ids:
            raise PilotError(
                f"{path}: hypothesis {h.id} names a cell not in cells ({', '.join(sorted(cell_ids))})"
            )
    return config


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PilotError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def load_candidates(config: PilotConfig, base: Path) -> list[Candidate]:
    """Every (task, cell) with its response file read; PilotError names a missing file."""
    out = []
    for task in config.tasks:
        item = safe_load(_read(base / task.item))
        if not isinstance(item, dict):
            raise PilotError(f"{base / task.item}: a task item must be a YAML mapping")
        for cell in config.cells:
            where = {"task_id": task.id, "cell_id": cell.id}
            response = _read(base / config.responses.format(**where))
            metrics: dict[str, Any] = {}
            metrics_path = base / config.metrics.format(**where) if config.metrics else None
            if metrics_path is not None and metrics_path.is_file():
                loaded = json.loads(_read(metrics_path))
                metrics = {k: loaded.get(k) for k in METRIC_KEYS} if isinstance(loaded, dict) else {}
            text = yaml.safe_dump({**item, "response": response}, sort_keys=False, allow_unicode=True)
            out.append(Candidate(task, cell, text, response, metrics))
    return out


def manifest_anchor(config_text: str, candidates: list[Candidate]) -> str:
    """A content hash over the config and every candidate response, in order."""
    digest = hashlib.sha256(config_text.encode())
    for c in candidates:
        digest.update(f"\0{c.task.id}\0{c.cell.id}\0{c.response}".encode())
    return "sha256:" + digest.hexdigest()


def head_sha(directory: Path) -> str | None:
    """The commit checked out where the pilot lives, or None outside a git work tree."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _judge_entry(rubric: Rubric, outcome: JudgeOutcome, label: str, pass_mean: float) -> dict[str, Any]:
    scores = {d.id: d.score for d in outcome.dimensions}
    errors = [d.error for d in outcome.dimensions if d.status is not Status.SCORED]
    complete = not errors and all(v is not None for v in scores.values())
    mean = fmean(v for v in scores.values() if v is not None) if complete else None
    rationale = next((d.reasoning for d in outcome.dimensions if d.reasoning), None)
    return {
        "judge": label,
        "scores": scores,
        "rationale": rationale,
        "mean": None if mean is None else round(mean, 4),
        "verdict": None if mean is None else ("PASS" if mean >= pass_mean else "FAIL"),
        "error": "; ".join(sorted({e for e in errors if e})) or None,
    }


def build_record(
    rubric: Rubric, candidate: Candidate, judges: list[dict[str, Any]], anchor: str, sha: str | None
) -> dict[str, Any]:
    """One JSONL record for one (task, cell) from its judges' entries."""
    ensemble = rubric.policy.ensemble
    means = {j["judge"]: j["mean"] for j in judges if j["mean"] is not None}
    heard = len(means) >= max(ensemble.quorum, 1) and not (
        ensemble.on_judge_error == "fail" and len(means) < len(judges)
    )
    pass_n = ensemble.strict_pass_judges or (len(judges) // 2 + 1)
    pass_mean = ensemble.strict_pass_mean if ensemble.strict_pass_mean is not None else 3.5
    below = ensemble.critical_fail_below if ensemble.critical_fail_below is not None else 2.0
    return {
        "task_id": candidate.task.id,
        "cell_id": candidate.cell.id,
        "model": candidate.cell.model,
        "configuration": candidate.cell.configuration,
        "candidate_response": candidate.response,
        **{f"candidate_{k}": candidate.metrics.get(k) for k in METRIC_KEYS},
        "judges": judges,
        "trio_mean": round(fmean(means.values()), 4) if heard else None,
        "trio_strict_pass": strict_pass(means, judges=pass_n, at_least=pass_mean) if heard else False,
        "trio_critical_fail": critical_fail(means, below=below) if heard else False,
        "manifest_anchor": anchor,
        "head_sha": sha,
        "rubric": {"id": rubric.id, "version": rubric.version},
    }


def summarise(config: PilotConfig, records: list[dict[str, Any]]) -> dict[str, Any]:
    """pilot-summary.json from the records: cell means per task, hypotheses, counts, verdict."""
    table: dict[str, dict[str, float | None]] = {t.id: {} for t in config.tasks}
    for r in records:
        table[r["task_id"]][r["cell_id"]] = r["trio_mean"]
    reasons: list[str] = []
    hypotheses = []
    for h in config.hypotheses:
        per_task = {}
        for task_id, cells in table.items():
            hi, lo = cells.get(h.higher), cells.get(h.lower)
            delta = None if hi is None or lo is None else round(hi - lo, 4)
            ok = delta is not None and delta > 0 and (h.min_delta is None or delta >= h.min_delta - 1e-9)
            per_task[task_id] = {"delta": delta, "pass": ok}
        right = sum(1 for v in per_task.values() if v["pass"])
        passed = right >= config.min_tasks
        if not passed:
            needs = f"needs {config.min_tasks}"
            reasons.append(
                f"hypothesis {h.id}: direction right in {right} of {len(per_task)} tasks ({needs})"
            )
        hypotheses.append(
            {
                "id": h.id,
                "delta": f"{h.higher}-{h.lower}",
                "min_delta": h.min_delta,
                "per_task": per_task,
                "tasks_passing": right,
                "pass": passed,
            }
        )
    critical = [
        {"task_id": r["task_id"], "cell_id": r["cell_id"]} for r in records if r["trio_critical_fail"]
    ]
    if critical:
        reasons.append(f"{len(critical)} critical failure(s)")
    unjudged = [f"{r['task_id']}/{r['cell_id']}" for r in records if r["trio_mean"] is None]
    if unjudged:
        reasons.append(f"not judged by a quorum: {', '.join(unjudged)}")
    judge_entries = [j for r in records for j in r["judges"]]
    return {
        "tasks": table,
        "hypotheses": hypotheses,
        "counts": {
            "tasks": len(config.tasks),
            "cells": len(config.cells),
            "records": len(records),
            "judgements": len(judge_entries),
            "judge_errors": sum(1 for j in judge_entries if j["error"]),
            "strict_passes": sum(1 for r in records if r["trio_strict_pass"]),
        },
        "critical_failures": critical,
        "verdict": "FAIL" if reasons else "PASS",
        "reasons": reasons,
    }


def run_pilot(
    config: PilotConfig, base: Path, judges: list[Backend], *, config_text: str = ""
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """Judge every (task, cell) with every judge: (records, summary, warnings)."""
    rubric = load_rubric(config.rubric)
    candidates = load_candidates(config, base)
    jobs = [JudgeJob(c.item_text, rubric, j, config.seed) for c in candidates for j in judges]
    outcomes = judge_many(jobs, max_workers=config.jobs)
    anchor = config.manifest_anchor or manifest_anchor(config_text, candidates)
    sha = head_sha(base)
    pass_mean = rubric.policy.ensemble.strict_pass_mean or 3.5
    labels = [judge_label(j) for j in judges]
    records = []
    for i, candidate in enumerate(candidates):
        mine = outcomes[i * len(judges) : (i + 1) * len(judges)]
        entries = [_judge_entry(rubric, o, label, pass_mean) for o, label in zip(mine, labels, strict=True)]
        records.append(build_record(rubric, candidate, entries, anchor, sha))
    warnings = sorted(
        {
            w
            for c in config.cells
            for w in generator_warnings(c.model, zip(labels, [j.model for j in judges], strict=True))
        }
    )
    return records, summarise(config, records), warnings


def write_outputs(directory: Path, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """`pilot.jsonl` (one record per task x cell) and `pilot-summary.json` in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    (directory / "pilot.jsonl").write_text(lines, encoding="utf-8")
    (directory / "pilot-summary.json").write_text(
        json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def cmd_pilot(args: argparse.Namespace) -> int:
    """Handler for `evalgate pilot CONFIG [--judge SPEC ...] [--output DIR]`."""
    path = Path(args.config)
    try:
        config = load_pilot_config(path)
        specs = list(args.judge or config.judges)
        if not specs:
            raise PilotError(f"{path}: no judges: list them under `judges:` or give --judge")
        judges = [make_backend(s, timeout=args.judge_timeout) for s in specs]
        records, summary, warnings = run_pilot(config, path.parent, judges, config_text=_read(path))
    except (PilotError, RubricError, UnknownBackendError, ValueError) as exc:
        print(f"evalgate pilot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out_dir = Path(args.output) if args.output else path.parent / config.output
    write_outputs(out_dir, records, summary)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"pilot {summary['verdict']}: {len(records)} records in {out_dir / 'pilot.jsonl'}")
    for reason in summary["reasons"]:
        print(f"  {reason}")
    return EXIT_PASS if summary["verdict"] == "PASS" else EXIT_FAIL


def register(subparsers: Any, help_text: str) -> None:
    """Add `pilot` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    p = subparsers.add_parser("pilot", help=help_text)
    p.add_argument("config", help="pilot configuration YAML")
    p.add_argument(
        "--judge", action="append", metavar="SPEC", help="judge backend (repeatable; overrides config)"
    )
    p.add_argument("--output", metavar="DIR", help="where pilot.jsonl and pilot-summary.json go")
    p.add_argument("--judge-timeout", type=float, default=600.0, help="seconds per judge call")
    p.set_defaults(func=cmd_pilot)
