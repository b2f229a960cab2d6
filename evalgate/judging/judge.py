"""One judge on one document: render -> cache -> backend -> parse -> (one repair) -> verify evidence.

One backend call scores every judged dimension of the document. A reply that leaves some dimension
unusable gets exactly one repair retry; what is still unusable becomes an error on that dimension. A
failing backend (timeout, exit code, HTTP error, empty reply) turns every judged dimension into an
error with the reason: `judge_document` never raises, so one bad judge call cannot stop a run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, replace
from math import fsum

from evalgate.document import Document
from evalgate.judgement import JudgeScore, Reply
from evalgate.judging.backends import Backend, BackendError
from evalgate.judging.budget import BudgetReached, JudgingBudget
from evalgate.judging.cache import CacheKey, JudgeCache, document_sha256
from evalgate.judging.evidence import verify_quotes
from evalgate.judging.parse import DimensionReply, ParsedReply, parse_reply
from evalgate.judging.prompt import PromptError, RenderedPrompt, render_judge_prompt, render_repair_prompt
from evalgate.results import DimensionResult, JudgeCall, Status, Verdict
from evalgate.rubric import Rubric
from evalgate.usage import total

NOT_JUDGED = "not judged: budget reached"


@dataclass(frozen=True)
class JudgeOutcome:
    """A judge's results for every judged dimension of one document, and the accounting of its calls."""

    dimensions: tuple[DimensionResult, ...]
    call: JudgeCall
    seed: int
    prompt: RenderedPrompt | None = None  # None only when the prompt could not be rendered
    warnings: tuple[str, ...] = ()  # for FileResult.warnings (e.g. the OVERALL claim disagrees)


@dataclass(frozen=True)
class JudgeJob:
    """One (document x judge) unit of work for `judge_many`."""

    document: Document | str
    rubric: Rubric
    backend: Backend
    seed: int
    cache: JudgeCache | None = None
    repair: bool = True
    # Held around each backend call when the pool has more threads than calls may be in flight
    # (DocumentJudging): rendering the prompt and parsing the reply happen outside it.
    slots: threading.Semaphore | None = None
    judge: int = 0  # the judge's place in the run's list of judges (it helps decide the criteria order)
    attempt: int = 0
    budget: JudgingBudget | None = None  # the run's `budget:`: a judgement's first call needs admission


def judge_label(backend: Backend) -> str:
    """How a judge is named in results: `backend:model`."""
    return f"{backend.name}:{backend.model}"


def policy_verdict(rubric: Rubric, scores: Sequence[tuple[str, int | None]]) -> Verdict | None:
    """What the rubric's policy says about these (dimension id, score) pairs alone; None if any is
    unscored. Used to compare against a judge's OVERALL claim, never to decide a file."""
    if not scores or any(score is None for _, score in scores):
        return None
    policy = rubric.policy
    values = [score for _, score in scores if score is not None]
    hard = {d.id for d in rubric.dimensions if d.hard_fail}
    failed = (
        any(dim in hard and score < policy.hard_fail_below for dim, score in scores if score is not None)
        or (policy.fail_on_score is not None and min(values) <= policy.fail_on_score)
        or (policy.min_each is not None and min(values) < policy.min_each)
        # statistics.fmean's formula (importing statistics, with fractions and decimal, cost ~2 ms)
        or (policy.min_mean is not None and fsum(values) / len(values) < policy.min_mean)
    )
    return Verdict.FAIL if failed else Verdict.PASS


def overall_disagreement(claimed: str | None, verdict: Verdict | str | None) -> str | None:
    """A warning when a judge's OVERALL claim differs from the verdict its scores imply, else None.

    The claim never decides anything; a disagreement is worth a look because it often means the
    judge misread an anchor, or the document talked it into a verdict its own scores do not support.
    """
    if claimed is None or verdict is None:
        return None
    implied = verdict.value if isinstance(verdict, Verdict) else str(verdict).upper()
    if implied not in ("PASS", "FAIL") or claimed.upper() == implied:
        return None
    return (
        f"the judge claimed OVERALL: {claimed.upper()} but its scores imply {implied} under the rubric policy"
    )


def _error_outcome(
    rubric: Rubric,
    backend: Backend,
    seed: int,
    reason: str,
    *,
    calls: int = 0,
    prompt: RenderedPrompt | None = None,
    refused: bool = False,
) -> JudgeOutcome:
    """Every judged dimension in error with the same reason (the judge could not be asked or answer),
    or, `refused` by the run's budget, skipped: the judge was never asked."""
    order = prompt.dimension_order if prompt is not None else ()
    position = {dim_id: i for i, dim_id in enumerate(order, 1)}
    dims = tuple(
        DimensionResult(
            id=d.id,
            kind="judge",
            status=Status.SKIPPED if refused else Status.ERROR,
            error=reason,
            hard_fail=d.hard_fail,
            judge_scores=(JudgeScore(judge_label(backend), None, reason, position.get(d.id)),),
        )
        for d in rubric.judged
    )
    nothing = 0 if calls == 0 else None  # nothing was spent without a call; a failed call's is unknown
    accounting = JudgeCall(
        backend=backend.name,
        model=backend.model,
        error=reason,
        calls=calls,
        criteria_order=order,
        budget_refused=refused,
        tokens_in=nothing,
        tokens_out=nothing,
        cost_usd=None if nothing is None else 0.0,
    )
    return JudgeOutcome(dimensions=dims, call=accounting, seed=seed, prompt=prompt)


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value)


