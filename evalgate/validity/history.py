"""Score history: one JSONL record per evaluated file per run, pass rates, trend alerts, a chart.

Each record carries the rubric id and version that produced it, and when judges scored it the prompt
version (the hash of the judge template set), because a rubric or prompt change makes scores
incomparable: a record's `series` is the pair, and a new one starts a new series. Pass rates are kept
per series, so adding a criterion or editing a template starts a new table instead of erasing (or
silently diluting) the old one; trend alerts compare only runs of one series, and the chart marks the
run where a new series starts. Appends are safe from concurrent jobs
writing the same file: the file is opened O_APPEND and each record is one write() of one whole line,
so lines from two writers never interleave. A line that does not parse (a truncated write, a hand
edit, a merge conflict in a committed history) is skipped with a warning; it never stops a run.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalgate.results import Report, Status, Verdict
from evalgate.validity.history_chart import mermaid_trend, run_means

TREND_DROP = 0.5  # a fall in the mean of at least this much ...
TREND_WINDOW = 3  # ... across this many consecutive items raises an alert
ALL_FILES = "all files"


class HistoryWarning(UserWarning):
    """A history line was skipped (not JSON, or not a record)."""


@dataclass(frozen=True)
class HistoryRecord:
    """One file's result in one run."""

    timestamp: str  # ISO 8601, UTC ("2026-12-02T16:00:00Z"); one run shares one timestamp
    path: str
    rubric: str
    rubric_version: str
    verdict: str
    mean: float | None
    scores: dict[str, int | None]  # per dimension; None = skipped or errored
    failed: tuple[str, ...] = ()  # dimensions the gate counted as failing
    judges: tuple[str, ...] = ()
    band: str | None = None
    judged: tuple[str, ...] = ()  # the scored dimensions a judge supplied (the rest are checks)
    run: str | None = None  # the CI run that wrote it (GITHUB_RUN_ID), when there is one
    commit: str | None = None  # the commit evaluated
    prompt_version: str | None = None  # the judges' prompt version (None: nothing judged)
    orders: tuple[tuple[str, ...], ...] = ()  # each judge's criteria order, in the order of `judges`
    mechanical: tuple[tuple[str, str], ...] = ()  # (judged dimension, the check also computing it)

    @property
    def run_key(self) -> str:
        """What makes one run: its timestamp, and its run id (two CI runs may share a second)."""
        return f"{self.timestamp} {self.run}" if self.run else self.timestamp

    @property
    def series(self) -> str:
        """The version its scores are comparable within: `rubric@version`, with ` prompt P` when
        judges scored it."""
        base = f"{self.rubric}@{self.rubric_version}"
        return f"{base} prompt {self.prompt_version}" if self.prompt_version else base

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "timestamp": self.timestamp,
            "path": self.path,
            "rubric": self.rubric,
            "rubric_version": self.rubric_version,
            "verdict": self.verdict,
            "mean": None if self.mean is None else round(self.mean, 3),
            "scores": self.scores,
            "failed": list(self.failed),
            "judges": list(self.judges),
        }
        if self.band is not None:
            out["band"] = self.band
        if self.judged:
            out["judged"] = list(self.judged)
        for key in ("run", "commit", "prompt_version"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.orders:
            out["orders"] = [list(order) for order in self.orders]
        if self.mechanical:
            out["mechanical"] = dict(self.mechanical)
        return out

    @classmethod
    def from_json(cls, raw: Any) -> HistoryRecord:
        """Validate one decoded line; ValueError says what is wrong with it."""
        if not isinstance(raw, dict):
            raise ValueError("not a JSON object")
        for key in ("timestamp", "path", "rubric", "rubric_version", "verdict"):
            if not isinstance(raw.get(key), str):
                raise ValueError(f"missing or non-string {key!r}")
        scores = raw.get("scores", {})
        if not isinstance(scores, dict) or not all(v is None or isinstance(v, int) for v in scores.values()):
            raise ValueError("'scores' must map dimension ids to integers or null")
        mean = raw.get("mean")
        if mean is not None and not isinstance(mean, int | float):
            raise ValueError("'mean' must be a number or null")
        lists = {key: _strings(raw, key) for key in ("failed", "judges", "judged")}
        for key in ("run", "commit"):
            if raw.get(key) is not None and not isinstance(raw[key], str | int):
                raise ValueError(f"{key!r} must be a string or null")
        prompt = raw.get("prompt_version")
        if prompt is not None and not isinstance(prompt, str):
            raise ValueError("'prompt_version' must be a string or null")
        links = raw.get("mechanical") or {}
        if not isinstance(links, dict) or not all(isinstance(v, str) for v in links.values()):
            raise ValueError("'mechanical' must map judged dimension ids to check ids")
        orders = raw.get("orders") or []
        if not isinstance(orders, list) or not all(
            isinstance(o, list) and all(isinstance(i, str) for i in o) for o in orders
        ):
            raise ValueError("'orders' must be a list of lists of strings or null")
        return cls(
            timestamp=raw["timestamp"],
            path=raw["path"],
            rubric=raw["rubric"],
            rubric_version=raw["rubric_version"],
            verdict=raw["verdict"],
            mean=None if mean is None else float(mean),
            scores={str(k): v for k, v in scores.items()},
            failed=lists["failed"],
            judges=lists["judges"],
            band=raw.get("band") if isinstance(raw.get("band"), str) else None,
            judged=lists["judged"],
            run=str(raw["run"]) if raw.get("run") is not None else None,
            commit=str(raw["commit"]) if raw.get("commit") is not None else None,
            prompt_version=prompt,
            orders=tuple(tuple(o) for o in orders),
            mechanical=tuple((str(k), v) for k, v in links.items()),
        )


def _strings(raw: dict[str, Any], key: str) -> tuple[str, ...]:
    """An optional list-of-strings field of a record (absent or null: empty)."""
    value = raw.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key!r} must be a list of strings or null")
    return tuple(value)


