"""`gate-on: new`: a file's result against its version at the base commit, both evaluated in one run
with one policy -> which findings are new, which failed rules the change made worse, the verdict.

A finding's fingerprint is its dimension, its rule (set by the check) and what it says about the
text it points at: the message with white space folded and line references ("line 40") taken out,
or, where a message numbers or counts things ("Key Finding 3 has 12 words"), the `key` the check
gives instead. The fingerprint leaves out the line number and the line's other words, so neither a
line shift nor a typo fixed elsewhere on the line makes a finding new. Findings are compared as a
multiset: a head finding is new when the base version has no unmatched finding with its
fingerprint, so a second copy of an old finding is new. Among findings that share a fingerprint,
those whose lines read as a base finding's (`Finding.anchor`) are matched first, so the new one
is the copy the change added.

Which failed rules count (the others existed before this change and are reported, not counted):
- a deterministic dimension's rule (hard fail, any 1, floor), when the dimension has a new finding
  or scores lower than at the base;
- a judged dimension's rule, only when its score is lower than at the base;
- a rule about the whole file (the mean, the ensemble's rules), when the base passed it or the
  file's mean is lower than at the base;
- always: a check or judge that could not score, a dimension the base has no score for (its judge
  failed there), and a file that has no version at the base (new in the change), which is judged
  as under `gate-on: all`.
So a file that passes under `all` passes under `new`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from evalgate.results import (
    AgainstBase,
    Decision,
    DimensionResult,
    FileResult,
    Finding,
    Rule,
    RuleCheck,
    Status,
    Verdict,
)

# "line 40", "lines 3-5", "on line 12": where something else is, which moves with every line above it
_LINE_REFERENCE = re.compile(r"\b(lines?)[ \t]+\d+(?:[ \t]*[-–][ \t]*\d+)?", re.I)
# A file's mean is a float sum: equal means may differ in the last bits
_MEAN_TOLERANCE = 1e-9
# Rules that say the file could not be scored: a gate that could not judge does not pass, in any mode
# a run's own facts about this version, never a finding the base could have had: the budgets too
# (the file not judged, or over its budget per document, in this run)
_ALWAYS_COUNTED = frozenset(
    {
        Rule.CHECK_ERROR,
        Rule.JUDGE_ERROR,
        Rule.ENSEMBLE_ERROR,
        Rule.NOTHING_EVALUATED,
        Rule.FILE_ERROR,
        Rule.BUDGET,
        Rule.BUDGETS,
    }
)

Fingerprint = tuple[str, str, bool, str]


def fingerprint(dimension: str, finding: Finding) -> Fingerprint:
    """(dimension, rule, notice, what it says): the same for a finding that only moved."""
    said = finding.key if finding.key is not None else _LINE_REFERENCE.sub(r"\1 #", finding.message)
    return dimension, finding.rule, finding.notice, " ".join(said.split())


def marked(dimension: str, head: Sequence[Finding], base: Sequence[Finding]) -> tuple[Finding, ...]:
    """`head` with `existed` set on each finding the base version has too (a multiset match by
    fingerprint; within one fingerprint, findings on lines that read alike pair first)."""
    pool: dict[Fingerprint, list[Finding]] = {}
    for finding in base:
        pool.setdefault(fingerprint(dimension, finding), []).append(finding)
    matched = [False] * len(head)
    prints = [fingerprint(dimension, f) for f in head]
    # Pass by pass, most alike first: the same line text and words, the same line text, the same words,
    # then any finding with the fingerprint (in document order).
    passes: tuple[Callable[[Finding, Finding], bool], ...] = (
        lambda h, b: h.anchor == b.anchor and h.message == b.message,
        lambda h, b: h.anchor == b.anchor,
        lambda h, b: h.message == b.message,
        lambda h, b: True,
    )
    for alike in passes:
        for i, finding in enumerate(head):
            candidates = pool.get(prints[i])
            if matched[i] or not candidates:
                continue
            j = next((j for j, b in enumerate(candidates) if alike(finding, b)), None)
            if j is not None:
                del candidates[j]
                matched[i] = True
    return tuple(replace(f, existed=True) if seen else f for f, seen in zip(head, matched, strict=True))


def _counted(findings: Iterable[Finding], *, existed: bool) -> int:
    return sum(1 for f in findings if not f.notice and f.existed == existed)


def _base_score(base: DimensionResult | None) -> int | None:
    if base is None or base.status is not Status.SCORED:
        return None
    return base.score


def _dimension_reason(head: DimensionResult | None, base: DimensionResult | None) -> str | None:
    """Why a failed rule about one dimension counts under `new` (None: it does not count)."""
    was = _base_score(base)
    if head is None:
        return ""
    if was is None:
        return "no score at the base commit to compare with"
    worse = head.score is not None and head.score < was
    if head.kind == "deterministic":
        new = _counted(head.findings, existed=False)
        if new:
            return f"{new} new finding{'s' if new != 1 else ''}" + (f", {was} at the base" if worse else "")
    return f"{was} at the base commit" if worse else None


def _file_reason(check: RuleCheck, head: FileResult, base: FileResult) -> str | None:
    """Why a failed rule about the whole file (the mean, an ensemble rule) counts under `new`."""
    base_failed = base.decision is not None and any(
        c.rule is check.rule and not c.passed for c in base.decision.checks
    )
    if base.mean is None:
        return "no mean at the base commit to compare with"
    lower = head.mean is not None and head.mean < base.mean - _MEAN_TOLERANCE
    if not base_failed:
        return f"passed at the base commit (mean {base.mean:.2f})"
    return f"mean {base.mean:.2f} at the base commit" if lower else None


def _with_reason(check: RuleCheck, reason: str) -> RuleCheck:
    return replace(check, detail=f"{check.detail}; {reason}") if reason else check


def without_base(head: FileResult, base_sha: str, base_path: str | None, note: str) -> FileResult:
    """A file with nothing to compare with (new in the change, or its base version could not be
    evaluated): every finding is new, and its verdict is the one `gate-on: all` gives."""
    if head.error is not None:
        return head
    new = sum(_counted(d.findings, existed=False) for d in head.dimensions)
    return replace(head, against_base=AgainstBase(base_sha, base_path, new=new, note=note))


def against_base(head: FileResult, base: FileResult, base_sha: str, base_path: str) -> FileResult:
    """The head's result decided on what the change made worse than `base` (see the module)."""
    if head.error is not None:
        return head
    if base.error is not None or base.decision is None:
        why = base.error or "it has no decision"
        return without_base(head, base_sha, base_path, f"the base version could not be evaluated: {why}")
    base_dims = {d.id: d for d in base.dimensions}
    dims = tuple(
        replace(d, findings=marked(d.id, d.findings, base_dims[d.id].findings if d.id in base_dims else ()))
        for d in head.dimensions
    )
    by_id = {d.id: d for d in dims}
    decision = head.decision
    assert decision is not None  # a result without an error was decided by the gate
    kept: list[RuleCheck] = []
    existed: list[RuleCheck] = []
    for check in decision.checks:
        if check.passed:
            kept.append(check)
            continue
        if check.rule in _ALWAYS_COUNTED:
            reason: str | None = ""
        elif check.dimension is not None:
            reason = _dimension_reason(by_id.get(check.dimension), base_dims.get(check.dimension))
        else:
            reason = _file_reason(check, head, base)
        if reason is None:
            existed.append(check)
        else:
            kept.append(_with_reason(check, reason))
    failed = [c for c in kept if not c.passed]
    verdict = _verdict(head.verdict, failed)
    comparison = AgainstBase(
        base_sha,
        base_path,
        new=sum(_counted(d.findings, existed=False) for d in dims),
        existing=sum(_counted(d.findings, existed=True) for d in dims),
        base_mean=base.mean,
        base_scores=tuple((d.id, _base_score(d)) for d in base.dimensions),
        existed_rules=tuple(existed),
        base_calls=base.judges,
    )
    return replace(
        head,
        verdict=verdict,
        dimensions=dims,
        hard_failures=tuple(c.dimension for c in failed if c.rule is Rule.HARD_FAIL and c.dimension),
        reasons=tuple(c.text for c in failed),
        decision=_decision(decision, kept, failed),
        against_base=comparison,
    )


def _verdict(head: Verdict, failed: list[RuleCheck]) -> Verdict:
    """ERROR stays; a rule still failed is a FAIL; a file the budget left unjudged (its one failed
    rule `budget`, which is no finding) stays NOT_JUDGED; else PASS."""
    if head is Verdict.ERROR:
        return head
    if any(c.rule is not Rule.BUDGET for c in failed):
        return Verdict.FAIL
    return Verdict.NOT_JUDGED if head is Verdict.NOT_JUDGED else Verdict.PASS


def _decision(decision: Decision, kept: list[RuleCheck], failed: list[RuleCheck]) -> Decision:
    failing = tuple(dict.fromkeys(c.dimension for c in failed if c.dimension))
    return replace(decision, checks=tuple(kept), failing=failing)