def _accounting(
    backend: Backend, replies: Sequence[Reply], parsed: ParsedReply, order: tuple[str, ...]
) -> JudgeCall:
    """The judge's calls for one file added up. An amount is known only when every call reported it
    and none was retried (a failed attempt may have been billed, and reported nothing)."""
    retried = any(r.attempts > 1 for r in replies)

    def known(values: list[float | int | None]) -> float | None:
        return None if retried else total(values)

    return JudgeCall(
        backend=backend.name,
        model=replies[-1].model if replies else backend.model,
        latency_ms=sum(r.latency_ms for r in replies),
        tokens_in=_whole(known([r.tokens_in for r in replies])),
        tokens_out=_whole(known([r.tokens_out for r in replies])),
        cost_usd=known([r.cost_usd for r in replies]),
        overall_claimed=parsed.overall,
        calls=sum(r.attempts for r in replies),
        error=None if parsed.complete else "; ".join(parsed.problems),
        criteria_order=order,
        premium_requests=known([r.premium_requests for r in replies]),
        credits=known([r.credits for r in replies]),
    )


def _complete(
    backend: Backend,
    prompt: str,
    slots: threading.Semaphore | None = None,
    budget: JudgingBudget | None = None,
    *,
    first: bool = True,
) -> Reply:
    """One backend call, holding one of `slots` if given. With the run's `budget`, a judgement's
    `first` call needs its admission (else BudgetReached), and every call is counted before the slot
    is given back. Any failure (including an empty reply) is a BackendError with a reason."""
    with slots if slots is not None else nullcontext():
        if budget is not None and first and not budget.admit():
            raise BudgetReached
        try:
            reply = backend.complete(prompt)
        except BackendError as exc:
            if budget is not None:
                budget.spent(exc.attempts, None, admitted=first)
            raise
        except Exception as exc:  # a backend bug must not crash the run either
            if budget is not None:
                budget.spent(1, None, admitted=first)
            raise BackendError(f"backend {backend.name} failed: {type(exc).__name__}: {exc}") from exc
        if budget is not None:
            # a retried reply's cost covers its last attempt only: the rest is unknown
            budget.spent(reply.attempts, reply.cost_usd if reply.attempts == 1 else None, admitted=first)
    if not reply.text.strip():
        raise BackendError(f"backend {backend.name} returned an empty reply")
    return reply


def _merge(first: ParsedReply, repaired: ParsedReply) -> ParsedReply:
    """Keep what the first reply got right and take the repair's answer for the rest; a complete
    repair reply wins outright so its scores and OVERALL claim stay one coherent judgement."""
    if repaired.complete:
        return repaired
    dims = tuple(
        a if a.valid or not b.valid else b for a, b in zip(first.dimensions, repaired.dimensions, strict=True)
    )
    return ParsedReply(dims, repaired.overall or first.overall, repaired.notes)


def _dimension_result(
    rubric: Rubric, label: str, document: Document | str, reply: DimensionReply, position: int | None
) -> DimensionResult:
    hard_fail = rubric.dimension(reply.id).hard_fail
    evidence = verify_quotes(document, reply.evidence)
    if not reply.valid:
        return DimensionResult(
            id=reply.id,
            kind="judge",
            status=Status.ERROR,
            evidence=evidence,
            reasoning=reply.reasoning or None,
            error=f"unusable judge reply: {reply.error}",
            hard_fail=hard_fail,
            judge_scores=(JudgeScore(label, None, reply.error, position),),
        )
    return DimensionResult(
        id=reply.id,
        kind="judge",
        status=Status.SCORED,
        score=reply.score,
        evidence=evidence,
        reasoning=reply.reasoning or None,
        hard_fail=hard_fail,
        judge_scores=(JudgeScore(label, reply.score, position=position),),
    )


def _ask(
    backend: Backend,
    rubric: Rubric,
    prompt: RenderedPrompt,
    parse: Callable[[str], ParsedReply],
    repair: bool,
    slots: threading.Semaphore | None = None,
    budget: JudgingBudget | None = None,
) -> tuple[ParsedReply, list[Reply], int]:
    """The call, and one repair call if the reply left a dimension unusable: (parsed, replies, calls
    that failed without a reply).

    Raises BackendError only when the first call fails (BudgetReached when `budget` refuses it); a
    failed repair keeps the first reply's parse.
    """
    replies = [_complete(backend, prompt.text, slots, budget)]
    parsed = parse(replies[0].text)
    if parsed.complete or not repair:
        return parsed, replies, 0
    try:
        repair_text = render_repair_prompt(rubric, prompt, replies[0].text, parsed.problems)
        replies.append(_complete(backend, repair_text, slots, budget, first=False))
    except (BackendError, PromptError) as exc:
        failed = ParsedReply(parsed.dimensions, parsed.overall, (*parsed.notes, f"repair call failed: {exc}"))
        return failed, replies, exc.attempts if isinstance(exc, BackendError) else 0
    return _merge(parsed, parse(replies[1].text)), replies, 0


