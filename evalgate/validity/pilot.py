"""`evalgate pilot CONFIG`: a multiplier pilot — tasks x cells (model x configuration), judged blind.

Each task is a knowledge-work item without its response (persona, scenario, question, materials);
each cell's candidate response to it is a file. Every (task, cell) is judged by every judge (a trio)
on the rubric's six dimensions, seeing only the named input parts: never the model, the
configuration or the cell. The run writes `pilot.jsonl` (one record per task x cell) and
`pilot-summary.json` in the trio protocol's shape (`pilot_records`, `pilot_summary`; their JSON
schemas are `evalgate schema pilot-record|pilot-summary`).

A run that cannot judge everything still writes every record it could: a missing response or task
file, or an errored judge, leaves `null` where a value is unknown, says why in the record's
`evalgate` object and in the summary's reasons, and fails the pilot. Exit 2 is kept for a config
that cannot run at all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from evalgate.judging.backends import Backend, UnknownBackendError
from evalgate.judging.backends.registry import make_backend
from evalgate.judging.family import generator_warnings
from evalgate.judging.judge import JudgeJob, judge_many
from evalgate.rubric import Rubric, RubricError, load_rubric
from evalgate.validity.pilot_config import (
    Cell,
    PilotConfig,
    PilotError,
    Task,
    judge_labels,
    judge_refs,
    load_pilot_config,
)
from evalgate.validity.pilot_records import (
    CellOutcome,
    JudgeVerdict,
    build_record,
    trio_of,
    verdict_from,
)
from evalgate.validity.pilot_summary import RunWindow, summarise
from evalgate.yamlsafe import safe_load

__all__ = ["PilotError", "load_pilot_config", "register", "run_pilot"]

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
METRIC_TYPES: dict[str, type] = {"latency_ms": int, "tokens_in": int, "tokens_out": int, "cost_usd": float}


@dataclass(frozen=True)
class Candidate:
    """One (task, cell): the item the judges see (None when it cannot be judged) and its accounting."""

    task: Task
    cell: Cell
    item_text: str | None  # YAML of the task's parts plus the response: the judges see only the parts
    response: str | None
    metrics: dict[str, Any]
    missing: tuple[str, ...]
    notes: tuple[str, ...]


def _read(path: Path) -> tuple[str | None, str | None]:
    """(text, None) or (None, why it could not be read)."""
    try:
        return path.read_text(encoding="utf-8"), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"


def _task_item(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    text, why = _read(path)
    if text is None:
        return None, f"task item {why}"
    try:
        item = safe_load(text)
    except yaml.YAMLError as exc:
        return None, f"task item {path}: not valid YAML: {exc}"
    if not isinstance(item, dict):
        return None, f"task item {path}: must be a YAML mapping"
    return item, None


def _metrics(path: Path | None) -> tuple[dict[str, Any], list[str]]:
    """The candidate's latency, tokens and cost from its optional JSON file; a bad value is null."""
    if path is None or not path.is_file():
        return {}, []
    text, why = _read(path)
    try:
        loaded = json.loads(text) if text is not None else None
    except json.JSONDecodeError as exc:
        why = f"{path}: not valid JSON: {exc}"
        loaded = None
    if not isinstance(loaded, dict):
        return {}, [f"metrics {why or f'{path}: must be a JSON object'}"]
    metrics, notes = {}, []
    for key, kind in METRIC_TYPES.items():
        value = loaded.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            notes.append(f"metrics {path}: {key} is not a number ({value!r}); recorded as null")
            continue
        metrics[key] = round(value) if kind is int else float(value)
    return metrics, notes


def load_candidates(config: PilotConfig, base: Path) -> list[Candidate]:
    """Every (task, cell) in config order; what cannot be read is named in `missing`."""
    out = []
    for task in config.tasks:
        item, item_problem = _task_item(base / task.item)
        for cell in config.cells:
            where = {"task_id": task.id, "cell_id": cell.id}
            response, response_problem = _read(base / config.responses.format(**where))
            metrics_path = base / config.metrics.format(**where) if config.metrics else None
            metrics, notes = _metrics(metrics_path)
            missing = tuple(
                p for p in (item_problem, response_problem and f"response {response_problem}") if p
            )
            text = None
            if not missing and item is not None:
                text = yaml.safe_dump({**item, "response": response}, sort_keys=False, allow_unicode=True)
            out.append(Candidate(task, cell, text, response, metrics, missing, tuple(notes)))
    return out


