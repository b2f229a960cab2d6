"""Rubric health in a run's own text and markdown reports: from 20 evaluated files on, the score
distribution per dimension, the dimensions with 80%+ of items at 4-5 named "anchors too loose", and how
often judged dimensions and deterministic checks disagree about a file."""

from __future__ import annotations

import pytest

from evalgate.report.health import MIN_FILES, disagreement, report_sides, score_spreads
from evalgate.report.render import render
from evalgate.results import DimensionResult, FileResult, Report, RubricRef, Status, Verdict


def _file(n: int, structure: int, judged: int) -> FileResult:
    dims = (
        DimensionResult("section_presence", "deterministic", Status.SCORED, score=structure),
        DimensionResult("spec", "judge", Status.SCORED, score=judged),
    )
    verdict = Verdict.PASS if min(structure, judged) >= 3 else Verdict.FAIL
    return FileResult(f"docs/item-{n:02d}.md", verdict, (structure + judged) / 2, dimensions=dims)


def _report(files: int, links: tuple[tuple[str, str], ...] = (("spec", "section_presence"),)) -> Report:
    # section_presence: all but the first file at 5 (loose); spec: a spread, 2 of 5 items at 4-5
    results = tuple(_file(n, 2 if n == 0 else 5, (n % 5) + 1) for n in range(files))
    return Report(RubricRef("research-loop", "v", mechanical=links), results)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_run_of_20_files_reports_rubric_health(fmt: str) -> None:
    text = render(_report(MIN_FILES), fmt)
    name = "section_presence" if fmt == "text" else "**section\\_presence**"
    assert f"{name}: 19 of 20 items (95.0%) score 4-5: anchors too loose" in text
    assert text.count("anchors too loose") == 1  # spec (40% at 4-5) is not named
    # spec (computed by section_presence too) 1 or 2 fails 8 files on the judged side; file 0 fails on
    # both sides, so 7 disagree
    assert "judge vs mechanical disagreement: 7 of 20 files (35%)" in text.lower()


def test_a_judged_dimension_no_check_computes_is_never_compared() -> None:
    """A structural defect the judge was told not to judge is not its error: without a `mechanical:`
    link nothing is compared, however the two kinds of dimension fail."""
    sides = report_sides(_report(MIN_FILES, links=()))
    assert sides == [None] * MIN_FILES and disagreement(sides).compared == 0
    assert "judge vs mechanical" not in render(_report(MIN_FILES, ()), "text").lower()


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_run_of_fewer_files_has_no_rubric_health(fmt: str) -> None:
    text = render(_report(MIN_FILES - 1), fmt)
    assert "anchors too loose" not in text and "rubric health" not in text.lower()


def test_markdown_health_is_a_distribution_table() -> None:
    text = render(_report(MIN_FILES), "markdown")
    assert "| Dimension | 1 | 2 | 3 | 4 | 5 | 4-5 |" in text
    assert "| section\\_presence | 0 | 1 | 0 | 0 | 19 | 95% |" in text
    assert "| spec | 4 | 4 | 4 | 4 | 4 | 40% |" in text


def test_spreads_skip_unscored_dimensions_and_count_the_scale() -> None:
    (spread,) = score_spreads([{"a": 4}, {"a": None}, {"a": 5}, {"a": 1}])
    assert spread.total == 3 and spread.top == 2 and not spread.loose
    assert dict(spread.counts) == {1: 1, 2: 0, 3: 0, 4: 1, 5: 1}


def test_only_files_with_both_kinds_are_compared() -> None:
    report = Report(
        RubricRef("r", "v"),
        (
            FileResult(
                "a.md",
                Verdict.PASS,
                4.0,
                dimensions=(DimensionResult("m", "deterministic", Status.SCORED, score=4),),
            ),
            FileResult("b.md", Verdict.ERROR, error="unreadable"),
        ),
    )
    assert report_sides(report) == [None]
    assert disagreement(report_sides(report)).compared == 0
