"""The pipeline in one readable function: targets -> documents -> checks -> judges -> gate -> Report.

Takes a Config and the inputs (files, directories, globs); gives the Report. Each document's
structural pass stays within the run's time budget (`document-timeout`): `workers` runs it in worker
processes, `timer` in this process under an interval timer (one file, and a judged run of few).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from evalgate.config import Acronyms, Config
from evalgate.discover import Target, discover, in_shard, repository_root
from evalgate.gate import decide, error_result
from evalgate.results import DimensionResult, FileResult, JudgeCall, Report, RubricRef, Status
from evalgate.rubric import Rubric, load_rubric
from evalgate.rubrics.params import AcronymExpansionParams, CheckParams
from evalgate.run.timer import Timed, usable

if TYPE_CHECKING:
    from concurrent.futures import Future

    from evalgate.document import Document
    from evalgate.judging.backends import Backend
    from evalgate.judging.backends.process import JudgeSandbox
    from evalgate.judging.judge import JudgeOutcome
    from evalgate.judging.setup import DocumentJudging
    from evalgate.run.workers import Method, Workers

Progress = Callable[[int, int], None]
Each = Callable[[FileResult], object]
Judged = dict[str, tuple[list[DimensionResult], list[JudgeCall], list[str]]]


@dataclass(frozen=True)
class _Evaluated:
    """One target after reading and the deterministic checks."""

    target: Target
    document: Document | None  # kept only when judges still need it
    error: str | None
    dimensions: tuple[DimensionResult, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class _StructuralPass:
    """Read one file and run the rubric's deterministic checks on it (picklable for worker processes)."""

    max_bytes: int
    checks: tuple[tuple[str, bool, CheckParams | None], ...]  # (dimension id, hard fail, params)
    keep_document: bool

    def __call__(self, target: Target) -> _Evaluated:
        document, error = self.read(target)
        return self.checked(target, document, error)

    def read(self, target: Target) -> tuple[Document | None, str | None]:
        """The file's document, or why it has none (never raises)."""
        from evalgate.document import DocumentError, read_document  # (see _Outcome)

        try:
            return read_document(target.path, max_bytes=self.max_bytes, display=target.display), None
        except DocumentError as exc:
            return None, str(exc)
        except Exception as exc:  # a parser bug is this file's error, never the end of the run
            return None, f"internal error while parsing: {type(exc).__name__}: {exc}"

    def checked(
        self, target: Target, document: Document | None, error: str | None, kept: Document | None = None
    ) -> _Evaluated:
        """The deterministic checks' results for what `read` returned (`kept`: the document's judged
        copy, when the caller has made it already)."""
        if document is None:
            return _Evaluated(target, None, error, ())
        from evalgate.checks import run_check
        from evalgate.document import front_matter_warning

        dims = tuple(run_check(i, document, hard_fail=h, params=p) for i, h, p in self.checks)
        warning = front_matter_warning(document)
        judged = kept if kept is not None else self.kept(document)
        return _Evaluated(target, judged, None, dims, (warning,) if warning else ())

    def kept(self, document: Document) -> Document | None:
        """What stays of a document for the judges (and crosses from a worker to the main process):
        all of it but its bytes; nothing when no judge needs it."""
        return replace(document, utf8=None) if self.keep_document else None


# What a worker process sends back for one file: the _Evaluated without its target, which the main
# process already holds (a Path costs more to pickle and rebuild than the rest of a small result).
# The document and checks modules are imported where a document is read: in the worker processes when
# there are some, so that the main process of a run without judges never holds them (~0.8 MB of its
# peak over the corpus).
_Outcome = tuple["Document | None", str | None, tuple[DimensionResult, ...], tuple[str, ...]]


@dataclass(frozen=True)
class _InWorker:
    """A worker's work: the run's pass on one target, sent back as an _Outcome (picklable, so a
    spawned worker gets it too; a forked one inherits it)."""

    task: _StructuralPass

    def __call__(self, target: Target) -> _Outcome:
        evaluated = self.task(target)
        return evaluated.document, evaluated.error, evaluated.dimensions, evaluated.warnings


