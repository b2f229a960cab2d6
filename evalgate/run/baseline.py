"""`gate-on: new` in the run: each document's version at the base commit, evaluated beside it.

Takes a `Baseline` (the caller's: the action's or `evalgate check --gate-on new --base REV`'s, which
reads the versions with git, never by checking the base out into the workspace, and writes each
into a private directory outside it) and the run's targets; gives the batches of targets to evaluate
(each document, then the base versions it needs) and, once the gate has decided them, each document's
result against its base version's (`evalgate.gate.compare`). Both versions go through the same structural
pass, under the same time budget, and the same judges (so the judge cache answers for a base version
judged before).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from evalgate.discover import Target
from evalgate.gate.compare import against_base, without_base
from evalgate.results import FileResult


@dataclass(frozen=True)
class BaseVersion:
    """A document's version at the base commit.

    `path` is its path there (another for a rename), None when it has none; `file` where its text
    was written to be evaluated; `same`: its bytes are the document's, so the document's own result
    stands for it; `note` why there is nothing to compare with ("new in this change")."""

    path: str | None
    file: Path | None = None
    same: bool = False
    note: str = ""


class Baseline(Protocol):
    """The base commit and each target's version there (evalgate/github/baseline.py reads them)."""

    @property
    def sha(self) -> str: ...

    @property
    def why(self) -> str: ...  # why `gate-on: new` applies ("the default on pull_request")

    def versions(self, targets: Sequence[Target]) -> list[BaseVersion]: ...


@dataclass(frozen=True)
class Batch:
    """Documents to decide together: `heads`, each with its base version (or None without a
    baseline), and `work`, the heads followed by the base versions that need evaluating."""

    heads: tuple[Target, ...]
    versions: tuple[BaseVersion | None, ...]
    work: tuple[Target, ...]

    def results(self, decided: Sequence[FileResult], base_sha: str | None) -> list[FileResult]:
        """The heads' results (the first len(heads) of `decided`, in `work`'s order), each compared
        with its base version's (the rest, in order) when there is a baseline."""
        heads, bases = decided[: len(self.heads)], iter(decided[len(self.heads) :])
        if base_sha is None:
            return list(heads)
        return [
            _compared(head, version, bases, base_sha)
            for head, version in zip(heads, self.versions, strict=True)
        ]


def _compared(
    head: FileResult, version: BaseVersion | None, bases: Iterator[FileResult], base_sha: str
) -> FileResult:
    if version is None or version.path is None:
        return without_base(head, base_sha, None, version.note if version else "no base version")
    if version.same:  # the document's own result stands for its base version, judged once
        return against_base(head, replace(head, judges=()), base_sha, version.path)
    if version.file is None:
        return without_base(head, base_sha, version.path, version.note or "its base version was not read")
    return against_base(head, next(bases), base_sha, version.path)


def batches(targets: Sequence[Target], baseline: Baseline | None, size: int) -> list[Batch]:
    """The targets in batches of `size`, each with the base versions it needs evaluated."""
    versions: Sequence[BaseVersion | None] = [None] * len(targets)
    if baseline is not None:
        versions = baseline.versions(targets)
    out = []
    for start in range(0, len(targets), size):
        heads = tuple(targets[start : start + size])
        mine = tuple(versions[start : start + size])
        bases = tuple(
            Target(v.path or head.display, v.file)
            for head, v in zip(heads, mine, strict=True)
            if v is not None and v.path is not None and v.file is not None and not v.same
        )
        out.append(Batch(heads, mine, heads + bases))
    return out
