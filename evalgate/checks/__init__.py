"""Stage 2, deterministic checks: a `Document` -> a 1-5 score and line-precise findings per dimension.

Takes a parsed document (and, for structured items, its parts); gives a `CheckOutcome` per check, free,
exact and the same on every run. One module per check, and an explicit registry.

A check is a function `check(document, params=None) -> CheckOutcome`, where `params` is its dimension's
`params:` from the rubric (a validated, hashable `evalgate.rubrics.params.CheckParams`; None: the check's
defaults, which are the research-loop rubric's shipped values). What a check derives from its params
(regexes, tables) is cached by the params, so a run prepares it once per process, not per file.
`run_check` turns a check into the one result shape every dimension shares; a check that raises
becomes an error value naming the check, never a crash of the run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from importlib import import_module
from typing import Any

from evalgate.document import Document
from evalgate.results import DimensionResult, Finding, Status
from evalgate.rubrics.params import CheckParams


@dataclass(frozen=True)
class CheckOutcome:
    """A deterministic check's score (on the rubric's 1-5 scale) and its line-precise findings."""

    score: int
    findings: tuple[Finding, ...] = ()


CheckFn = Callable[[Document, Any], CheckOutcome]  # (document, params or None)


# Check id -> the module under evalgate.checks that holds its `check`.
_MODULES = {
    "section_presence": "section_presence",
    "evidence_map_coverage": "evidence_map_coverage",
    "key_finding_word_count": "key_finding_word_count",
    "source_consultation": "source_consultation",
    "acronym_expansion": "acronym_expansion",
    "amount_matches_tools_computed": "amount_matches_tools",
    # the research-review pack's (the review prompt's exact rules)
    "em_dashes": "em_dashes",
    "formulaic_transitions": "formulaic_transitions",
    "overconfident_language": "overconfident_language",
    "opinion_labels": "opinion_labels",
    "high_confidence_sources": "high_confidence_sources",
}


@cache
def _check(dimension_id: str) -> CheckFn | None:
    """The check's function, its module imported the first time the check runs in this process (a
    rubric's run imports only its own checks: the research-loop rubric's never imports
    amount_matches_tools and, with it, decimal); None for an unknown id."""
    module = _MODULES.get(dimension_id)
    if module is None:
        return None
    check: CheckFn = import_module(f"evalgate.checks.{module}").check
    return check


def registry() -> dict[str, CheckFn]:
    """Check id -> check function (every check's module imported)."""
    return {dimension_id: fn for dimension_id in _MODULES if (fn := _check(dimension_id)) is not None}


def run_check(
    dimension_id: str,
    document: Document,
    *,
    hard_fail: bool = False,
    params: CheckParams | None = None,
    anchors: bool = False,
    binary: bool = False,
) -> DimensionResult:
    """Run one deterministic check with its rubric params (None: its defaults); any exception becomes
    an error value for that dimension. `anchors`: give each finding its `anchor` (`gate-on: new`
    needs them; a run that compares nothing does not pay for them). `binary`: the rubric's scale is
    0-1 (a criterion met or not), where a check is met when it finds nothing (notices aside), whatever
    its 1-5 score: a binary pack such as research-review reads acronym_expansion's findings as the
    review prompt does, as violations."""
    if dimension_id not in _MODULES:
        return DimensionResult(
            id=dimension_id,
            kind="deterministic",
            status=Status.ERROR,
            error=f"no deterministic check named {dimension_id!r}",
            hard_fail=hard_fail,
        )
    try:
        fn = _check(dimension_id)  # a check module that fails to import fails its check alone
        assert fn is not None
        outcome = fn(document, params)
    except Exception as exc:  # a broken check is a value, not a crash
        return DimensionResult(
            id=dimension_id,
            kind="deterministic",
            status=Status.ERROR,
            error=f"check {dimension_id} failed: {type(exc).__name__}: {exc}",
            hard_fail=hard_fail,
        )
    findings = (anchored(document, f) for f in outcome.findings) if anchors else outcome.findings
    score = outcome.score
    if binary:
        score = 0 if any(not f.notice for f in outcome.findings) else 1
    return DimensionResult(
        id=dimension_id,
        kind="deterministic",
        status=Status.SCORED,
        score=score,
        findings=tuple(sorted(findings, key=lambda f: (f.line, f.message))),
        hard_fail=hard_fail,
    )


def anchored(document: Document, finding: Finding) -> Finding:
    """The finding with its `anchor`: a digest of the file's text on the lines it points at, white
    space folded. Under `gate-on: new` it tells which of several findings that share a fingerprint
    are the new ones (the row a change added, not an old one above it); it never decides that a
    finding is new (evalgate/gate/compare.py)."""
    last = max(finding.end_line or finding.line, finding.line)
    text = " ".join(" ".join(document.file_line(n).split()) for n in range(finding.line, last + 1))
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return replace(finding, anchor=digest)
