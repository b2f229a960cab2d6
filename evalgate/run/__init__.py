"""The pipeline in one readable function: targets -> documents -> checks -> judges -> gate -> Report.

Takes a Config and the inputs (files, directories, globs); gives the Report. `structural`: reading a
document and its deterministic checks; `workers`: that pass in worker processes, each document under
the run's time budget (`document-timeout`); `baseline`: under `gate-on: new`, each document's version
at the base commit, evaluated beside it and compared; `outcome`: after the gate, files the judging
budget left unjudged, judged failures not counted without a current calibration, budgets per
document, each file's time, and the Report. Each document's structural
pass stays within `document-timeout`: `workers` runs it in worker processes, `timer` in this process
under an interval timer (one file, and a judged run of few).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from evalgate.config import Config
from evalgate.discover import Target, discover, in_shard, repository_root
from evalgate.gate import error_result
from evalgate.results import DimensionResult, FileResult, GateOn, JudgeCall, Report, Status
from evalgate.rubric import Rubric, load_rubric
from evalgate.run.baseline import Baseline, batches
from evalgate.run.outcome import Finishing
from evalgate.run.structural import (
    Evaluated,
    InWorker,
    Outcome,
    StructuralPass,
    in_order,
    over_budget,
    structural_checks,
)
from evalgate.run.timer import Timed, usable

if TYPE_CHECKING:
    from concurrent.futures import Future

    from evalgate.document import Document
    from evalgate.judging.backends import Backend
    from evalgate.judging.backends.process import JudgeSandbox
    from evalgate.judging.budget import JudgingBudget
    from evalgate.judging.judge import JudgeOutcome
    from evalgate.judging.setup import DocumentJudging
    from evalgate.results import NotEvaluated
    from evalgate.run.workers import Method, Workers

__all__ = ["Baseline", "StructuralPass", "run", "structural_checks"]

Progress = Callable[[int, int], None]
Each = Callable[[FileResult], object]
Judged = dict[Target, tuple[list[DimensionResult], list[JudgeCall], list[str]]]


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
# Without judges a batch is decided and rendered as soon as its last result is back, while the
# workers read on: small batches spread that work out (64 results at once kept the main process
# from handing a worker its next chunk for ~15 ms), and leave less of it after the last result.
_BATCH_UNJUDGED = 8


@contextmanager
def _structural_workers(
    count: int, jobs: int, task: StructuralPass, budget: float, *, judged: bool
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
        yield Timed(InWorker(task), budget, over_budget(budget))
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

    pool: Workers[Target, Outcome] = Workers(size, InWorker(task), budget, over_budget(budget), method)
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


def start_method() -> Method:
    """How a worker process started now starts (`_start_method`), for other stages' worker pools
    (the action's suggested changes fix documents in one, evalgate/github/suggest.py)."""
    return _start_method()


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
    baseline: Baseline | None = None,
    named: Collection[str] | None = None,
) -> Report:
    """Evaluate every markdown file the inputs name and return the report. Never raises for a bad
    file: a file that cannot be evaluated gets an ERROR result with a clear message. `each` is
    called with every result, in the report's order, as soon as its batch is decided (while the
    workers read the next files).

    Large runs share the structural pass with worker processes: forked when this process runs no other
    thread, else spawned, and a spawned worker re-imports the calling script, so a script that calls
    run() must do so under `if __name__ == "__main__":`. `sandbox` says how judge processes start
    (the action's: an unprivileged user, a copy of the base commit's tree; None: as this process).
    With a `baseline` (`gate-on: new`), each document's version at the base commit is evaluated in
    the same run and each verdict counts only what the change made worse (evalgate/gate/compare.py).
    `named`: the files named on their own, which `select: front-matter:` does not filter (None: the
    inputs that are files; the action passes none on a push or pull request, whose files git found)."""
    rubric = load_rubric(config.rubric)
    base_dir = (base or Path.cwd()).resolve()
    root = Path(config.root).resolve() if config.root else repository_root(base_dir)
    targets, problems = discover(list(inputs), root, base=base_dir)
    targets = [t for t in targets if in_shard(t.display, config.shard)]
    problems = [p for p in problems if in_shard(p.display, config.shard)]
    unselected: Sequence[NotEvaluated] = ()
    if config.select.front_matter:  # imported only by a run that selects
        from evalgate.run.selection import select_targets

        targets, unselected = select_targets(targets, config.select, inputs, base_dir, named)

    started = time.perf_counter()
    judges = _make_judges(config, sandbox)
    prompt = _prompt_version(rubric) if judges else None
    finishing = Finishing.start(config, rubric, prompt, judged=bool(judges))
    task = StructuralPass(
        max_bytes=int(config.max_file_mb * 1024 * 1024),
        checks=structural_checks(rubric, config),
        keep_document=bool(judges),
        anchors=baseline is not None,
        binary=(rubric.scale.min, rubric.scale.max) == (0, 1),
    )
    results: list[FileResult] = []
    _extend(results, [error_result(p.display, p.message) for p in problems], each)
    done = 0
    plan = batches(targets, baseline, _BATCH if judges else _BATCH_UNJUDGED)
    work = sum(len(batch.work) for batch in plan)
    pool_of = _structural_workers(work, config.jobs, task, config.document_timeout, judged=bool(judges))
    with pool_of as pool, _judging(config, rubric, judges, finishing.budget) as judging:
        # Without judges a file's structural result is small, so every file is handed to the pool at
        # once and the workers never wait for the main process between batches; with judges each batch's
        # documents wait for their calls, and one batch at a time keeps that memory flat.
        everything = [target for batch in plan for target in batch.work]
        ahead = in_order(pool, everything, last=True) if pool is not None and not judges else None
        for batch in plan:
            chunk = batch.work
            evaluated: Iterable[Evaluated | tuple[Evaluated, list[Future[JudgeOutcome]]]]
            if ahead is not None:
                evaluated = islice(ahead, len(chunk))
            elif judging is not None and (pool is None or isinstance(pool, Timed)):
                evaluated = _submitted_first(task, judging, chunk, pool)
            elif pool is not None:
                evaluated = in_order(pool, chunk)
            else:
                evaluated = map(task, chunk)
            decided = _run_batch(finishing, judging, evaluated, judged_run=bool(judges))
            _extend(results, batch.results(decided, baseline.sha if baseline else None), each)
            del evaluated, decided  # this batch's documents go before the next batch is read
            done += len(batch.heads)
            if progress is not None:
                progress(done, len(targets))
    report = finishing.report(results, wall_ms=(time.perf_counter() - started) * 1000)
    report = replace(report, not_evaluated=tuple(unselected))
    if baseline is not None:
        report = replace(report, gate_on=GateOn("new", baseline.why, baseline.sha))
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
def _judging(
    config: Config, rubric: Rubric, judges: list[Backend], budget: JudgingBudget | None
) -> Iterator[DocumentJudging | None]:
    """The run's judging (one thread pool for the whole run), or None when nothing is judged."""
    if not judges or not rubric.judged:
        yield None
        return
    from evalgate.judging.setup import DocumentJudging, judge_pool

    with judge_pool(config) as threads:
        yield DocumentJudging(config, rubric, judges, threads, budget)


