"""How every report says `gate-on: new` decided: the mode and its counts in the header, findings that
existed before as notices, the rules that existed before named and not counted, a base score where it
differs; and the results file reads back with all of it (so shards merge it)."""

from __future__ import annotations

import json
from dataclasses import replace

from evalgate.gate import decide
from evalgate.gate.compare import against_base, without_base
from evalgate.report.jsonfile import render_json
from evalgate.report.load import report_from_json
from evalgate.report.sarif import to_sarif
from evalgate.report.summary import render_summary
from evalgate.report.text import render_text
from evalgate.results import Finding, GateOn, Report, RubricRef
from evalgate.rubric import load_rubric
from tests.support.reports import assert_snapshot, dim

BASE = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
RUBRIC = load_rubric("research-loop")
OLD = (
    Finding(
        12, 'CI used without expansion; write "Full Name (CI)" at first use', rule="unexpanded", anchor="a"
    ),
    Finding(
        12,
        'RBAC used without expansion; write "Full Name (RBAC)" at first use',
        rule="unexpanded",
        anchor="a",
    ),
    Finding(
        30, 'SLA used before its expansion (expanded only at line 80); write "…"', rule="late", anchor="b"
    ),
)
NEW = Finding(14, "SBOM used without expansion; ping @octocat <b>", rule="unexpanded", anchor="c")


def _result(path: str, acronyms: tuple[Finding, ...], summary: int) -> object:
    return decide(
        path,
        [
            dim("section_presence", 5),
            dim("acronym_expansion", 2, *acronyms),
            dim("executive_summary_first_sentence", summary, kind="judge"),
            dim("epistemic_labeling", 2, kind="judge"),
        ],
        RUBRIC,
    )


def report() -> Report:
    # lines moved by two below line 12: the old findings are the same findings
    moved = tuple(
        replace(f, line=f.line + 2 * (f.line > 12), message=f.message.replace("80", "82")) for f in OLD
    )
    typo = against_base(
        _result("a-typo-fix.md", moved, 4), _result("a-typo-fix.md", OLD, 4), BASE, "a-typo-fix.md"
    )
    worse = against_base(
        _result("one-more.md", (*moved, NEW), 2), _result("one-more.md", OLD, 4), BASE, "one-more.md"
    )
    new_file = without_base(_result("new.md", OLD, 4), BASE, None, "new in this change: every finding is new")
    gate = GateOn("new", "the default on pull_request", BASE)
    return Report(RubricRef("research-loop", "abc123def456"), (typo, worse, new_file), gate_on=gate)  # type: ignore[arg-type]


def test_the_summary_names_the_mode_the_new_findings_and_what_existed_before_snapshot() -> None:
    text = render_summary(report(), "evalgate")
    assert_snapshot("summary-gate-on.md", text)
    assert (
        "Gate on **new** findings (the default on pull\\_request)" in text and "**4** new, 6 existed" in text
    )
    assert "@octocat" not in text and "<b>" not in text  # document text stays inert
    assert "score 2 (4 at the base)" in text  # the judged dimension that dropped
    assert "existed before this change: floor: epistemic\\_labeling 2 &lt; 3" in text


def test_the_text_report_lists_the_new_findings_and_counts_the_others_snapshot() -> None:
    text = render_text(report())
    assert_snapshot("text-gate-on.txt", text)
    assert "one-more.md:14: SBOM used without expansion" in text and "one-more.md:12:" not in text
    verbose = render_text(report(), verbose=True)
    assert "one-more.md:12: notice: CI used without expansion" in verbose
    assert "(existed before this change)" in verbose


def test_the_results_file_reads_back_with_the_comparison() -> None:
    written = render_json(report())
    again = report_from_json(json.loads(written))
    assert render_json(again) == written
    assert again.gate_on == report().gate_on
    assert [r.against_base.new if r.against_base else None for r in again.results] == [0, 1, 3]


def test_sarif_marks_each_finding_new_or_unchanged() -> None:
    results = to_sarif(report())["runs"][0]["results"]
    states = [(r["message"]["text"].split(" ")[0], r["baselineState"], r["level"]) for r in results]
    assert ("SBOM", "new", "warning") in states and ("CI", "unchanged", "note") in states