def _over_budget(budget: float) -> Callable[[Target, str], _Outcome]:
    def outcome(target: Target, why: str) -> _Outcome:
        message = (
            f"{target.display}: not evaluated: {why}, the time budget per document "
            f"(document-timeout: {budget:g} s); the run went on without it"
        )
        return None, message, (), ()

    return outcome


def _in_order(
    workers: Workers[Target, _Outcome] | Timed[Target, _Outcome], targets: Sequence[Target]
) -> Iterator[_Evaluated]:
    """The targets' structural pass in the workers, in their order (each yielded when it is back)."""
    for target, outcome in zip(targets, workers.map(targets), strict=True):
        yield _Evaluated(target, *outcome)


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


def _skipped_judged(rubric: Rubric, reason: str) -> list[DimensionResult]:
    return [
        DimensionResult(id=d.id, kind="judge", status=Status.SKIPPED, hard_fail=d.hard_fail, error=reason)
        for d in rubric.judged
    ]


# Below this many files a worker pool costs more to start than it saves.
_POOL_THRESHOLD = 48
# Files are taken in batches of this size: with judges, documents wait in memory for their judge
# calls, and batches keep that memory flat however many files a run has (and progress moves).
_BATCH = 64


@contextmanager
def _structural_workers(
    count: int, jobs: int, task: _StructuralPass, budget: float, *, judged: bool
) -> Iterator[Workers | Timed | None]:
    """Worker processes for the structural pass, each document under `budget` seconds. One file, and
    a judged run of fewer files than a pool pays for, are read in this process under an interval
    timer where that can stop them (evalgate.run.timer): a forked worker cost a one-file check ~9 ms,
    and a judged run's first calls waited for it to read and check each document and send it back.
    Otherwise forked where that is safe (this process runs no other thread): one worker for a few
    files, up to `jobs` for many. In a process with other threads, where only spawning is safe (about
    0.3 s a worker), workers only for a run of many files, as before the budget existed; fewer files
    are read in this process, where the linear patterns alone bound the time."""
    workers = min(jobs, os.cpu_count() or 1)
    many = workers > 1 and count >= _POOL_THRESHOLD
    if (count == 1 or (judged and count and not many)) and usable():
        yield Timed(_InWorker(task), budget, _over_budget(budget))
        return
    if count == 0 or not (many or (sys.platform == "linux" and _thread_count() == 1)):
        yield None
        return
    from evalgate.run.workers import Workers

    size = workers if many else 1
    first = [_start_method()] * size  # the first workers start by the method chosen now; one started
    # later (after a worker was killed, maybe with judge threads running) asks again

    def method() -> Method:
        return first.pop() if first else _start_method()

    pool: Workers[Target, _Outcome] = Workers(size, _InWorker(task), budget, _over_budget(budget), method)
    try:
        yield pool
    finally:
        pool.close()


def _start_method() -> Method:
    """`fork` when this process runs no other thread: a forked worker starts with evalgate already
    imported, where a spawned one spends about 0.3 s importing it again. With any other thread alive
    (judge pools, a progress bar, loopback servers in tests) `spawn`: forking a process while another
    thread holds a lock can deadlock the child. The pool starts all its workers at its first submit,
    before this run starts any thread of its own. Linux only: on macOS forking is unsafe once system
    frameworks are loaded, which is why Python spawns there by default."""
    return "fork" if sys.platform == "linux" and _thread_count() == 1 else "spawn"


