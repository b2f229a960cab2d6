"""One report, any format: the renderer for `--format` (text, json, jsonl, markdown, sarif)."""

from __future__ import annotations

from evalgate.results import Report
from evalgate.rubric import Rubric, RubricError, load_rubric

FORMATS = ("text", "json", "jsonl", "markdown", "sarif")


def render(report: Report, fmt: str, *, verbose: bool = False) -> str:
    """Render a report in one of FORMATS."""
    if fmt == "json":
        from evalgate.report.jsonfile import render_json

        return render_json(report)
    if fmt == "jsonl":
        from evalgate.report.jsonfile import render_jsonl

        return render_jsonl(report)
    if fmt == "markdown":
        from evalgate.report.summary import render_summary

        return render_summary(report)
    if fmt == "sarif":
        from evalgate.report.sarif import render_sarif

        return render_sarif(report, _rubric_of(report))
    from evalgate.report.text import render_text

    return render_text(report, verbose=verbose)


def _rubric_of(report: Report) -> Rubric | None:
    try:
        return load_rubric(report.rubric.id)
    except RubricError:
        return None