def judge_document(
    document: Document | str,
    rubric: Rubric,
    backend: Backend,
    *,
    seed: int,
    cache: JudgeCache | None = None,
    repair: bool = True,
    slots: threading.Semaphore | None = None,
    judge: int = 0,
    attempt: int = 0,
    budget: JudgingBudget | None = None,
) -> JudgeOutcome:
    """Ask one judge to score every judged dimension of `document`; never raises. `slots`, if given,
    is held around each call to the backend; `judge` (the judge's place in the run's list) and
    `attempt` help decide the criteria order (see `render_judge_prompt`); `budget`, the run's, must
    admit the first call (a judgement the cache answers makes none)."""
    if not rubric.judged:  # nothing to ask: no call, no cost
        return JudgeOutcome((), JudgeCall(backend.name, backend.model), seed)
    try:
        prompt = render_judge_prompt(rubric, document, seed, judge=judge, attempt=attempt)
    except PromptError as exc:
        return _error_outcome(rubric, backend, seed, str(exc))
    text = document if isinstance(document, str) else document.text
    ids = [d.id for d in rubric.judged]
    titles = {d.id: d.title for d in rubric.judged}
    scale = (rubric.scale.min, rubric.scale.max)

    def parse(reply_text: str) -> ParsedReply:
        return parse_reply(reply_text, ids, prompt.reply_format, titles=titles, scale=scale)

    key = CacheKey(
        document_sha256(text),
        rubric.version,
        prompt.template_sha256,
        prompt.sha256,
        backend.name,
        backend.model,
        seed,
        prompt.reply_format,
    )
    cached = cache.get(key) if cache is not None else None
    from_cache = parse(cached.text) if cached is not None else None
    if cached is not None and from_cache is not None and from_cache.complete:
        parsed = from_cache
        call = JudgeCall(  # no call made: nothing spent
            backend.name,
            cached.model,
            tokens_in=0,
            tokens_out=0,
            cost_usd=0.0,
            overall_claimed=parsed.overall,
            cached=True,
            calls=0,
            criteria_order=prompt.dimension_order,
        )
    else:
        try:
            parsed, replies, failed_calls = _ask(backend, rubric, prompt, parse, repair, slots, budget)
        except BudgetReached:
            return _error_outcome(rubric, backend, seed, NOT_JUDGED, prompt=prompt, refused=True)
        except BackendError as exc:
            return _error_outcome(rubric, backend, seed, str(exc), calls=exc.attempts, prompt=prompt)
        if cache is not None and parsed.complete:
            # The reply stored is the one that parsed completely (the repair reply, after a repair).
            cache.put(key, replies[-1])
        call = _accounting(backend, replies, parsed, prompt.dimension_order)
        if failed_calls:  # a repair that failed: its calls count, and what they spent is unknown
            call = replace(
                call,
                calls=call.calls + failed_calls,
                tokens_in=None,
                tokens_out=None,
                cost_usd=None,
                premium_requests=None,
                credits=None,
            )
    label = judge_label(backend)
    position = {dim_id: i for i, dim_id in enumerate(prompt.dimension_order, 1)}
    dims = tuple(_dimension_result(rubric, label, document, d, position.get(d.id)) for d in parsed.dimensions)
    implied = policy_verdict(rubric, [(d.id, d.score) for d in dims])
    disagreement = overall_disagreement(parsed.overall, implied)
    warnings = (f"{label}: {disagreement}",) if disagreement else ()
    return JudgeOutcome(dims, call, seed, prompt, warnings)


def run_job(job: JudgeJob) -> JudgeOutcome:
    """One (document x judge) job: `judge_document` with the job's settings."""
    return judge_document(
        job.document,
        job.rubric,
        job.backend,
        seed=job.seed,
        cache=job.cache,
        repair=job.repair,
        slots=job.slots,
        judge=job.judge,
        attempt=job.attempt,
        budget=job.budget,
    )


def judge_many(
    jobs: Sequence[JudgeJob], max_workers: int = 4, *, executor: Executor | None = None
) -> list[JudgeOutcome]:
    """Run (document x judge) jobs with up to `max_workers` calls in flight; results in input order.

    Threads suit the work: a judge call waits on a subprocess or a socket, not on the interpreter.
    A caller that judges in batches passes one `executor` for all of them: reusing its threads keeps
    memory flat (each new thread can get a fresh malloc arena that is never given back).
    """

    if executor is not None:
        return list(executor.map(run_job, jobs))
    if max_workers <= 1 or len(jobs) <= 1:
        return [run_job(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="evalgate-judge") as pool:
        return list(pool.map(run_job, jobs))