def _thread_count() -> int:
    """This process's threads as the kernel sees them (/proc/self/task): that also counts threads
    `threading` never hears of (started by C extensions, by `_thread`, by pytest-xdist's execnet),
    which a fork is just as unsafe with. Python 3.12+ warns on such a fork for the same reason."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def run(
    config: Config,
    inputs: Sequence[str],
    *,
    base: Path | None = None,
    progress: Progress | None = None,
    each: Each | None = None,
    sandbox: JudgeSandbox | None = None,
) -> Report:
    """Evaluate every markdown file the inputs name and return the report. Never raises for a bad
    file: a file that cannot be evaluated gets an ERROR result with a clear message. `each` is
    called with every result, in the report's order, as soon as its batch is decided (while the
    workers read the next files).

    Large runs share the structural pass with worker processes: forked when this process runs no other
    thread, else spawned, and a spawned worker re-imports the calling script, so a script that calls
    run() must do so under `if __name__ == "__main__":`. `sandbox` says how judge processes start
    (the action's: an unprivileged user, a copy of the base commit's tree; None: as this process)."""
    rubric = load_rubric(config.rubric)
    base_dir = (base or Path.cwd()).resolve()
    root = Path(config.root).resolve() if config.root else repository_root(base_dir)
    targets, problems = discover(list(inputs), root, base=base_dir)
    targets = [t for t in targets if in_shard(t.display, config.shard)]
    problems = [p for p in problems if in_shard(p.display, config.shard)]

    judges = _make_judges(config, sandbox)
    task = _StructuralPass(
        max_bytes=int(config.max_file_mb * 1024 * 1024),
        checks=structural_checks(rubric, config),
        keep_document=bool(judges),
    )
    results: list[FileResult] = []
    _extend(results, [error_result(p.display, p.message) for p in problems], each)
    done = 0
    pool_of = _structural_workers(
        len(targets), config.jobs, task, config.document_timeout, judged=bool(judges)
    )
    with pool_of as pool, _judging(config, rubric, judges) as judging:
        # Without judges a file's structural result is small, so every file is handed to the pool at
        # once and the workers never wait for the main process between batches; with judges each batch's
        # documents wait for their calls, and one batch at a time keeps that memory flat.
        ahead = _in_order(pool, targets) if pool is not None and not judges else None
        for start in range(0, len(targets), _BATCH):
            chunk = targets[start : start + _BATCH]
            evaluated: Iterable[_Evaluated | tuple[_Evaluated, list[Future[JudgeOutcome]]]]
            if ahead is not None:
                evaluated = islice(ahead, len(chunk))
            elif judging is not None and (pool is None or isinstance(pool, Timed)):
                evaluated = _submitted_first(task, judging, chunk, pool)
            elif pool is not None:
                evaluated = _in_order(pool, chunk)
            else:
                evaluated = map(task, chunk)
            _extend(results, _run_batch(config, rubric, judging, evaluated, judged_run=bool(judges)), each)
            del evaluated  # this batch's documents go before the next batch is read
            done += len(chunk)
            if progress is not None:
                progress(done, len(targets))
    notes = []
    if not judges and rubric.judged:
        notes.append(
            "judged dimensions were skipped (no judge configured): "
            + ", ".join(d.id for d in rubric.judged)
            + "; verdicts cover the deterministic dimensions only"
        )
    report = Report(
        rubric=RubricRef(rubric.id, rubric.version, _prompt_version(rubric) if judges else None),
        results=tuple(results),
        judges=tuple(config.judges),
        notes=tuple(notes),
        shard=config.shard,
    )
    if len(judges) > 1:
        from evalgate.judging.agreement import agreement_by_dimension

        scale = (rubric.scale.min, rubric.scale.max)
        report = replace(report, agreement=agreement_by_dimension(report, scale=scale))
    return report


def _extend(results: list[FileResult], decided: list[FileResult], each: Each | None) -> None:
    results.extend(decided)
    if each is not None:
        for result in decided:
            each(result)


@contextmanager
def _judging(config: Config, rubric: Rubric, judges: list[Backend]) -> Iterator[DocumentJudging | None]:
    """The run's judging (one thread pool for the whole run), or None when nothing is judged."""
    if not judges or not rubric.judged:
        yield None
        return
    from evalgate.judging.setup import DocumentJudging, judge_pool

    with judge_pool(config) as threads:
        yield DocumentJudging(config, rubric, judges, threads)


