"""The structural pass: a target -> its document and the rubric's deterministic checks' results.

Picklable, so worker processes run it (evalgate.run.workers); `structural_checks` reads the
rubric's deterministic dimensions, with the repository's acronym glossary, once per run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from evalgate.config import Acronyms, Config
from evalgate.discover import Target
from evalgate.results import DimensionResult
from evalgate.rubric import Rubric
from evalgate.rubrics.params import AcronymExpansionParams, CheckParams

if TYPE_CHECKING:
    from evalgate.document import Document
    from evalgate.run.timer import Timed
    from evalgate.run.workers import Workers


@dataclass(frozen=True)
class Evaluated:
    """One target after reading and the deterministic checks."""

    target: Target
    document: Document | None  # kept only when judges still need it
    error: str | None
    dimensions: tuple[DimensionResult, ...]
    warnings: tuple[str, ...] = ()
    elapsed_ms: float | None = None  # reading and checking it (None: not measured)


@dataclass(frozen=True)
class StructuralPass:
    """Read one file and run the rubric's deterministic checks on it (picklable for worker processes)."""

    max_bytes: int
    checks: tuple[tuple[str, bool, CheckParams | None], ...]  # (dimension id, hard fail, params)
    keep_document: bool
    anchors: bool = False  # `gate-on: new`: findings carry the digest of their lines' text
    binary: bool = False  # a 0-1 rubric: a check is met when it finds nothing (checks.run_check)

    def __call__(self, target: Target) -> Evaluated:
        started = time.perf_counter()
        document, error = self.read(target)
        return self.checked(target, document, error, read_ms=(time.perf_counter() - started) * 1000)

    def read(self, target: Target) -> tuple[Document | None, str | None]:
        """The file's document, or why it has none (never raises)."""
        from evalgate.document import DocumentError, read_document  # (see Outcome)

        try:
            return read_document(target.path, max_bytes=self.max_bytes, display=target.display), None
        except DocumentError as exc:
            return None, str(exc)
        except Exception as exc:  # a parser bug is this file's error, never the end of the run
            return None, f"internal error while parsing: {type(exc).__name__}: {exc}"

    def checked(
        self,
        target: Target,
        document: Document | None,
        error: str | None,
        kept: Document | None = None,
        read_ms: float = 0.0,
    ) -> Evaluated:
        """The deterministic checks' results for what `read` returned (`kept`: the document's judged
        copy, when the caller has made it already; `read_ms`: how long reading it took)."""
        if document is None:
            return Evaluated(target, None, error, ())
        from evalgate.checks import run_check
        from evalgate.document import front_matter_warning

        started = time.perf_counter()
        anchors, binary = self.anchors, self.binary
        dims = tuple(
            run_check(i, document, hard_fail=h, params=p, anchors=anchors, binary=binary)
            for i, h, p in self.checks
        )
        warning = front_matter_warning(document)
        judged = kept if kept is not None else self.kept(document)
        elapsed = read_ms + (time.perf_counter() - started) * 1000
        return Evaluated(target, judged, None, dims, (warning,) if warning else (), elapsed)

    def kept(self, document: Document) -> Document | None:
        """What stays of a document for the judges (and crosses from a worker to the main process):
        all of it but its bytes; nothing when no judge needs it."""
        return replace(document, utf8=None) if self.keep_document else None


# What a worker process sends back for one file: the Evaluated without its target, which the main
# process already holds (a Path costs more to pickle and rebuild than the rest of a small result).
# The document and checks modules are imported where a document is read: in the worker processes when
# there are some, so that the main process of a run without judges never holds them (~0.8 MB of its
# peak over the corpus).
Outcome = tuple["Document | None", str | None, tuple[DimensionResult, ...], tuple[str, ...], float | None]


@dataclass(frozen=True)
class InWorker:
    """A worker's work: the run's pass on one target, sent back as an Outcome (picklable, so a
    spawned worker gets it too; a forked one inherits it)."""

    task: StructuralPass

    def __call__(self, target: Target) -> Outcome:
        evaluated = self.task(target)
        return (
            evaluated.document,
            evaluated.error,
            evaluated.dimensions,
            evaluated.warnings,
            evaluated.elapsed_ms,
        )


def over_budget(budget: float) -> Callable[[Target, str], Outcome]:
    def outcome(target: Target, why: str) -> Outcome:
        message = (
            f"{target.display}: not evaluated: {why}, the time budget per document "
            f"(document-timeout: {budget:g} s); the run went on without it"
        )
        return None, message, (), (), None

    return outcome


def in_order(
    workers: Workers[Target, Outcome] | Timed[Target, Outcome],
    targets: Sequence[Target],
    *,
    last: bool = False,
) -> Iterator[Evaluated]:
    """The targets' structural pass in the workers, in their order (each yielded when it is back);
    `last`: the run hands the workers nothing more (Workers.map)."""
    for target, outcome in zip(targets, workers.map(targets, last=last), strict=True):
        yield Evaluated(target, *outcome)


def structural_checks(rubric: Rubric, config: Config) -> tuple[tuple[str, bool, CheckParams | None], ...]:
    """(dimension id, hard fail, params) for each deterministic dimension, read once per run; the
    repository's acronym glossary (`acronyms:` in .evalgate.yml) is merged into acronym_expansion's."""
    checks = []
    for d in rubric.deterministic:
        params = d.params
        if d.id == "acronym_expansion" and config.acronyms != Acronyms():
            from evalgate.checks.glossary import merged_params

            params = merged_params(
                params if isinstance(params, AcronymExpansionParams) else None, config.acronyms
            )
        checks.append((d.id, d.hard_fail, params))
    return tuple(checks)
