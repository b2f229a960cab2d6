"""The plain-text report: a verdict per file, its failing dimensions, and `path:line: message` findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalgate.report import HEALTH_MIN_FILES
from evalgate.report.escape import visible_name
from evalgate.report.reasons import (
    EXISTED,
    at_the_base,
    comparison_line,
    dimension_rules,
    existed_briefs,
    figure,
    file_rules_failed,
    finding_words,
    legacy_reasons,
    mode_line,
    passed_briefs,
    score_text,
    shown_findings,
    unmet,
)
from evalgate.report.usage import file_usage, run_usage_line, seconds, shows_file_usage
from evalgate.results import FileResult, Report, Status, Verdict

if TYPE_CHECKING:  # a judged result's quotes: a run without a judge never imports them
    from evalgate.judgement import Evidence

_MARK = {
    Verdict.PASS: "PASS ",
    Verdict.FAIL: "FAIL ",
    Verdict.ERROR: "ERROR",
    Verdict.NOT_JUDGED: "NOT JUDGED",
}


def _file_lines(result: FileResult, verbose: bool, judged: bool, timed: bool = False) -> list[str]:
    head = f"{_MARK[result.verdict]} {result.path}"
    shown_figure = figure(result)
    if shown_figure is not None:
        head += f"  {shown_figure}"
    if result.band:
        head += f"  {result.band}"
    if result.hard_failures:
        head += f"  hard fail: {', '.join(result.hard_failures)}"
    if result.verdict is Verdict.PASS and passed_briefs(result):
        head += f"  · passed: {', '.join(passed_briefs(result))}"
    if existed_briefs(result):
        head += f"  · {EXISTED}: {', '.join(existed_briefs(result))}"
    used = file_usage(result) if timed else None
    if used:
        head += f"  ({used})"
    lines = [head]
    compared = comparison_line(result)
    if compared is not None:
        lines.append(f"      gate-on new: {compared}")
    if result.error:
        lines.append(f"      {result.path}: {result.error}")
        return lines
    tags = dimension_rules(result)
    shown = result.dimensions if verbose else result.failing_dimensions
    for dim in shown:
        if dim.status is Status.SKIPPED and not verbose:
            continue
        tag = f" ({', '.join(tags[dim.id])})" if dim.id in tags else ""
        lines.append(f"      {dim.id} {score_text(result, dim)}{at_the_base(result, dim)}{tag}")
        if dim.error and dim.status is Status.ERROR:
            lines.append(f"        {dim.error}")
        findings, left_out = shown_findings(dim, every=verbose)
        for f in findings:
            lines.append(f"        {result.path}:{f.line}: {finding_words(f)}")
        if left_out:
            lines.append(f"        and {left_out} finding(s) that {EXISTED} (notices; -v lists them)")
        if dim in unmet(result):  # a criterion not met: what decided it
            lines.extend(f"        evidence: {_quote(e)}" for e in dim.evidence)
            if dim.reasoning:
                lines.append(f"        reasoning: {dim.reasoning}")
        if dim.unverified_evidence:
            lines.append(f"        {dim.unverified_evidence} evidence quote(s) not found in the document")
    lines.extend(f"      {check.text}" for check in file_rules_failed(result))
    lines.extend(f"      {reason}" for reason in legacy_reasons(result))
    lines.extend(f"      NOT COUNTED (require-calibration): {check.text}" for check in result.uncounted)
    lines.extend(f"      over budget: {over}" for over in result.over_budget)
    if judged and result.skipped:  # without judges the report's closing note says it once
        lines.append(f"      not evaluated (verdict is over the rest): {', '.join(result.skipped)}")
    for w in result.warnings:
        lines.append(f"      note: {w}")
    return lines


def _quote(evidence: Evidence) -> str:
    where = f" (line {evidence.line})" if evidence.line is not None else ""
    found = "" if evidence.verified else " (not found in the document)"
    return f'"{evidence.quote}"{where}{found}'


def render_text(report: Report, *, verbose: bool = False) -> str:
    """Readable at a glance: one block per file, then one summary line."""
    out: list[str] = []
    timed = shows_file_usage(report)
    for r in report.results:
        out.extend(_file_lines(r, verbose, bool(report.judges), timed))
    s = report.summary()
    not_judged = f", {s['not_judged']} not judged" if s["not_judged"] else ""
    line = (
        f"{s['evaluated']} file(s): {s['passed']} passed, {s['failed']} failed, {s['errors']} error(s)"
        f"{not_judged} · rubric {report.rubric.id}@{report.rubric.version}"
    )
    if report.rubric.prompt:
        line += f" · prompt {report.rubric.prompt}"
    if s["unverified_evidence"]:
        line += f" · unverified evidence {s['unverified_evidence']}"
    mode = mode_line(report)
    if mode is not None:
        line += f" · {mode}"
    if report.wall_ms is not None:
        line += f" · wall time {seconds(report.wall_ms)}"
    out.extend(_health_lines(report))  # before the summary line, which stays last but for the notes
    out.append("")
    out.append(line)
    out.extend(_run_lines(report))
    out.extend(f"not evaluated: {visible_name(e.path)}: {e.reason}" for e in report.not_evaluated)
    out.extend(f"note: {n}" for n in report.notes)
    return "\n".join(out) + "\n"


def _run_lines(report: Report) -> list[str]:
    """What judging used, whether the judge was calibrated, the budgets: one line each."""
    lines = []
    used = run_usage_line(report)
    if used:
        lines.append(used)
    if report.calibration is not None:
        lines.append(f"calibration: {report.calibration.text}")
    uncounted = sum(1 for r in report.results if r.uncounted)
    if uncounted:
        lines.append(
            f"NOT COUNTED: judged failures in {uncounted} file(s) did not fail them: require-calibration is "
            "set and the judges have no current calibration"
        )
    over = sum(1 for r in report.results if r.over_budget)
    if over:
        lines.append(f"over budget: {over} file(s) went over the `budgets:` per document")
    if report.budget is not None:
        lines.append(report.budget.describe())
    return lines


def _health_lines(report: Report) -> list[str]:
    """Rubric health of the run, from MIN_FILES evaluated files on (fewer make the shares noise)."""
    if len(report.results) < HEALTH_MIN_FILES:  # too few to evaluate that many: no import
        return []
    from evalgate.report import health

    rows = health.report_rows(report)
    if len(rows) < health.MIN_FILES:
        return []
    return [
        "",
        *health.health_text(health.score_spreads(rows), health.disagreement(health.report_sides(report))),
    ]
