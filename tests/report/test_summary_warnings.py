"""Warnings on passing files still reach the job summary (judge != generator must show in every report)."""

from __future__ import annotations

from evalgate.report.summary import render_summary
from evalgate.results import DimensionResult, FileResult, Report, RubricRef, Status, Verdict


def test_warning_on_a_passing_file_is_shown():
    dim = DimensionResult("section_presence", "deterministic", Status.SCORED, score=5)
    ok = FileResult(
        "a.md",
        Verdict.PASS,
        mean=5.0,
        dimensions=(dim,),
        warnings=("judge openai:gpt-4o is of the generator's family",),
    )
    quiet = FileResult("b.md", Verdict.PASS, mean=5.0, dimensions=(dim,))
    text = render_summary(Report(RubricRef("research-loop", "v"), (ok, quiet)))
    assert "### Warnings on passing files" in text
    assert "`a.md`: judge openai:gpt-4o is of the generator's family" in text
    assert "`b.md`:" not in text
    assert "### Warnings" not in render_summary(Report(RubricRef("research-loop", "v"), (quiet,)))
