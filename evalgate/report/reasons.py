"""How every report says why a file got its verdict: the rules that decided, each dimension's score on
the rubric's own scale, and on a binary rubric the criteria met.

The gate records its reasoning as a `Decision` (every rule it applied, passed or failed); the text
report, the markdown summary (and so the job summary, the check run and the PR comment) all word it
through these functions, so a verdict reads the same wherever it is shown. A result made without the
gate (an older results file) has no decision: the functions then fall back to its `reasons`.
"""

from __future__ import annotations

from evalgate.results import DimensionResult, FileResult, Finding, Report, Rule, RuleCheck, Status


def is_binary(result: FileResult) -> bool:
    """Whether the file was scored on a binary (met / not met) rubric."""
    return result.decision is not None and result.decision.binary


def score_text(result: FileResult, dim: DimensionResult) -> str:
    """A dimension's score as a reader takes it: `4/5`, `met` / `not met`, or its status."""
    if dim.score is None:
        return dim.status.value
    if result.decision is None:
        return f"{dim.score}/5"
    high = result.decision.scale[1]
    if result.decision.binary:
        return "met" if dim.score == high else "not met"
    return f"{dim.score}/{high}"


def figure(result: FileResult) -> str | None:
    """The file's headline figure: `5/6 criteria met` on a binary rubric, else the mean (and, with
    several judges, that it is theirs), or None when nothing was scored."""
    decision = result.decision
    if decision is not None and decision.criteria is not None:
        met, total = decision.criteria
        return f"{met}/{total} criteria met"
    if result.mean is None:
        return None
    judges = f" ({len(decision.judge_means)} judges)" if decision is not None and decision.judge_means else ""
    # judged failures not counted: the verdict, and so the mean shown, are the structural checks'
    structural = " (structural checks)" if result.uncounted else ""
    return f"mean {result.mean:.2f}{judges}{structural}"


def passed_briefs(result: FileResult) -> list[str]:
    """For a passing file, every rule it passed, once each (`no hard fail`, `mean 4.20 ≥ 4`, ...)."""
    if result.decision is None:
        return []
    return list(dict.fromkeys(c.brief for c in result.decision.checks if c.passed))


def file_rules_failed(result: FileResult) -> list[RuleCheck]:
    """The failed rules about the whole file rather than one dimension (mean, the ensemble rules,
    nothing evaluated)."""
    if result.decision is None:
        return []
    return [c for c in result.decision.failed if c.dimension is None]


def dimension_rules(result: FileResult) -> dict[str, list[str]]:
    """For each dimension the rules counted against the file, the names of those rules (on a binary
    rubric the criterion rule goes unnamed: `not met` is the score itself)."""
    tags: dict[str, list[str]] = {}
    if result.decision is None:
        for dim_id in result.hard_failures:
            tags.setdefault(dim_id, []).append("hard fail")
        return tags
    for check in result.decision.failed:
        if check.dimension is None or (result.decision.binary and check.rule is Rule.FAIL_ON_SCORE):
            continue
        tags.setdefault(check.dimension, []).append(check.name)
    return tags


def decided_briefs(result: FileResult) -> list[str]:
    """What decided the verdict, short enough for a table cell: the failed rules (a dimension's with
    its score), or for a pass every rule passed. Without a decision: the failing dimensions."""
    if result.decision is None:
        return [f"{d.id} ({'—' if d.score is None else d.score})" for d in result.failing_dimensions]
    before = existed_briefs(result)
    existed = [f"{EXISTED}: {', '.join(before)}"] if before else []
    if not result.decision.failed:
        return passed_briefs(result) + existed
    return list(dict.fromkeys(c.brief for c in result.decision.failed)) + existed


def legacy_reasons(result: FileResult) -> list[str]:
    """A result without a decision: the reasons about the whole file (hard fail, mean), as before."""
    if result.decision is not None:
        return []
    return [r for r in result.reasons if r.startswith(("hard fail", "mean"))]


def unmet(result: FileResult) -> list[DimensionResult]:
    """On a binary rubric, the criteria scored and not met."""
    if result.decision is None or not result.decision.binary:
        return []
    top = result.decision.scale[1]
    return [
        d for d in result.dimensions if d.status is Status.SCORED and d.score is not None and d.score < top
    ]


# --- gate-on: new -------------------------------------------------------------------------------

EXISTED = "existed before this change"


def is_notice(finding: Finding) -> bool:
    """A finding reported as a notice: one that did not lower its score, or (under `gate-on: new`)
    one its base version had too."""
    return finding.notice or finding.existed


def finding_words(finding: Finding) -> str:
    """A finding's message as reports show it: `notice: ` before a notice, and after one that
    existed at the base, that it did."""
    if finding.existed:
        return f"notice: {finding.message} ({EXISTED})"
    return f"notice: {finding.message}" if finding.notice else finding.message


def shown_findings(dim: DimensionResult, *, every: bool = False) -> tuple[list[Finding], int]:
    """The findings a failing dimension lists (under `gate-on: new` the new ones first; those that
    existed before only with `every`), and how many existed before and are left out."""
    new = [f for f in dim.findings if not f.existed]
    old = [f for f in dim.findings if f.existed]
    return (new + old, 0) if every else (new, len(old))


def comparison_line(result: FileResult) -> str | None:
    """How a file under `gate-on: new` compared with its base version: `1 new finding, 4 existed
    before this change (base 1a2b3c4d5e6f)`, or why nothing was compared; None under `all`."""
    against = result.against_base
    if against is None:
        return None
    if against.note:
        return f"{against.note} ({_count(against.new, 'new finding')})"
    moved = f", from {against.base_path}" if against.base_path and against.base_path != result.path else ""
    return (
        f"{against.new} new finding{'' if against.new == 1 else 's'}, {against.existing} {EXISTED} "
        f"(base {against.base_sha[:12]}{moved})"
    )


def at_the_base(result: FileResult, dim: DimensionResult) -> str:
    """` (4 at the base)` when the dimension scored otherwise in the base version (`gate-on: new`)."""
    if result.against_base is None:
        return ""
    was = dict(result.against_base.base_scores).get(dim.id)
    return f" ({was} at the base)" if was is not None and was != dim.score else ""


def existed_briefs(result: FileResult) -> list[str]:
    """The failed rules the base version failed as well, no worse (reported, never counted)."""
    if result.against_base is None:
        return []
    return list(dict.fromkeys(c.brief for c in result.against_base.existed_rules))


def mode_line(report: Report) -> str | None:
    """The run's mode, why, and under `new` the findings counted: `gate-on: new (the default on
    pull_request), against base commit 1a2b3c4d5e6f: 1 new finding, 4 existed before this change`."""
    if report.gate_on is None:
        return None
    line = report.gate_on.describe()
    if report.gate_on.mode == "new":
        counts = report.gate_on_summary()
        line += f": {_count(counts['new_findings'], 'new finding')}, {counts['existing_findings']} {EXISTED}"
    return line


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