def _run_batch(
    config: Config,
    rubric: Rubric,
    judging: DocumentJudging | None,
    evaluated: Iterable[_Evaluated | tuple[_Evaluated, list[Future[JudgeOutcome]]]],
    *,
    judged_run: bool,
) -> list[FileResult]:
    """One batch: each document's judge calls start as soon as its document is there (the calls of
    the first documents run while the next are read), then the gate. An item that comes with its
    calls had them started already (`_submitted_first`); either way the document is prepared for
    checking its replies while they are in flight. Its own function so that the batch's
    documents (about 0.5 MB each once parsed) are dropped as soon as it returns."""
    items: list[_Evaluated] = []
    pending = []
    for entry in evaluated:
        item, calls = entry if isinstance(entry, tuple) else (entry, None)
        items.append(item)
        if judging is not None and item.document is not None:
            calls = calls if calls is not None else judging.submit(item.document)
            pending.append((item.target.display, item.document, calls))
            judging.prepare(item.document)  # what checking its replies needs, while the calls are out
    judged: Judged = {}
    if judging is not None:
        judged = {path: judging.collect(document, calls) for path, document, calls in pending}
    return _decide_all(config, rubric, items, judged, judged_run=judged_run)


def _submitted_first(
    task: _StructuralPass,
    judging: DocumentJudging,
    targets: Sequence[Target],
    timed: Timed[Target, _Outcome] | None,
) -> Iterator[tuple[_Evaluated, list[Future[JudgeOutcome]]]]:
    """In this process, with judges: every document of the batch is read and its calls submitted
    first, and the deterministic checks run after, while the calls are in flight. With `--jobs`
    calls in flight, the run ends about two call latencies after the last call of the first wave
    starts (each later call waits for one of them to end), and the checks of the documents read
    before it (~3 ms each) no longer come before it. `timed`: each document's reading and checks
    together within the run's budget."""
    read = []
    for target in targets:
        started = time.monotonic()
        document, error = _read_in_time(task, target, timed)
        kept = task.kept(document) if document is not None else None
        calls = judging.submit(kept) if kept is not None else []
        read.append((target, document, error, kept, calls, time.monotonic() - started))
    for target, document, error, kept, calls, spent in read:
        if timed is None or document is None:
            yield task.checked(target, document, error, kept), calls
            continue
        done, checked = timed.within(timed.budget - spent, task.checked, target, document, error, kept)
        if done and checked is not None:
            yield checked, calls
        else:
            yield _Evaluated(target, None, timed.timed_out(target)[1], ()), calls


def _read_in_time(
    task: _StructuralPass, target: Target, timed: Timed[Target, _Outcome] | None
) -> tuple[Document | None, str | None]:
    if timed is None:
        return task.read(target)
    done, read = timed.within(timed.budget, task.read, target)
    return read if done and read is not None else (None, timed.timed_out(target)[1])


def _decide_all(
    config: Config, rubric: Rubric, evaluated: list[_Evaluated], judged: Judged, *, judged_run: bool
) -> list[FileResult]:
    results = []
    for item in evaluated:
        if item.error is not None:
            results.append(error_result(item.target.display, item.error))
            continue
        dims, calls, warnings = judged.get(item.target.display, ([], [], []))
        if not judged_run:
            dims = _skipped_judged(rubric, "no judge configured")
        results.append(
            decide(
                item.target.display,
                [*item.dimensions, *dims],
                rubric,
                on_judge_error=config.on_judge_error,
                seed=config.seed if judged_run else None,
                judges=calls,
                warnings=[*item.warnings, *warnings],
            )
        )
    return results


def _prompt_version(rubric: Rubric) -> str | None:
    """The judges' prompt version, recorded with the rubric's (None when nothing was judged, or when
    a template is broken: every judged dimension then says so)."""
    if not rubric.judged:
        return None
    from evalgate.judging.prompt import PromptError, prompt_version

    try:
        return prompt_version(rubric)
    except PromptError:
        return None


def _make_judges(config: Config, sandbox: JudgeSandbox | None) -> list[Backend]:
    if not config.judges:
        return []
    from evalgate.judging.setup import make_judges

    return list(make_judges(config, sandbox))