def _run_batch(
    finishing: Finishing,
    judging: DocumentJudging | None,
    evaluated: Iterable[Evaluated | tuple[Evaluated, list[Future[JudgeOutcome]]]],
    *,
    judged_run: bool,
) -> list[FileResult]:
    """One batch: each document's judge calls start as soon as its document is there (the calls of
    the first documents run while the next are read), then the gate. An item that comes with its
    calls had them started already (`_submitted_first`); either way the document is prepared for
    checking its replies while they are in flight. Its own function so that the batch's
    documents (about 0.5 MB each once parsed) are dropped as soon as it returns."""
    items: list[Evaluated] = []
    pending = []
    for entry in evaluated:
        item, calls = entry if isinstance(entry, tuple) else (entry, None)
        items.append(item)
        if judging is not None and item.document is not None:
            calls = calls if calls is not None else judging.submit(item.document)
            pending.append((item.target, item.document, calls))
            judging.prepare(item.document)  # what checking its replies needs, while the calls are out
    judged: Judged = {}
    if judging is not None:
        judged = {target: judging.collect(document, calls) for target, document, calls in pending}
    return _decide_all(finishing, items, judged, judged_run=judged_run)


def _submitted_first(
    task: StructuralPass,
    judging: DocumentJudging,
    targets: Sequence[Target],
    timed: Timed[Target, Outcome] | None,
) -> Iterator[tuple[Evaluated, list[Future[JudgeOutcome]]]]:
    """In this process, with judges: every document of the batch is read and its calls submitted
    first, and the deterministic checks run after, while the calls are in flight. With `--jobs`
    calls in flight, the run ends about two call latencies after the last call of the first wave
    starts (each later call waits for one of them to end), and the checks of the documents read
    before it (~3 ms each) no longer come before it. `timed`: each document's reading and checks
    together within the run's budget."""
    read = []
    for target in targets:
        started = time.perf_counter()
        document, error = _read_in_time(task, target, timed)
        kept = task.kept(document) if document is not None else None
        read_ms = (time.perf_counter() - started) * 1000
        calls = judging.submit(kept) if kept is not None else []
        read.append((target, document, error, kept, calls, read_ms))
    for target, document, error, kept, calls, read_ms in read:
        if timed is None or document is None:
            yield task.checked(target, document, error, kept, read_ms), calls
            continue
        left = timed.budget - read_ms / 1000
        done, checked = timed.within(left, task.checked, target, document, error, kept, read_ms)
        if done and checked is not None:
            yield checked, calls
        else:
            yield Evaluated(target, None, timed.timed_out(target)[1], ()), calls


def _read_in_time(
    task: StructuralPass, target: Target, timed: Timed[Target, Outcome] | None
) -> tuple[Document | None, str | None]:
    if timed is None:
        return task.read(target)
    done, read = timed.within(timed.budget, task.read, target)
    return read if done and read is not None else (None, timed.timed_out(target)[1])


def _decide_all(
    finishing: Finishing, evaluated: list[Evaluated], judged: Judged, *, judged_run: bool
) -> list[FileResult]:
    results = []
    skipped = [] if judged_run else _skipped_judged(finishing.rubric, "no judge configured")  # (frozen)
    for item in evaluated:
        if item.error is not None:
            results.append(error_result(item.target.display, item.error))
            continue
        dims, calls, warnings = judged.get(item.target, ([], [], []))
        if not judged_run:
            dims = skipped
        results.append(
            finishing.finish(
                item.target.display,
                [*item.dimensions, *dims],
                calls,
                structural_ms=item.elapsed_ms,
                seed=finishing.config.seed if judged_run else None,
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
