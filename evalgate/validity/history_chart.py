"""The score history drawn: the mean per run, and where a new series (a rubric or prompt version
change) starts, for the job summary's mermaid chart and `evalgate history show`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalgate.validity.history import HistoryRecord

_LABEL_UNSAFE = re.compile(r"[^0-9A-Za-z :.#_-]")


def run_means(records: Sequence[HistoryRecord]) -> list[tuple[str, float]]:
    """The average of the file means per run (records sharing a `run_key`: timestamp and run id),
    oldest first."""
    runs: dict[str, list[float]] = {}
    for record in records:
        if record.mean is not None:
            runs.setdefault(record.run_key, []).append(record.mean)
    return [(key, sum(means) / len(means)) for key, means in sorted(runs.items())]


def run_label(key: str) -> str:
    """A run's short name for a chart axis: "MM-DD HH:MM", and "#RUN" when a CI run id is known."""
    stamp, _, run = key.partition(" ")
    label = stamp[5:16].replace("T", " ") + (f" #{run}" if run else "")
    # the file on a branch is edited by hand too: a quote or a fence must not leave the chart's block
    return _LABEL_UNSAFE.sub("", label)


@dataclass(frozen=True)
class SeriesBreak:
    """The run where a new series starts, and the series before and after it."""

    run_key: str
    before: str
    after: str

    @property
    def message(self) -> str:
        return f"a new series starts at {run_label(self.run_key)}: {self.before} -> {self.after}"


def series_breaks(records: Sequence[HistoryRecord]) -> list[SeriesBreak]:
    """Every run whose series differs from the run before it (runs in time order; a run's series is
    that of its first scored record)."""
    firsts: dict[str, str] = {}
    for record in records:
        if record.mean is not None:
            firsts.setdefault(record.run_key, record.series)
    ordered = sorted(firsts.items())
    return [
        SeriesBreak(key, before, after) for (_, before), (key, after) in pairwise(ordered) if before != after
    ]


SERIES_MARK = "▶ "  # on the axis label of the first run of a new series


def mermaid_trend(records: Sequence[HistoryRecord], *, last: int = 20) -> str:
    """A mermaid `xychart-beta` block of the mean per run (last `last` runs) for the job summary;
    empty when the history has no scored run. The first run of a new series (a rubric or prompt
    version change) has its label marked with SERIES_MARK: xychart draws one unbroken line, so the
    break is shown on the axis, and `series_breaks` says what changed."""
    series = run_means(records)[-last:]
    if not series:
        return ""
    starts = {b.run_key for b in series_breaks(records)}
    labels = ", ".join(f'"{SERIES_MARK if key in starts else ""}{run_label(key)}"' for key, _ in series)
    values = ", ".join(f"{mean:.2f}" for _, mean in series)
    return (
        "```mermaid\n"
        "xychart-beta\n"
        '    title "Mean score per run"\n'
        f"    x-axis [{labels}]\n"
        '    y-axis "mean score" 1 --> 5\n'
        f"    line [{values}]\n"
        "```\n"
    )
