"""The review report: each file's result in the research-review prompt's own output format.

    REVIEW_TARGET: Research/in-progress/item.md
    citation-discipline: FAIL
      VIOLATION: line 40: LLM used without expansion; write "Large Language Model (LLM)" at first use
    speculation-control: PASS
    remove-ai-slop: FAIL
      VIOLATION: line 12: an em-dash (U+2014): "..."; the review prohibits em-dashes everywhere: ...
    peer-reviewer: FAIL
      logical-coherence-and-evidence-sufficiency: PASS
      alternative-explanations: FAIL
        VIOLATION: Analysis names remote work as the only cause ... (line 88: "Productivity fell ...")
      cross-item-integration: PASS
    OVERALL: FAIL

Skills are the rubric's dimension `group`s, in the rubric's order (`skill/sub-check` nests a
sub-check under its skill; a dimension without a group stands as its own). A skill fails when the
gate failed any of its dimensions (on research-review, any not met). Each finding of a deterministic
dimension is a VIOLATION line with its line number; a judged dimension's violations are the judge's
reasoning (parts separated by ` | `) with the verified evidence quotes. OVERALL is the gate's
verdict, never a judge's claim: PASS only when the file passed, FAIL otherwise (a file that could not
be evaluated is FAIL here, with an ERROR line: a script that greps `OVERALL: FAIL`, as the research
repository's workflow does, must not read it as a pass). A skill or sub-check none of whose
dimensions was evaluated (no judge) is NOT_EVALUATED, and a PASS that some were not part of names
them. Every line is one line: the untrusted text in it (findings quote documents, judges write
reasoning, paths come from the repository) has its line breaks and control characters made spaces,
so nothing in it can write a line of this report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evalgate.judgement import Evidence
from evalgate.report.escape import visible_name
from evalgate.results import DimensionResult, FileResult, Report, Status, Verdict
from evalgate.rubric import Rubric

_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
_QUOTE_CHARS = 80  # an evidence quote is cut to this many characters


def one_line(text: str) -> str:
    """Untrusted text on one line: line breaks and control characters as single spaces."""
    return " ".join(_CONTROL.sub(" ", text).split())


def _groups(rubric: Rubric | None, result: FileResult) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """[(skill, [(sub-check or '', [dimension ids])])] in the rubric's order; the result's dimensions
    the rubric does not name (or all of them, without a rubric) each stand as a skill."""
    named = {d.id: d.group for d in rubric.dimensions} if rubric is not None else {}
    order: dict[str, dict[str, list[str]]] = {}
    for dim in result.dimensions:
        skill, _, part = (named.get(dim.id) or dim.id.replace("_", "-")).partition("/")
        order.setdefault(skill, {}).setdefault(part, []).append(dim.id)
    # a skill's own dimensions ('') before its sub-checks
    return [(skill, sorted(parts.items(), key=lambda p: p[0] != "")) for skill, parts in order.items()]


def _evidence(e: Evidence) -> str:
    quote = one_line(e.quote)
    quote = quote if len(quote) <= _QUOTE_CHARS else quote[: _QUOTE_CHARS - 1] + "…"
    where = f"line {e.line}: " if e.line is not None else ""
    return f'{where}"{quote}"' + ("" if e.verified else " (not found in the item)")


def violations(dim: DimensionResult) -> list[str]:
    """The VIOLATION texts of a dimension the gate failed: its findings (notices aside), or the
    judge's reasoning with its evidence."""
    found = [f"line {f.line}: {one_line(f.message)}" for f in dim.findings if not f.notice]
    if found:
        return found
    reasons = [one_line(part) for part in (dim.reasoning or "").split(" | ") if one_line(part)]
    reasons = reasons or [f"{dim.id} is not met"]
    quotes = [_evidence(e) for e in dim.evidence]
    if len(quotes) == len(reasons):
        return [f"{reason} ({quote})" for reason, quote in zip(reasons, quotes, strict=True)]
    if quotes:
        reasons[0] += f" ({'; '.join(quotes)})"
    return reasons


def _result(dims: Sequence[DimensionResult], failing: set[str]) -> tuple[str, list[str], list[str]]:
    """(PASS, FAIL or ERROR; its `VIOLATION: ...` and `ERROR: ...` lines; the dimensions not
    evaluated) of a set of dimensions, `failing` those the gate failed."""
    lines = [
        f"VIOLATION: {text}"
        for dim in dims
        if dim.id in failing and dim.status is Status.SCORED
        for text in violations(dim)
    ]
    errors = [
        f"ERROR: {dim.id} could not be evaluated: {one_line(dim.error or '')}"
        for dim in dims
        if dim.status is Status.ERROR
    ]
    skipped = [dim.id for dim in dims if dim.status is Status.SKIPPED]
    state = "FAIL" if lines else "ERROR" if errors else "PASS"
    if state == "PASS" and len(skipped) == len(dims):
        state = "NOT_EVALUATED"
    return state, lines + errors, skipped


def _not_evaluated(state: str, dims: Sequence[DimensionResult]) -> str:
    """` (not evaluated: a, b)` after a PASS that some of its dimensions had no part in."""
    skipped = [d.id for d in dims if d.status is Status.SKIPPED]
    return f" (not evaluated: {', '.join(skipped)})" if state == "PASS" and skipped else ""


def review_block(result: FileResult, rubric: Rubric | None) -> list[str]:
    """One file's report in the prompt's format."""
    out = [f"REVIEW_TARGET: {one_line(visible_name(result.path))}"]
    if result.error is not None or not result.dimensions:
        return [*out, f"ERROR: {one_line(result.error or 'not evaluated')}", "OVERALL: FAIL"]
    failing = {d.id for d in result.failing_dimensions}
    by_id = {d.id: d for d in result.dimensions}
    for skill, parts in _groups(rubric, result):
        state, _, _ = _result([by_id[i] for _, ids in parts for i in ids], failing)
        own = [by_id[i] for part, ids in parts if not part for i in ids]
        out.append(f"{skill}: {state}{_not_evaluated(state, own)}")
        for part, ids in parts:  # the skill's own dimensions ('') first, then its sub-checks
            dims = [by_id[i] for i in ids]
            part_state, lines, _ = _result(dims, failing)
            if part:
                out.append(f"  {part}: {part_state}{_not_evaluated(part_state, dims)}")
            out += [("    " if part else "  ") + line for line in lines]
    out.append(f"OVERALL: {'PASS' if result.verdict is Verdict.PASS else 'FAIL'}")
    return out


def render_review(report: Report, rubric: Rubric | None) -> str:
    """Every file's review block, a blank line between them."""
    blocks = ["\n".join(review_block(result, rubric)) for result in report.results]
    return "\n\n".join(blocks) + ("\n" if blocks else "")
