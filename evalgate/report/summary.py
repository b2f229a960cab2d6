"""The markdown job summary: a table of verdicts, scores and the rules that decided them, then what
failed, where, and why.

The same markdown serves the step summary (<= 1 MiB), the check-run summary (<= 65535 characters) and
the PR comment (<= 65536 characters), so it is built from blocks and cut between blocks, with a note
saying how much was left out and where the full results are. Every piece of untrusted text (paths,
messages, reasoning) goes through `escape`.
"""

from __future__ import annotations

from evalgate.report import HEALTH_MIN_FILES
from evalgate.report.escape import markdown_cell, markdown_code, markdown_text, utf8_len, visible_name
from evalgate.report.reasons import (
    EXISTED,
    at_the_base,
    comparison_line,
    decided_briefs,
    dimension_rules,
    existed_briefs,
    file_rules_failed,
    finding_words,
    is_binary,
    score_text,
    shown_findings,
    unmet,
)
from evalgate.report.usage import file_usage, run_usage_line, seconds, shows_file_usage
from evalgate.results import DimensionResult, FileResult, Report, Status, Verdict

FINDINGS_PER_DIMENSION = 10  # more would bury the next file; the rest are annotations / in results
NOT_EVALUATED_LISTED = 50  # changed files not evaluated, listed in the header; all are in the results
REASONING_CHARS = 300
_ICON = {
    Verdict.PASS: "✅ PASS",
    Verdict.FAIL: "❌ FAIL",
    Verdict.ERROR: "⚠️ ERROR",
    Verdict.NOT_JUDGED: "⏸️ NOT JUDGED",
}