def _timestamp(now: datetime | None) -> str:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def history_records(
    report: Report, *, now: datetime | None = None, run: str | None = None, commit: str | None = None
) -> list[HistoryRecord]:
    """The records a report adds to the history (files that could not be evaluated are left out:
    they have no scores to trend, and their error is in the run's own report; so are files the
    judging budget left unjudged, whose judged scores are missing, not low)."""
    stamp = _timestamp(now)
    records = []
    for result in report.results:
        if result.error is not None or result.verdict is Verdict.NOT_JUDGED:
            continue
        judges = tuple(f"{j.backend}:{j.model}" for j in result.judges) or report.judges
        records.append(
            HistoryRecord(
                timestamp=stamp,
                path=result.path,
                rubric=report.rubric.id,
                rubric_version=report.rubric.version,
                verdict=result.verdict.value,
                mean=result.mean,
                scores={d.id: d.score if d.status is Status.SCORED else None for d in result.dimensions},
                failed=tuple(d.id for d in result.failing_dimensions),
                judges=judges,
                band=result.band,
                judged=tuple(
                    d.id for d in result.dimensions if d.kind == "judge" and d.status is Status.SCORED
                ),
                run=run,
                commit=commit,
                prompt_version=report.rubric.prompt if result.judges else None,
                orders=tuple(j.criteria_order for j in result.judges if j.criteria_order),
                mechanical=report.rubric.mechanical if result.judges else (),
            )
        )
    return records


def record_line(record: HistoryRecord) -> str:
    """One record as its JSONL line (compact, UTF-8 kept), newline included."""
    return json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"


def parse_history(text: str, source: str) -> list[HistoryRecord]:
    """Every valid record in JSONL text, in order; a bad line is skipped with a HistoryWarning naming
    `source` and the line number."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(HistoryRecord.from_json(json.loads(line)))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            warnings.warn(f"{source}:{number}: skipped history line: {exc}", HistoryWarning, stacklevel=3)
    return records


def append_history(report: Report, path: str | Path, *, now: datetime | None = None) -> int:
    """Append one line per evaluated file to the JSONL history at `path`; returns the count.

    Each line is a single os.write() on a descriptor opened O_APPEND, so concurrent writers (shards,
    parallel jobs) append whole lines and never interleave within one.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    records = history_records(report, now=now)
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        for record in records:
            os.write(fd, record_line(record).encode("utf-8"))
    finally:
        os.close(fd)
    return len(records)


