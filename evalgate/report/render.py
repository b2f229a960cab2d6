"""One report, any format: the renderer for `--format` (text, json, jsonl, markdown, sarif)."""

from __future__ import annotations

from evalgate.results import Report
from evalgate.rubric import Rubric, RubricError, load_rubric

FORMATS = ("text", "json", "jsonl", "markdown", "sarif", "review")


def render(report: Report, fmt: str, *, verbose: bool = False, rubric: str | None = None) -> str:
    """Render a report in one of FORMATS. `rubric`: the pack name or file the run used, which the
    review format reads its skills from (else the shipped pack of the report's rubric id)."""
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

        return render_sarif(report, rubric_of(report))
    if fmt == "review":
        from evalgate.report.review import render_review

        return render_review(report, rubric_of(report, rubric))
    from evalgate.report.text import render_text

    return render_text(report, verbose=verbose)


def log_text(report: Report, rubric: str | None = None) -> str:
    """What a run writes to a log: the text report, and after it the review report when the rubric
    sorts its dimensions into groups (research-review: the prompt's VIOLATION and OVERALL lines, which
    the research repository's tooling reads from the review job's log)."""
    text = render(report, "text")
    found = rubric_of(report, rubric)
    if found is not None and any(d.group for d in found.dimensions):
        from evalgate.report.review import render_review

        text += "\n" + render_review(report, found)
    return text


def rubric_of(report: Report, source: str | None = None) -> Rubric | None:
    """The report's rubric: `source` when it is the rubric the report names, else the shipped pack
    of that id (None when neither loads)."""
    for name in (source, report.rubric.id):
        if name is None:
            continue
        try:
            rubric = load_rubric(name)
        except RubricError:
            continue
        if rubric.id == report.rubric.id and rubric.version == report.rubric.version:
            return rubric
    return None
