"""Agreement between raters (judges, or a judge and a human): kappa statistics and raw agreement.

A gate is only as good as its judges, and agreement is how a judge is measured: do several judges
give the same score to the same dimension of the same file, and does a judge give the score a human
reviewer gave? Raw agreement over-counts on a 5-point scale where most items score 4 or 5, so each
figure comes with a chance-corrected kappa:

- Fleiss' kappa for n raters (Fleiss 1971), which for two raters differs slightly from
- Cohen's kappa, used whenever there are exactly two raters;
- weighted kappa (linear or quadratic disagreement weights) for two raters on an ordinal Likert
  scale, where a 4 against a 5 is a smaller disagreement than a 1 against a 5.

Kappa is undefined when chance agreement is total (every rater gave every item the same score):
the result is then `None` with the reason, never a division by zero or a NaN.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalgate.results import Report, Status

Weights = Literal["linear", "quadratic"]


@dataclass(frozen=True)
class Kappa:
    """A kappa value, or `None` with the reason it is undefined."""

    value: float | None
    reason: str | None = None

    def to_json(self) -> float | dict[str, str | None] | None:
        if self.value is not None:
            return round(self.value, 4)
        return {"value": None, "reason": self.reason}


@dataclass(frozen=True)
class DimensionAgreement:
    """How far the raters of one dimension agree, over the items every rater scored."""

    dimension: str
    raters: int
    items: int
    exact: float | None  # share of items where every rater gave the same score
    within_one: float | None  # share of items where the scores span at most one point
    kappa: Kappa  # Cohen's for two raters, Fleiss' for more
    kappa_kind: Literal["cohen", "fleiss"]
    weighted_linear: Kappa | None = None  # two raters only
    weighted_quadratic: Kappa | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "raters": self.raters,
            "items": self.items,
            "exact": None if self.exact is None else round(self.exact, 4),
            "within_one": None if self.within_one is None else round(self.within_one, 4),
            "kappa": self.kappa.to_json(),
            "kappa_kind": self.kappa_kind,
        }
        if self.weighted_linear is not None and self.weighted_quadratic is not None:
            out["weighted_kappa"] = {
                "linear": self.weighted_linear.to_json(),
                "quadratic": self.weighted_quadratic.to_json(),
            }
        return out


def fleiss_kappa_counts(counts: Sequence[Sequence[int]]) -> Kappa:
    """Fleiss' kappa from a subjects x categories table of how many raters chose each category.

    Every row must sum to the same number of raters n >= 2.
    """
    rows = [list(r) for r in counts if sum(r) > 0]
    if not rows:
        return Kappa(None, "no rated items")
    n = sum(rows[0])
    if any(sum(r) != n for r in rows):
        return Kappa(None, "items have different numbers of raters")
    if n < 2:
        return Kappa(None, "fewer than two raters")
    subjects = len(rows)
    per_item = [(sum(c * c for c in r) - n) / (n * (n - 1)) for r in rows]
    observed = sum(per_item) / subjects
    shares = [sum(r[j] for r in rows) / (subjects * n) for j in range(len(rows[0]))]
    expected = sum(p * p for p in shares)
    if expected >= 1.0:
        return Kappa(None, "every rating is the same category, so chance agreement is total")
    return Kappa((observed - expected) / (1.0 - expected))


def fleiss_kappa(ratings: Sequence[Sequence[int]]) -> Kappa:
    """Fleiss' kappa from per-item rating lists (ratings[item] = every rater's score for it)."""
    categories = sorted({r for item in ratings for r in item})
    tallies = [Counter(item) for item in ratings]
    return fleiss_kappa_counts([[t[c] for c in categories] for t in tallies])


def _paired(a: Sequence[int], b: Sequence[int]) -> str | None:
    if len(a) != len(b):
        return f"the two raters scored different numbers of items ({len(a)} and {len(b)})"
    if not a:
        return "no rated items"
    return None


def cohen_kappa(a: Sequence[int], b: Sequence[int]) -> Kappa:
    """Cohen's kappa for two raters scoring the same items (a[i] and b[i] are item i's scores)."""
    problem = _paired(a, b)
    if problem:
        return Kappa(None, problem)
    total = len(a)
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / total
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in ca) / (total * total)
    if expected >= 1.0:
        return Kappa(None, "both raters gave every item the same score, so chance agreement is total")
    return Kappa((observed - expected) / (1.0 - expected))


def weighted_kappa(
    a: Sequence[int],
    b: Sequence[int],
    *,
    weights: Weights = "linear",
    scale: tuple[int, int] | None = None,
) -> Kappa:
    """Cohen's weighted kappa for ordinal scores: 1 - sum(w * observed) / sum(w * expected).

    Disagreement weights are |i - j| / (k - 1) (linear) or its square (quadratic) over the k points
    of `scale` (default: the span of the scores seen). With two categories both equal Cohen's kappa.
    """
    problem = _paired(a, b)
    if problem:
        return Kappa(None, problem)
    low, high = scale if scale is not None else (min(*a, *b), max(*a, *b))
    span = high - low
    if span <= 0:
        return Kappa(None, "every score is the same value, so no disagreement is possible")
    power = 1 if weights == "linear" else 2
    total = len(a)
    ca, cb = Counter(a), Counter(b)

    def weight(x: int, y: int) -> float:
        return float((abs(x - y) / span) ** power)

    observed = sum(weight(x, y) for x, y in zip(a, b, strict=True)) / total
    expected = sum(ca[x] * cb[y] * weight(x, y) for x in ca for y in cb) / (total * total)
    if expected == 0.0:
        return Kappa(None, "both raters gave every item the same score, so chance agreement is total")
    return Kappa(1.0 - observed / expected)


def exact_agreement(ratings: Sequence[Sequence[int]]) -> float | None:
    """Share of items on which every rater gave the same score (None without items)."""
    if not ratings:
        return None
    return sum(1 for item in ratings if len(set(item)) == 1) / len(ratings)


def within_one_agreement(ratings: Sequence[Sequence[int]]) -> float | None:
    """Share of items whose scores span at most one scale point (None without items)."""
    if not ratings:
        return None
    return sum(1 for item in ratings if max(item) - min(item) <= 1) / len(ratings)


def agreement(
    dimension: str, ratings: Sequence[Sequence[int]], *, scale: tuple[int, int] | None = None
) -> DimensionAgreement:
    """Every agreement figure for one dimension's per-item rating lists (same raters per item)."""
    raters = len(ratings[0]) if ratings else 0
    common = (dimension, raters, len(ratings), exact_agreement(ratings), within_one_agreement(ratings))
    if raters == 2:
        a = [item[0] for item in ratings]
        b = [item[1] for item in ratings]
        return DimensionAgreement(
            *common,
            cohen_kappa(a, b),
            "cohen",
            weighted_kappa(a, b, weights="linear", scale=scale),
            weighted_kappa(a, b, weights="quadratic", scale=scale),
        )
    kappa = fleiss_kappa(ratings) if raters > 2 else Kappa(None, "fewer than two raters")
    return DimensionAgreement(*common, kappa, "fleiss")