def load_history(path: str | Path) -> list[HistoryRecord]:
    """Every valid record in the history, in file order; a missing file is an empty history.

    A line that is not a valid record is skipped with a HistoryWarning naming the file and line.
    """
    target = Path(path)
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        return []
    return parse_history(data.decode("utf-8", "replace"), str(target))


@dataclass(frozen=True)
class PassRate:
    """How often one criterion passed among the records that scored it."""

    criterion: str
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


def pass_rates(records: Sequence[HistoryRecord]) -> dict[str, dict[str, PassRate]]:
    """Per series (`rubric@version`, with the prompt version when judged; in order of first
    appearance), each criterion's pass rate.

    A criterion passes in a record when it was scored and the gate did not count it as failing.
    """
    tallies: dict[str, dict[str, list[int]]] = {}
    for record in records:
        table = tallies.setdefault(record.series, {})
        for criterion, score in record.scores.items():
            if score is None:
                continue
            tally = table.setdefault(criterion, [0, 0])
            tally[0] += criterion not in record.failed
            tally[1] += 1
    return {
        version: {c: PassRate(c, passed, total) for c, (passed, total) in table.items()}
        for version, table in tallies.items()
    }


@dataclass(frozen=True)
class TrendAlert:
    """The mean fell by at least TREND_DROP over the last TREND_WINDOW items of a series."""

    subject: str  # a file path, or ALL_FILES for the per-run average
    means: tuple[float, ...] = field(default=())

    @property
    def drop(self) -> float:
        return self.means[0] - self.means[-1]

    @property
    def message(self) -> str:
        steps = " -> ".join(f"{m:.2f}" for m in self.means)
        return f"{self.subject}: mean fell by {self.drop:.2f} over the last {len(self.means)} ({steps})"


def _falling(subject: str, means: Sequence[float]) -> TrendAlert | None:
    window = tuple(means[-TREND_WINDOW:])
    if len(window) == TREND_WINDOW and window[0] - window[-1] >= TREND_DROP - 1e-9:
        return TrendAlert(subject, window)
    return None


def current_series(records: Sequence[HistoryRecord]) -> list[HistoryRecord]:
    """The records of the newest record's series (empty for an empty history)."""
    return [r for r in records if r.series == records[-1].series] if records else []


def trend_alerts(records: Sequence[HistoryRecord]) -> list[TrendAlert]:
    """Alerts for every file, and for the per-run average, whose mean fell by >= 0.5 over its last 3,
    counted within the current series only: a new rubric or prompt version moves scores by itself."""
    current = current_series(records)
    by_path: dict[str, list[tuple[str, float]]] = {}
    for record in current:
        if record.mean is not None:
            by_path.setdefault(record.path, []).append((record.timestamp, record.mean))
    alerts = []
    for path, points in sorted(by_path.items()):
        ordered = [mean for _, mean in sorted(points, key=lambda item: item[0])]
        alert = _falling(path, ordered)
        if alert is not None:
            alerts.append(alert)
    overall = _falling(ALL_FILES, [mean for _, mean in run_means(current)])
    return [*alerts, overall] if overall is not None else alerts


@dataclass(frozen=True)
class HistoryUpdate:
    """What recording a run into the history tells the reports: trend alerts and the trend chart."""

    alerts: tuple[str, ...]
    chart: str


def record_run(report: Report, path: str | Path, *, now: datetime | None = None) -> HistoryUpdate:
    """Append a run's records, then read the series back for alerts and the mermaid chart."""
    append_history(report, path, now=now)
    records = load_history(path)
    return HistoryUpdate(tuple(a.message for a in trend_alerts(records)), mermaid_trend(records))
