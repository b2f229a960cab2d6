"""The fix as whole lines: what `evalgate fix` would write on each line it changes.

A pull request's suggested changes (evalgate/github/suggest.py) are made of these. They come from
`fix_bytes`, the same call `evalgate fix` makes, so a suggestion is exactly the edit the command
writes: with its refusals (evalgate/fix/refusals.py, each left for the author), its articles, and its
check that no other dimension moves. A fix never adds or removes a line, so line i of the fixed file
replaces line i of the file as written, and each changed line is one self-contained suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalgate.fix.command import DashPlan, fix_bytes
from evalgate.rubrics.params import AcronymExpansionParams, CheckParams


@dataclass(frozen=True)
class Rewrite:
    """One edit on a line: `old` (the words as written) becomes `new`, for `acronym`."""

    acronym: str
    old: str
    new: str


@dataclass(frozen=True)
class LineFix:
    """Line `line` (1-based) of a file as written (`old`, without its line ending) and as `evalgate
    fix` writes it (`new`), with the edits that make the difference, left to right."""

    line: int
    old: str
    new: str
    rewrites: tuple[Rewrite, ...]


def line_fixes(
    raw: bytes,
    params: AcronymExpansionParams | None,
    others: list[tuple[str, CheckParams | None]],
    dashes: DashPlan | None = None,
) -> list[LineFix]:
    """Every line `evalgate fix` would change in a UTF-8 file's bytes (`raw`), in line order; an empty
    list when it would change nothing (`dashes`: the em-dash fixes too, as `fix` makes them with a
    rubric that has `em_dashes`). Raises UnicodeDecodeError for bytes that are not UTF-8."""
    fixed, result = fix_bytes(raw, params, others, dashes)
    if fixed == raw:
        return []
    rewrites: dict[int, list[Rewrite]] = {}
    for edit in sorted(result.fixed, key=lambda e: (e.line, e.column)):
        rewrites.setdefault(edit.line, []).append(Rewrite(edit.acronym, edit.old, edit.new))
    return [
        LineFix(number, old, new, tuple(rewrites.get(number, ())))
        for number, (old, new) in enumerate(zip(_lines(raw), _lines(fixed), strict=True), start=1)
        if old != new
    ]


def _lines(data: bytes) -> list[str]:
    """The lines of a file as git counts them (split at LF), each without its CR, BOM dropped."""
    return [line.removesuffix("\r") for line in data.decode("utf-8").removeprefix("\ufeff").split("\n")]