def judge_ratings(report: Report) -> dict[str, list[list[int]]]:
    """Per judged dimension, the per-file lists of every judge's score.

    A file enters a dimension's list only when every judge scored it: kappa compares the same raters
    on the same items, so a judge that errored on a file removes that file (not that judge).
    """
    ratings: dict[str, list[list[int]]] = {}
    for result in report.results:
        for dim in result.dimensions:
            if dim.kind != "judge" or dim.status is not Status.SCORED or len(dim.judge_scores) < 2:
                continue
            scores = [s.score for s in dim.judge_scores]
            if all(s is not None for s in scores):
                ratings.setdefault(dim.id, []).append([s for s in scores if s is not None])
    return ratings


def agreement_by_dimension(report: Report, *, scale: tuple[int, int] = (1, 5)) -> dict[str, dict[str, Any]]:
    """Agreement between a report's judges per judged dimension, as JSON-ready data.

    Empty when the run had fewer than two judges. Files are grouped by number of judges that scored
    them; the largest group is used, so one errored judge does not mix n and n-1 rater items.
    """
    out: dict[str, dict[str, Any]] = {}
    for dimension, items in sorted(judge_ratings(report).items()):
        sizes = Counter(len(item) for item in items)
        raters = max(sizes, key=lambda n: (sizes[n], n))
        same = [item for item in items if len(item) == raters]
        out[dimension] = agreement(dimension, same, scale=scale).to_json()
    return out
