"""Position effect: does a criterion's place in the list a judge was shown move its verdict?

The criteria order is drawn per call (judging.prompt), so over a run each criterion is seen at several
places. For each criterion this gives n observations of (position, value), where the value is what the
command measures: in `calibrate` the judge's score minus the human label (so an item's difficulty
does not count as a position effect), in `compare` the criterion's preference for A (1 = A, ½ = tie,
0 = B). Reported per criterion: n, the mean value at each position, the least-squares slope (change in
value per place further down the list) and Pearson's r between position and value. Both are None when
the criterion was only ever seen at one place or its value never varied: no effect can be measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import fsum, sqrt
from typing import Any

from evalgate.results import FileResult


@dataclass(frozen=True)
class AtPosition:
    """A criterion's observations at one place in the list (1 = first)."""

    position: int
    n: int
    mean: float


@dataclass(frozen=True)
class PositionEffect:
    """One criterion's values by its position."""

    criterion: str
    n: int
    positions: tuple[AtPosition, ...]
    slope: float | None  # change in value per place further down the list
    correlation: float | None  # Pearson's r of position with value
    reason: str | None = None  # why slope and r are None

    @property
    def varied(self) -> bool:
        return len(self.positions) > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "criterion": self.criterion,
            "n": self.n,
            "by_position": [
                {"position": p.position, "n": p.n, "mean": round(p.mean, 4)} for p in self.positions
            ],
            "slope": None if self.slope is None else round(self.slope, 4),
            "correlation": None if self.correlation is None else round(self.correlation, 4),
            "reason": self.reason,
        }


def _fit(points: Sequence[tuple[int, float]]) -> tuple[float | None, float | None, str | None]:
    """(slope, Pearson r, reason when undefined) of value on position."""
    n = len(points)
    mean_x = fsum(x for x, _ in points) / n
    mean_y = fsum(y for _, y in points) / n
    sxx = fsum((x - mean_x) ** 2 for x, _ in points)
    syy = fsum((y - mean_y) ** 2 for _, y in points)
    sxy = fsum((x - mean_x) * (y - mean_y) for x, y in points)
    if sxx == 0:
        return None, None, "seen at one position only"
    slope = sxy / sxx
    if syy == 0:
        return slope, None, "the value never varied"
    return slope, sxy / sqrt(sxx * syy), None


def position_effects(observations: Iterable[tuple[str, int, float]]) -> list[PositionEffect]:
    """Per criterion (in order of first appearance), from (criterion, position, value) observations."""
    by_criterion: dict[str, list[tuple[int, float]]] = {}
    for criterion, position, value in observations:
        by_criterion.setdefault(criterion, []).append((position, value))
    effects = []
    for criterion, points in by_criterion.items():
        grouped: dict[int, list[float]] = {}
        for position, value in points:
            grouped.setdefault(position, []).append(value)
        at = tuple(AtPosition(p, len(v), fsum(v) / len(v)) for p, v in sorted(grouped.items()))
        slope, r, reason = _fit(points)
        effects.append(PositionEffect(criterion, len(points), at, slope, r, reason))
    return effects


def label_errors(labelled: Iterable[tuple[Mapping[str, int], FileResult]]) -> list[tuple[str, int, float]]:
    """(criterion, position, score minus label) for each judge's score on each labelled judged
    dimension, from (labels, result) pairs: the observations `calibrate` measures."""
    return [
        (d.id, s.position, float(s.score - labels[d.id]))
        for labels, result in labelled
        for d in result.dimensions
        if d.kind == "judge" and d.id in labels
        for s in d.judge_scores
        if s.position is not None and s.score is not None
    ]


def orders_varied(effects: Sequence[PositionEffect]) -> bool:
    """Whether any criterion was seen at more than one position (else nothing can be measured)."""
    return any(e.varied for e in effects)


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def render_text(effects: Sequence[PositionEffect], value: str) -> list[str]:
    """Lines for a command's text report: one per criterion, `value` naming what was averaged."""
    if not effects:
        return ["position effect: nothing to measure (no criterion verdict was recorded with its position)"]
    if not orders_varied(effects):
        return ["position effect: every criterion was seen at one position only (the order did not vary)"]
    lines = [f"position effect ({value} by the criterion's place in the list, 1 = first):"]
    width = max(len(e.criterion) for e in effects)
    lines.append(f"  {'criterion':<{width}}   n  slope      r  by position")
    for e in effects:
        steps = "  ".join(f"{p.position}: {p.mean:+.2f} ({p.n})" for p in e.positions)
        lines.append(
            f"  {e.criterion:<{width}} {e.n:>3} {_signed(e.slope):>6} {_signed(e.correlation):>6}  {steps}"
        )
    return lines
