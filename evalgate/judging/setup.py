"""From a run's configuration to judged dimension results per file.

`make_judges` builds the configured backends once per run; `judge_documents` keeps `jobs` calls in
flight over every (document x judge) pair, one call per pair scoring all judged dimensions, and
combines several judges' results per dimension (see `evalgate.judging.ensemble`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from evalgate.config import Config
from evalgate.document import Document
from evalgate.judging.backends import Backend
from evalgate.judging.backends.registry import make_backend
from evalgate.judging.budget import JudgingBudget
from evalgate.judging.cache import JudgeCache
from evalgate.judging.ensemble import combine_dimension
from evalgate.judging.evidence import prepare as prepare_evidence
from evalgate.judging.family import generator_warnings
from evalgate.judging.judge import JudgeJob, JudgeOutcome, judge_label, run_job
from evalgate.results import DimensionResult, JudgeCall
from evalgate.rubric import Rubric

if TYPE_CHECKING:
    from evalgate.judging.backends.process import JudgeSandbox

Judged = dict[str, tuple[list[DimensionResult], list[JudgeCall], list[str]]]


def make_judges(config: Config, sandbox: JudgeSandbox | None = None) -> list[Backend]:
    """One backend per `--judge` spec (retrying; recording when `record_dir` is set), its processes
    started in `sandbox` (the action's: an unprivileged user, the base commit's tree)."""
    prices = {model: (p.input, p.output) for model, p in config.prices.items()} or None
    return [
        make_backend(
            spec, timeout=config.judge_timeout, prices=prices, record_dir=config.record_dir, sandbox=sandbox
        )
        for spec in config.judges
    ]


def _generator_warning(document: Document, judges: Sequence[Backend], config: Config) -> list[str]:
    """Judge != generator: warn when a judge is of the family of the model that wrote the document
    (front matter `model` or `generator`, else the configured generator model)."""
    data = document.front_matter.data or {}
    generator = str(data.get("model") or data.get("generator") or config.generator_model or "").strip()
    return generator_warnings(generator or None, [(judge_label(j), j.model or "") for j in judges])


def unique_labels(labels: Sequence[str]) -> list[str]:
    """Two judges with the same backend and model are still two raters: number the repeats."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


def judge_pool(config: Config) -> ThreadPoolExecutor:
    """A run's judge threads: twice `config.jobs`. The calls in flight stay at `config.jobs`
    (DocumentJudging's slots); the other threads render the next prompts and parse the replies that
    came back meanwhile, so a call that ends frees its slot for a prepared call at once. With as many
    threads as calls, that work sat between one call and the next: the second wave of a fan-out of 16
    calls, 8 in flight, started 50-90 ms after the first wave's replies."""
    return ThreadPoolExecutor(max_workers=2 * config.jobs, thread_name_prefix="evalgate-judge")


class DocumentJudging:
    """A run's judging, one document at a time: `submit` starts a document's calls (one per judge) on
    the executor as soon as its structural pass is done, `collect` waits for them and combines the
    judges' scores per dimension. A document's results do not depend on when its calls started."""

    def __init__(
        self,
        config: Config,
        rubric: Rubric,
        judges: Sequence[Backend],
        executor: Executor,
        budget: JudgingBudget | None = None,
    ):
        self.config = config
        self.budget = budget  # the run's `budget:`: each judgement's first call needs its admission
        self.rubric = rubric
        self.judges = list(judges)
        self.executor = executor
        self.cache = JudgeCache(Path(config.cache_dir)) if config.cache else None
        self.labels = unique_labels([judge_label(j) for j in judges])
        self.slots = threading.BoundedSemaphore(config.jobs)  # calls in flight (see judge_pool)

    def submit(self, document: Document) -> list[Future[JudgeOutcome]]:
        seed, cache, slots = self.config.seed, self.cache, self.slots
        jobs = [
            JudgeJob(document, self.rubric, judge, seed, cache, slots=slots, judge=index, budget=self.budget)
            for index, judge in enumerate(self.judges)
        ]
        return [self.executor.submit(run_job, job) for job in jobs]

    def prepare(self, document: Document) -> None:
        """Work checking its replies will need, done ahead (while its calls are in flight)."""
        prepare_evidence(document)

    def collect(
        self, document: Document, pending: Sequence[Future[JudgeOutcome]]
    ) -> tuple[list[DimensionResult], list[JudgeCall], list[str]]:
        mine = [future.result() for future in pending]
        dims = [
            combine_dimension(
                dim,
                [
                    (label, next(d for d in o.dimensions if d.id == dim.id))
                    for label, o in zip(self.labels, mine, strict=True)
                ],
                self.rubric.policy.ensemble,
            )
            for dim in self.rubric.judged
        ]
        warnings = [w for o in mine for w in o.warnings]
        warnings += _generator_warning(document, self.judges, self.config)
        return dims, [o.call for o in mine], warnings


def judge_documents(
    config: Config,
    rubric: Rubric,
    judges: Sequence[Backend],
    documents: Sequence[tuple[str, Document | None]],
    *,
    executor: Executor | None = None,
) -> Judged:
    """Judge every document with every judge; results keyed by the document's display path.
    Without an `executor`, `config.jobs` threads for this call alone."""
    if executor is None:
        with judge_pool(config) as threads:
            return judge_documents(config, rubric, judges, documents, executor=threads)
    judging = DocumentJudging(config, rubric, judges, executor)
    present = [(path, doc, judging.submit(doc)) for path, doc in documents if doc is not None]
    return {path: judging.collect(doc, pending) for path, doc, pending in present}
