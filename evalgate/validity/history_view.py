"""Reading a score history: pass rates, trend alerts, rubric health and judge-vs-check disagreement,
as text (`evalgate history show FILE`) or as the job summary's markdown section.

Both read the same records the same way, so what the action shows in CI is what anyone gets from the
JSONL on their own machine. Rubric health is taken over the current rubric version only: a rubric
change moves the anchors, and shares from the old anchors would blur the new ones.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalgate.report.escape import markdown_cell, markdown_code, markdown_text
from evalgate.report.health import (
    Disagreement,
    disagreement,
    health_markdown,
    health_text,
    linked_sides,
    score_spreads,
)
from evalgate.results import EXIT_PASS, EXIT_USAGE
from evalgate.validity.history import HistoryRecord, pass_rates, trend_alerts
from evalgate.validity.history_chart import SERIES_MARK, mermaid_trend, run_label, run_means, series_breaks

CHART_RUNS = 20
DISAGREEMENT_RUNS = 10  # the last runs shown in the disagreement-over-time line


def current_version(records: Sequence[HistoryRecord]) -> str | None:
    """The newest record's series ("rubric@version", with " prompt P" when judged), or None."""
    return records[-1].series if records else None


def _of_version(records: Sequence[HistoryRecord], version: str | None) -> list[HistoryRecord]:
    return [r for r in records if r.series == version]


def record_side(record: HistoryRecord) -> tuple[bool, bool] | None:
    """(check fails, judged dimension fails) over the record's `mechanical:` links (health.linked_sides),
    or None when no linked pair was scored both ways."""
    scored = [d for d, score in record.scores.items() if score is not None]
    return linked_sides(record.mechanical, scored, record.failed)


def disagreement_by_run(records: Sequence[HistoryRecord]) -> list[tuple[str, Disagreement]]:
    """Per run (oldest first, named by `run_label`), how often judges and checks disagreed on a file."""
    runs: dict[str, list[HistoryRecord]] = {}
    for record in records:
        runs.setdefault(record.run_key, []).append(record)
    return [
        (run_label(key), disagreement(record_side(r) for r in group)) for key, group in sorted(runs.items())
    ]


def _disagreement_trend(records: Sequence[HistoryRecord]) -> list[tuple[str, Disagreement]]:
    return [(stamp, d) for stamp, d in disagreement_by_run(records) if d.compared][-DISAGREEMENT_RUNS:]


def history_text(records: Sequence[HistoryRecord]) -> str:
    """The plain-text view `history show` prints."""
    if not records:
        return "history is empty\n"
    runs = run_means(records)
    lines = [f"{len(records)} record(s) over {len(runs)} run(s)"]
    for version, table in pass_rates(records).items():
        lines += ["", f"pass rates, {version}:"]
        width = max((len(c) for c in table), default=0)
        lines += [f"  {r.criterion:<{width}}  {r.passed}/{r.total}  {r.rate:.0%}" for r in table.values()]
    breaks = series_breaks(records)
    if breaks:
        lines += ["", *(b.message for b in breaks)]
    alerts = trend_alerts(records)
    lines.append("")
    lines += [f"alert: {a.message}" for a in alerts] or ["no trend alert"]
    current = _of_version(records, current_version(records))
    trend = _disagreement_trend(current)
    lines += [
        "",
        f"{current_version(records)}:",
        *health_text(score_spreads(r.scores for r in current), None),
    ]
    if trend:
        steps = ", ".join(f"{stamp} {d.describe()}" for stamp, d in trend)
        lines.append(f"  judge vs mechanical disagreement per run: {steps}")
    return "\n".join(lines) + "\n"


def history_markdown(records: Sequence[HistoryRecord], min_runs: int = 2) -> str:
    """The job summary's history section: empty below `min_runs` runs (a first run has nothing to
    trend); else the trend chart, the current version's pass rates, alerts and rubric health."""
    if not records or len(run_means(records)) < min_runs:
        return ""
    version = current_version(records)
    current = _of_version(records, version)
    table = pass_rates(current).get(version or "", {})
    parts = ["### Score history", "", mermaid_trend(records, last=CHART_RUNS).rstrip("\n")]
    breaks = series_breaks(records)
    if breaks:
        shown = "; ".join(markdown_text(b.message) for b in breaks[-3:])
        parts += ["", f"{SERIES_MARK}marks a new series (trends and pass rates start again there): {shown}."]
    alerts = trend_alerts(records)
    if alerts:
        parts += ["", "\n".join(f"> **alert:** {markdown_text(a.message)}" for a in alerts)]
    rows = [f"| {markdown_cell(r.criterion)} | {r.passed}/{r.total} | {r.rate:.0%} |" for r in table.values()]
    parts += [
        "",
        f"Pass rate per criterion, rubric {markdown_code(version or '')} ({len(current)} record(s)):",
        "",
        "| Criterion | Passed | Rate |\n| --- | --- | --- |\n" + "\n".join(rows),
        "",
        health_markdown(score_spreads(r.scores for r in current), None, markdown_text).replace(
            "### Rubric health", "#### Rubric health over the history"
        ),
    ]
    trend = _disagreement_trend(current)
    if trend:
        steps = ", ".join(f"{markdown_text(stamp)} {d.describe()}" for stamp, d in trend)
        parts += ["", f"Judge vs mechanical disagreement per run: {steps}."]
    return "\n".join(parts) + "\n"


def cmd_history(args: argparse.Namespace) -> int:
    from evalgate.validity.history import parse_history

    path = Path(args.file)
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        print(f"evalgate: cannot read history {path}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = parse_history(text, str(path))
    for warning in caught:
        print(f"evalgate: {warning.message}", file=sys.stderr)
    sys.stdout.write(
        history_markdown(records, min_runs=1) if args.format == "markdown" else history_text(records)
    )
    return EXIT_PASS


def register(subparsers: Any, help_text: str) -> None:
    """Add `history show FILE`; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    history = subparsers.add_parser("history", help=help_text)
    actions = history.add_subparsers(dest="history_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="pass rates, alerts and rubric health of a JSONL history")
    show.add_argument("file", metavar="FILE", help="the history JSONL (e.g. from the history branch)")
    show.add_argument("--format", choices=("text", "markdown"), default="text")
    show.set_defaults(func=cmd_history)
