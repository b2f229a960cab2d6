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

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
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


@cache
def _registry() -> dict[str, CheckFn]:
    # Built once per process (it ran per check per file). Imported here so a broken check module
    # fails that check, not the import of the package.
    from evalgate.checks import (
        acronym_expansion,
        amount_matches_tools,
        evidence_map_coverage,
        key_finding_word_count,
        section_presence,
        source_consultation,
    )

    return {
        "section_presence": section_presence.check,
        "evidence_map_coverage": evidence_map_coverage.check,
        "key_finding_word_count": key_finding_word_count.check,
        "source_consultation": source_consultation.check,
        "acronym_expansion": acronym_expansion.check,
        "amount_matches_tools_computed": amount_matches_tools.check,
    }


def registry() -> dict[str, CheckFn]:
    """Check id -> check function (a copy: callers may change theirs)."""
    return dict(_registry())


def run_check(
    dimension_id: str, document: Document, *, hard_fail: bool = False, params: CheckParams | None = None
) -> DimensionResult:
    """Run one deterministic check with its rubric params (None: its defaults); any exception becomes
    an error value for that dimension."""
    fn = _registry().get(dimension_id)
    if fn is None:
        return DimensionResult(
            id=dimension_id,
            kind="deterministic",
            status=Status.ERROR,
            error=f"no deterministic check named {dimension_id!r}",
            hard_fail=hard_fail,
        )
    try:
        outcome = fn(document, params)
    except Exception as exc:  # a broken check is a value, not a crash
        return DimensionResult(
            id=dimension_id,
            kind="deterministic",
            status=Status.ERROR,
            error=f"check {dimension_id} failed: {type(exc).__name__}: {exc}",
            hard_fail=hard_fail,
        )
    return DimensionResult(
        id=dimension_id,
        kind="deterministic",
        status=Status.SCORED,
        score=outcome.score,
        findings=tuple(sorted(outcome.findings, key=lambda f: (f.line, f.message))),
        hard_fail=hard_fail,
    )