def manifest_anchor(config_text: str, candidates: list[Candidate]) -> str:
    """A content hash over the config and every candidate response, in order (a missing one as such)."""
    digest = hashlib.sha256(config_text.encode())
    for c in candidates:
        response = "\0missing" if c.response is None else c.response
        digest.update(f"\0{c.task.id}\0{c.cell.id}\0{response}".encode())
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


def utc_now() -> str:
    """Now, UTC, ISO 8601 to the second (`2026-04-26T09:00:00Z`)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _unjudged(rubric: Rubric, label: str, backend: Backend) -> JudgeVerdict:
    scores: dict[str, int | None] = {d.id: None for d in rubric.judged}
    return JudgeVerdict(label, f"{backend.name}:{backend.model}", scores, None, None, called=False)


def run_pilot(
    config: PilotConfig,
    base: Path,
    judges: list[tuple[str, Backend]],
    *,
    config_text: str = "",
    pilot_id: str = "pilot",
    clock: Callable[[], str] = utc_now,
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """Judge every readable (task, cell) with every (label, judge): (records, summary, warnings)."""
    start = clock()
    rubric = load_rubric(config.rubric)
    candidates = load_candidates(config, base)
    judged = [c for c in candidates if c.item_text is not None]
    jobs = [
        JudgeJob(c.item_text or "", rubric, b, config.seed, judge=index)
        for c in judged
        for index, (_, b) in enumerate(judges)
    ]
    results = iter(judge_many(jobs, max_workers=config.jobs))
    anchor = config.manifest_anchor or manifest_anchor(config_text, candidates)
    sha = head_sha(base)
    records, outcomes = [], []
    for c in candidates:
        if c.item_text is None:
            verdicts = tuple(_unjudged(rubric, label, b) for label, b in judges)
        else:
            verdicts = tuple(verdict_from(rubric, label, next(results)) for label, _ in judges)
        outcome = CellOutcome(
            c.task.id,
            c.cell.id,
            c.cell.model,
            c.cell.configuration,
            c.response,
            c.metrics,
            verdicts,
            c.missing,
            c.notes,
        )
        trio = trio_of(rubric, outcome)
        outcomes.append((outcome, trio))
        records.append(build_record(rubric, outcome, trio, anchor, sha))
    window = RunWindow(start=start, end=clock(), anchor=anchor)
    summary = summarise(config, rubric, outcomes, window, pilot_id=pilot_id)
    named = [(label, b.model) for label, b in judges]
    warnings = sorted({w for cell in config.cells for w in generator_warnings(cell.model, named)})
    return records, summary, warnings


def write_outputs(directory: Path, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """`pilot.jsonl` (one record per task x cell) and `pilot-summary.json`, keys in protocol order."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (directory / "pilot.jsonl").write_text(lines, encoding="utf-8")
    text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (directory / "pilot-summary.json").write_text(text, encoding="utf-8")


def _judges(config: PilotConfig, args: argparse.Namespace, path: Path) -> list[tuple[str, Backend]]:
    refs = judge_refs(config, args.judge)
    if not refs:
        raise PilotError(f"{path}: judges: none: list them under `judges:` or give --judge")
    prices = {model: (p.input, p.output) for model, p in config.prices.items()} or None
    backends = [make_backend(r.spec, timeout=args.judge_timeout, prices=prices) for r in refs]
    labels = judge_labels(refs, [b.model for b in backends], path)
    return list(zip(labels, backends, strict=True))


def cmd_pilot(args: argparse.Namespace) -> int:
    """Handler for `evalgate pilot CONFIG [--judge SPEC ...] [--output DIR]`."""
    path = Path(args.config)
    try:
        config = load_pilot_config(path)
        try:  # an unknown or invalid rubric is a config error, found before any judge is called
            load_rubric(config.rubric)
        except RubricError as exc:
            raise PilotError(f"{path}: rubric: {exc}") from None
        judges = _judges(config, args, path)
    except (PilotError, UnknownBackendError, ValueError) as exc:
        print(f"evalgate pilot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config_text, _ = _read(path)
    records, summary, warnings = run_pilot(
        config, path.parent, judges, config_text=config_text or "", pilot_id=config.pilot_id or path.stem
    )
    out_dir = Path(args.output) if args.output else path.parent / config.output
    write_outputs(out_dir, records, summary)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    verdict = summary["aggregate"]["pilot_verdict"]
    print(f"pilot {verdict}: {len(records)} records in {out_dir / 'pilot.jsonl'}")
    for reason in summary["evalgate"]["reasons"]:
        print(f"  {reason}")
    return EXIT_PASS if verdict == "PASS" else EXIT_FAIL


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
