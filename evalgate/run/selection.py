"""Which of the files a run found it evaluates: the configuration's `select: front-matter:`.

A review runs on the items whose front matter says they are ready for it (`status: reviewing`), not
on every item a push touched. Each target's front matter is read from its first bytes; a target whose
front matter lacks a selected value is reported as not evaluated, with what it says instead (nothing
is dropped without a word), and a target named on its own (a file on the command line, the action's
`files` input on a dispatch) is evaluated whatever it says: naming it is the choice. A file that
cannot be read is kept, so that reading it whole reports why, and so is a file whose front matter
cannot be read (broken or hostile YAML): it cannot say that it is not ready, and under a gate a
document the selection cannot read is evaluated, never left out (an independent review found a pull
request's failing item, its front matter saying `status: completed` but not parsing, left out of a
`select:` and the required check green). Its front-matter warning says why it was ignored.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from evalgate.config import FrontMatterValue, Select
from evalgate.discover import Target, display_path, reportable
from evalgate.document import read_front_matter
from evalgate.results import NotEvaluated


def _wanted(value: FrontMatterValue) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


def _says(value: Any) -> tuple[str, ...]:
    """A front-matter value as the strings it holds (a list: each of its scalars)."""
    if isinstance(value, list):
        return tuple(str(v) for v in value if not isinstance(v, (list, dict)))
    if value is None or isinstance(value, dict):
        return ()
    return (str(value).lower() if isinstance(value, bool) else str(value),)


def why_not_selected(data: dict[str, Any] | None, error: str | None, select: Select) -> str | None:
    """Why a document with this front matter is not selected, or None when it is (front matter that
    could not be read, `error`, says nothing against it: see the module's doc)."""
    if error is not None:
        return None
    for key, value in select.front_matter.items():
        says = _says((data or {}).get(key))
        if not set(says) & set(_wanted(value)):
            found = f"says {key}: {', '.join(map(_shown, says))}" if says else f"has no {key}"
            return f"its front matter {found}; this run evaluates {_wants(select)}"
    return None


def _shown(value: str) -> str:
    """A front-matter value as the reason shows it: as written, or quoted with escapes when a line
    break or other control character in it would start a line of its own in a report or a log (a
    value is the document's text: a line of its own could be a forged report line or a workflow
    command where a caller's log does not switch them off, as the action's does)."""
    return value if value.isprintable() else repr(value)


def _wants(select: Select) -> str:
    return "; ".join(f"{key}: {' or '.join(_wanted(value))}" for key, value in select.front_matter.items())


def select_targets(
    targets: Sequence[Target],
    select: Select,
    inputs: Sequence[str],
    base: Path,
    named: Collection[str] | None = None,
) -> tuple[list[Target], list[NotEvaluated]]:
    """(the targets to evaluate, those not selected with the reason). `named` holds the displays of
    the targets named on their own, which are evaluated whatever their front matter says; None: the
    `inputs` that are files (not directories or globs), relative to `base`."""
    if not select.front_matter:
        return list(targets), []
    named = named_files(inputs, base) if named is None else named
    kept: list[Target] = []
    left: list[NotEvaluated] = []
    for target in targets:
        front = None if target.display in named else read_front_matter(target.path)
        why = None if front is None else why_not_selected(front.data, front.error, select)
        if why is None:
            kept.append(target)
        else:
            left.append(NotEvaluated(target.display, why))
    return kept, left


def named_files(inputs: Sequence[str], base: Path) -> set[str]:
    """The displays of the inputs that name a file on its own (not a directory or a glob)."""
    return {reportable(display_path(base / raw, base)) for raw in inputs if (base / raw).is_file()}
