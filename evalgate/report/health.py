"""Rubric health: is each dimension's scale still telling items apart, and do judges and checks agree?

The research protocol's own rule: "if 80%+ of items score 4-5 on a given dimension, the anchors are
too loose and should be tightened". A dimension nearly every item tops says nothing about the items,
however well it is measured, so its score distribution is reported and such a dimension is named.
The second signal is how often a judged dimension and the deterministic check that also computes it
(the rubric's `mechanical:` link) disagree about a file (one counts as failing, the other not): a rate
that moves over time points at a drifting judge or a check that stopped matching what the judges
read. Only such pairs count: a structural defect the judge was told not to judge is not its error.

A single run is judged only from MIN_FILES files on: fewer items make any share noise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from evalgate.report import HEALTH_MIN_FILES
from evalgate.results import Report, Status

LOOSE_SHARE = 0.8  # the protocol's 80%
TOP_SCORES = (4, 5)
MIN_FILES = HEALTH_MIN_FILES  # a run's own report shows rubric health from this many evaluated files on
SCALE = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class ScoreSpread:
    """How one dimension's scores spread over the 1-5 scale."""

    dimension: str
    counts: Mapping[int, int]  # score -> items

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def top(self) -> int:
        return sum(self.counts.get(score, 0) for score in TOP_SCORES)

    @property
    def top_share(self) -> float:
        return self.top / self.total if self.total else 0.0

    @property
    def loose(self) -> bool:
        return self.total > 0 and self.top_share >= LOOSE_SHARE - 1e-9

    @property
    def warning(self) -> str:
        return (
            f"{self.dimension}: {self.top} of {self.total} items ({self.top_share:.1%}) score 4-5: "
            "anchors too loose, tighten them"
        )


def score_spreads(rows: Iterable[Mapping[str, int | None]]) -> list[ScoreSpread]:
    """Per dimension (in order of first appearance), the count of items at each score; None is skipped."""
    tallies: dict[str, dict[int, int]] = {}
    for row in rows:
        for dimension, score in row.items():
            if score is None:
                continue
            counts = tallies.setdefault(dimension, dict.fromkeys(SCALE, 0))
            counts[score] = counts.get(score, 0) + 1
    return [ScoreSpread(dimension, counts) for dimension, counts in tallies.items()]


@dataclass(frozen=True)
class Disagreement:
    """Files where the judged dimensions and the deterministic checks disagree on failing."""

    disagreeing: int
    compared: int  # files with at least one scored dimension of each kind

    @property
    def rate(self) -> float:
        return self.disagreeing / self.compared if self.compared else 0.0

    def describe(self) -> str:
        if not self.compared:
            return (
                "no file has a judged dimension that a check also computes (`mechanical:`) scored both ways"
            )
        return f"{self.disagreeing} of {self.compared} files ({self.rate:.0%})"


def disagreement(sides: Iterable[tuple[bool, bool] | None]) -> Disagreement:
    """From (deterministic side fails, judged side fails) per file; None = not both kinds scored."""
    compared = [pair for pair in sides if pair is not None]
    return Disagreement(sum(1 for mech, judged in compared if mech != judged), len(compared))


def report_rows(report: Report) -> list[dict[str, int | None]]:
    """The scored dimensions of every evaluated file of a run."""
    return [
        {d.id: d.score for d in r.dimensions if d.status is Status.SCORED}
        for r in report.results
        if r.error is None
    ]


def linked_sides(
    links: Iterable[tuple[str, str]], scored: Iterable[str], failing: Iterable[str]
) -> tuple[bool, bool] | None:
    """(a check fails, the judged dimension it also computes fails) over the linked pairs both scored,
    a disagreement when they differ on some pair; None when no pair was scored on both sides. Only
    such pairs count: a structural defect the judge was told not to judge is no judge error."""
    scored, failing = set(scored), set(failing)
    pairs = [(judged, check) for judged, check in links if judged in scored and check in scored]
    if not pairs:
        return None
    differing = [(check in failing, judged in failing) for judged, check in pairs]
    return next((pair for pair in differing if pair[0] != pair[1]), differing[0])


def report_sides(report: Report) -> list[tuple[bool, bool] | None]:
    """(check side fails, judged side fails) per evaluated file of a run, over the rubric's
    `mechanical:` links (judged dimensions a deterministic check also computes)."""
    sides: list[tuple[bool, bool] | None] = []
    for result in report.results:
        if result.error is not None:
            continue
        failing = [d.id for d in result.failing_dimensions]
        scored = [d.id for d in result.dimensions if d.status is Status.SCORED]
        sides.append(linked_sides(report.rubric.mechanical, scored, failing))
    return sides


def _distribution(spread: ScoreSpread) -> str:
    return " ".join(f"{score}:{spread.counts.get(score, 0)}" for score in SCALE)


def health_text(spreads: Sequence[ScoreSpread], agreement: Disagreement | None) -> list[str]:
    """Plain-text lines: one distribution per dimension, then the loose ones named, then disagreement."""
    lines = ["rubric health (score distribution per dimension, 1:n .. 5:n):"]
    width = max((len(s.dimension) for s in spreads), default=0)
    lines += [f"  {s.dimension:<{width}}  {_distribution(s)}  top two {s.top_share:.0%}" for s in spreads]
    lines += [f"  {s.warning}" for s in spreads if s.loose]
    if agreement is not None and agreement.compared:
        lines.append(f"  judge vs mechanical disagreement: {agreement.describe()}")
    return lines


def health_markdown(
    spreads: Sequence[ScoreSpread], agreement: Disagreement | None, cell: Callable[[str], str] = str
) -> str:
    """A markdown block: the distribution table, the loose dimensions named; `cell` escapes an id."""
    rows = [
        f"| {cell(s.dimension)} | "
        + " | ".join(str(s.counts.get(n, 0)) for n in SCALE)
        + f" | {s.top_share:.0%} |"
        for s in spreads
    ]
    table = ["| Dimension | 1 | 2 | 3 | 4 | 5 | 4-5 |", "| --- | --- | --- | --- | --- | --- | --- |", *rows]
    loose = [f"- **{cell(s.dimension)}**: {s.warning.split(': ', 1)[1]}" for s in spreads if s.loose]
    parts = ["### Rubric health", "", "\n".join(table)]
    if loose:
        parts += ["", "\n".join(loose)]
    if agreement is not None and agreement.compared:
        parts += ["", f"Judge vs mechanical disagreement: {agreement.describe()}."]
    return "\n".join(parts)