def _score(value: float | int | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _header(report: Report, check_name: str) -> list[str]:
    counts = report.summary()
    version = markdown_code(report.rubric.version)
    if report.rubric.prompt:
        version += f", prompt {markdown_code(report.rubric.prompt)}"
    not_judged = f", {counts['not_judged']} not judged" if counts["not_judged"] else ""
    lines = [
        f"## {markdown_text(check_name)}: {_ICON[report.verdict]}",
        "",
        f"Rubric {markdown_code(report.rubric.id)} (version {version}) · "
        f"{counts['evaluated']} file(s): {counts['passed']} pass, {counts['failed']} fail, "
        f"{counts['errors']} error{not_judged}",
    ]
    lines += _gate_on(report)
    lines += _run_facts(report)
    if counts["skipped_dimensions"]:
        skipped = ", ".join(markdown_code(d) for d in counts["skipped_dimensions"])
        lines += ["", f"Skipped dimensions (not evaluated, the verdict is over the rest): {skipped}"]
    if counts["unverified_evidence"]:
        lines += ["", f"Unverified judge evidence quotes: {counts['unverified_evidence']}"]
    lines += _policy_changes(report)
    lines += _not_evaluated(report)
    if _timed(report):
        lines += ["", "| File | Verdict | Score | Decided by | Skipped | Time · cost |"]
        lines.append("| --- | --- | --- | --- | --- | --- |")
    else:
        lines += ["", "| File | Verdict | Score | Decided by | Skipped |", "| --- | --- | --- | --- | --- |"]
    return lines


def _timed(report: Report) -> bool:
    """Whether the table has a time and cost column (report.usage.shows_file_usage)."""
    return shows_file_usage(report)


def _run_facts(report: Report) -> list[str]:
    """Calibration (loud when the scores are only a signal), judged failures not counted, the
    run's budget, what judging used and how long the run took."""
    lines: list[str] = []
    calibration = report.calibration
    if calibration is not None:
        mark = "**Calibration**" if calibration.current else "⚠️ **Not calibrated**"
        lines += ["", f"> {mark}: {markdown_text(calibration.text)}"]
    uncounted = sum(1 for r in report.results if r.uncounted)
    if uncounted:
        lines += [
            "",
            f"> ⚠️ **Judged failures not counted** in {uncounted} file(s): `require-calibration` is set and "
            "the judges have no current calibration (above), so only the structural checks decided "
            "these files. The judged failures are listed below as not counted.",
        ]
    if report.budget is not None:
        mark = "⚠️ " if report.budget.reached else ""
        lines += ["", f"> {mark}{markdown_text(report.budget.describe())}"]
    facts = []
    used = run_usage_line(report)
    if used:
        facts.append(markdown_text(used[0].upper() + used[1:]))
    if report.wall_ms is not None:
        facts.append(f"wall time {seconds(report.wall_ms)}")
    over = sum(1 for r in report.results if r.over_budget)
    if over:
        facts.append(f"{over} file(s) over budget")
    if facts:
        lines += ["", " · ".join(facts)]
    return lines


def _gate_on(report: Report) -> list[str]:
    """Which findings decided: under `new`, those the change makes, against the base commit, and how
    many of each kind there are; under `all`, every finding."""
    gate = report.gate_on
    if gate is None:
        return []
    why = markdown_text(gate.why)
    if gate.mode == "all":
        return ["", f"Gate on **all** findings ({why}): every finding counts."]
    counts = report.gate_on_summary()
    base = markdown_code(gate.base_sha[:12]) if gate.base_sha else "—"
    return [
        "",
        f"Gate on **new** findings ({why}): each changed document against its version at base commit "
        f"{base}: **{counts['new_findings']}** new, {counts['existing_findings']} {EXISTED} (notices, "
        "never failures). A judged dimension fails only when its score drops against the base's.",
    ]


def _policy_changes(report: Report) -> list[str]:
    """A pull request's changes to the policy, shown above the results they did not decide."""
    if not report.policy_changes:
        return []
    # a quote block, so the results table below is not read as part of it
    head = "> **Policy changes in this pull request (not applied)**: this run applied the base commit's"
    lines = ["", head + " policy; these changes take effect after merge.", ">"]
    return lines + [f"> - {markdown_text(change)}" for change in report.policy_changes]


def _not_evaluated(report: Report) -> list[str]:
    """The changed files under the root of `paths` that were not evaluated, each with the reason, in
    the header (never cut for size): a gate that passes must say what it did not look at."""
    if not report.not_evaluated:
        return []
    count = len(report.not_evaluated)
    lines = [
        "",
        f"> **Changed files not evaluated** ({count}): changed under the root of `paths`, but not evaluated.",
        ">",
    ]
    for entry in report.not_evaluated[:NOT_EVALUATED_LISTED]:
        lines.append(f"> - {markdown_code(visible_name(entry.path))}: {markdown_text(entry.reason)}")
    if count > NOT_EVALUATED_LISTED:
        lines.append(f"> - … and {count - NOT_EVALUATED_LISTED} more (every one is in the results file)")
    return lines


def _figure(result: FileResult) -> str:
    """The score column: `5/6 met` on a binary rubric, else the mean and its band."""
    if result.decision is not None and result.decision.criteria is not None:
        met, total = result.decision.criteria
        return f"{met}/{total} met"
    band = f" {markdown_cell(result.band)}" if result.band else ""
    structural = " (structural checks)" if result.uncounted else ""  # as reasons.figure says
    return _score(result.mean) + band + structural


def _row(result: FileResult, timed: bool) -> str:
    decided = "; ".join(markdown_cell(b) for b in decided_briefs(result))
    skipped = ", ".join(markdown_cell(d) for d in result.skipped)
    row = (
        f"| {markdown_code(result.path, in_table=True)} | {_ICON[result.verdict]} | {_figure(result)} "
        f"| {decided or '—'} | {skipped or '—'} |"
    )
    if timed:
        row += f" {markdown_cell(file_usage(result) or '—')} |"
    return row


def _dimension_lines(result: FileResult, dim: DimensionResult, tags: dict[str, list[str]]) -> list[str]:
    tags_here = list(tags.get(dim.id, []))
    if dim.status is Status.ERROR and not tags_here:
        tags_here.append("error")
    head = f"- **{markdown_text(dim.id)}** {_dimension_score(result, dim)}{at_the_base(result, dim)}"
    if tags_here:
        head += f" ({', '.join(markdown_text(t) for t in tags_here)})"
    if dim.error:
        head += f": {markdown_text(dim.error)}"
    elif dim.reasoning:
        reasoning = (
            dim.reasoning if len(dim.reasoning) <= REASONING_CHARS else dim.reasoning[:REASONING_CHARS] + "…"
        )
        head += f": {markdown_text(reasoning)}"
    lines = [head]
    if dim in unmet(result):  # a criterion not met: the span that decided it
        for e in dim.evidence:
            where = f" (line {e.line})" if e.line is not None else ""
            found = "" if e.verified else " (not found in the item)"
            lines.append(f"  - evidence: “{markdown_text(e.quote)}”{where}{found}")
    findings, existed = shown_findings(dim)
    for finding in findings[:FINDINGS_PER_DIMENSION]:
        where = markdown_code(f"{result.path}:{finding.line}")
        lines.append(f"  - {where} {markdown_text(finding_words(finding))}")
    hidden = len(findings) - FINDINGS_PER_DIMENSION
    if hidden > 0:
        lines.append(f"  - … and {hidden} more finding(s) (see the annotations or the results file)")
    if existed:
        lines.append(f"  - and {existed} finding(s) that {EXISTED} (notices in the annotations)")
    return lines


def _dimension_score(result: FileResult, dim: DimensionResult) -> str:
    text = score_text(result, dim)
    return text if is_binary(result) else f"score {_score(dim.score)}"


def _section(result: FileResult) -> list[str]:
    lines = ["", f"### {markdown_code(result.path)}: {_ICON[result.verdict]}"]
    if result.error:
        lines += ["", f"Error: {markdown_text(result.error)}"]
    rules = [f"- **{markdown_text(c.name)}**: {markdown_text(c.detail)}" for c in file_rules_failed(result)]
    if rules:
        lines += ["", *rules]
    compared = comparison_line(result)
    if compared is not None:
        lines += ["", f"Against the base: {markdown_text(compared)}"]
        existed = existed_briefs(result)
        if existed:
            lines.append(f"Not counted ({EXISTED}): {markdown_text('; '.join(existed))}")
    if result.failing_dimensions:
        tags = dimension_rules(result)
        lines.append("")
        for dim in result.failing_dimensions:
            lines += _dimension_lines(result, dim, tags)
    if result.uncounted:
        lines += ["", "Judged failures **not counted** (`require-calibration`, no current calibration):", ""]
        lines += [f"- **{markdown_text(c.name)}**: {markdown_text(c.detail)}" for c in result.uncounted]
    for over in result.over_budget:
        lines += ["", f"> Over budget: {markdown_text(over)}"]
    for warning in result.warnings:
        lines += ["", f"> {markdown_text(warning)}"]
    return lines


def _has_section(result: FileResult) -> bool:
    """A file has a section of its own unless it passed with nothing to say beyond its warnings."""
    return result.verdict is not Verdict.PASS or bool(result.uncounted or result.over_budget)


def _passing_warnings(report: Report) -> list[str]:
    """Warnings on passing files (e.g. judge and generator of one family): every report shows them."""
    items = [
        f"- {markdown_code(r.path)}: {markdown_text(w)}"
        for r in report.results
        if not _has_section(r)
        for w in r.warnings
    ]
    return ["\n### Warnings on passing files\n\n" + "\n".join(items)] if items else []


def _kappa(value: object) -> str:
    kappa = value.get("value") if isinstance(value, dict) else None
    return "n/a" if kappa is None else f"{kappa:.2f}"


def _agreement(report: Report) -> list[str]:
    """Per judged dimension: how far the judges agree (several judges only)."""
    if not report.agreement:
        return []
    lines = ["| Dimension | Judges | Items | Exact | Within 1 | κ |", "| --- | --- | --- | --- | --- | --- |"]
    for dim_id, a in sorted(report.agreement.items()):
        exact, near = a.get("exact"), a.get("within_one")
        lines.append(
            f"| {markdown_text(dim_id)} | {a.get('raters', '')} | {a.get('items', '')} | "
            f"{'n/a' if exact is None else f'{exact:.0%}'} | {'n/a' if near is None else f'{near:.0%}'} | "
            f"{_kappa(a.get('kappa'))} |"
        )
    return ["\n### Judge agreement\n\n" + "\n".join(lines)]


def _blocks(report: Report) -> list[str]:
    timed = _timed(report)
    rows = [_row(r, timed) for r in report.results]
    sections = ["\n".join(_section(r)) for r in report.results if _has_section(r)]
    notes = (
        ["\n### Notes\n\n" + "\n".join(f"- {markdown_text(n)}" for n in report.notes)] if report.notes else []
    )
    return rows + sections + _passing_warnings(report) + _agreement(report) + _health(report) + notes


def _health(report: Report) -> list[str]:
    """Rubric health of the run itself, once it covers enough files for the shares to mean anything."""
    if len(report.results) < HEALTH_MIN_FILES:  # too few to evaluate that many: no import
        return []
    from evalgate.report import health

    rows = health.report_rows(report)
    if len(rows) < health.MIN_FILES:
        return []
    spreads, sides = health.score_spreads(rows), health.disagreement(health.report_sides(report))
    return ["\n" + health.health_markdown(spreads, sides, markdown_text)]


def render_summary(
    report: Report,
    check_name: str = "evalgate",
    limit: int = 1024 * 1024,
    results_file: str | None = None,
) -> str:
    """The job summary in markdown, at most `limit` UTF-8 bytes, cut between blocks with a note."""
    text = "\n".join(_header(report, check_name))
    blocks = _blocks(report)
    where = f" Full results: {markdown_code(results_file)}." if results_file else ""
    # room for the longest note we might add, so adding it never breaks the limit
    reserve = utf8_len(f"\n\n> **Note:** {len(blocks)} more part(s) not shown (size limit).{where}\n")
    size = utf8_len(text)  # kept as a running total: re-measuring the text each time is quadratic
    shown = 0
    for block in blocks:
        block_size = 1 + utf8_len(block)
        if size + block_size + reserve > limit:
            break
        text += "\n" + block
        size += block_size
        shown += 1
    if shown < len(blocks):
        text += f"\n\n> **Note:** {len(blocks) - shown} more part(s) not shown (size limit).{where}"
    return text + "\n"
