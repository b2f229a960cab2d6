"""One judge on one document, end to end against a fake backend: scores, repair, errors, cache."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evalgate.document import Document, FrontMatter
from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError
from evalgate.judging.backends.command import CommandBackend
from evalgate.judging.cache import JudgeCache
from evalgate.judging.judge import (
    JudgeJob,
    judge_document,
    judge_many,
    overall_disagreement,
    policy_verdict,
)
from evalgate.results import Status, Verdict
from evalgate.rubric import Rubric, load_rubric

DOCUMENT = """# Does caching halve CI time?

## Executive Summary

Caching the dependency layer cuts median CI time from 9 to 4 minutes [fact].

## Key Findings

1. Warm caches restore 1.2 GB in 40 seconds on hosted runners [fact].
"""

QUOTE = "Caching the dependency layer cuts median CI time"
Answer = str | BaseException | Callable[[str], str]


class FakeBackend:
    """A backend that answers from a script (text, an exception to raise, or a function of the prompt)."""

    name = "fake"
    model = "fake-model"

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def complete(self, prompt: str) -> Reply:
        self.prompts.append(prompt)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        text = answer(prompt) if callable(answer) else answer
        return Reply(
            text=text, model="fake-model-v2", latency_ms=100.0, tokens_in=1000, tokens_out=50, cost_usd=0.01
        )


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric("research-loop")


def reply(
    rubric: Rubric, scores: dict[str, int | str], overall: str | None = "PASS", skip: tuple[str, ...] = ()
) -> str:
    rows = [
        f'| {d.id} | {scores.get(d.id, 4)} | "{QUOTE}" | why {d.id} |'
        for d in rubric.judged
        if d.id not in skip
    ]
    text = (
        "| dimension | score | evidence | reasoning |\n| --- | --- | --- | --- |\n" + "\n".join(rows) + "\n"
    )
    return text + (f"\nOVERALL: {overall}\n" if overall else "")


def test_one_call_scores_every_judged_dimension(rubric: Rubric) -> None:
    backend = FakeBackend(reply(rubric, {"epistemic_labeling": 5}))
    outcome = judge_document(DOCUMENT, rubric, backend, seed=11)
    assert len(backend.prompts) == 1 and DOCUMENT in backend.prompts[0]
    assert [d.id for d in outcome.dimensions] == [d.id for d in rubric.judged]
    by_id = {d.id: d for d in outcome.dimensions}
    assert by_id["epistemic_labeling"].score == 5 and by_id["claim_source_accuracy"].score == 4
    first = by_id["executive_summary_first_sentence"]
    assert first.kind == "judge" and first.status is Status.SCORED and first.hard_fail
    assert first.evidence[0].verified and first.evidence[0].line == 5
    assert first.reasoning == "why executive_summary_first_sentence"
    assert first.judge_scores[0].judge == "fake:fake-model" and first.judge_scores[0].score == 4
    call = outcome.call
    assert (call.backend, call.model, call.calls, call.cached, call.error) == (
        "fake",
        "fake-model-v2",
        1,
        False,
        None,
    )
    assert (call.latency_ms, call.tokens_in, call.tokens_out, call.cost_usd) == (100.0, 1000, 50, 0.01)
    assert call.overall_claimed == "PASS" and outcome.warnings == ()
    assert outcome.seed == 11 and outcome.prompt is not None and outcome.prompt.seed == 11


def test_invented_evidence_is_flagged_not_dropped(rubric: Rubric) -> None:
    text = reply(rubric, {}).replace(
        "Caching the dependency layer cuts median CI time", "Caching triples speed"
    )
    outcome = judge_document(DOCUMENT, rubric, FakeBackend(text), seed=1)
    assert all(d.unverified_evidence == 1 for d in outcome.dimensions)


def test_missing_dimension_gets_one_repair_call(rubric: Rubric) -> None:
    backend = FakeBackend(
        reply(rubric, {}, skip=("epistemic_labeling",)), reply(rubric, {"epistemic_labeling": 2})
    )
    outcome = judge_document(DOCUMENT, rubric, backend, seed=2)
    assert len(backend.prompts) == 2
    assert "could not be parsed because:\n- epistemic_labeling: no score given" in backend.prompts[1]
    assert all(d.status is Status.SCORED for d in outcome.dimensions)
    assert {d.id: d.score for d in outcome.dimensions}["epistemic_labeling"] == 2
    assert outcome.call.calls == 2 and outcome.call.latency_ms == 200.0 and outcome.call.tokens_in == 2000


def test_still_invalid_after_repair_is_an_error_on_that_dimension(rubric: Rubric) -> None:
    bad = reply(rubric, {"claim_source_accuracy": "7"})
    backend = FakeBackend(bad, bad)
    outcome = judge_document(DOCUMENT, rubric, backend, seed=3)
    by_id = {d.id: d for d in outcome.dimensions}
    broken = by_id["claim_source_accuracy"]
    assert broken.status is Status.ERROR and broken.score is None
    assert broken.error == "unusable judge reply: score 7 is outside 1-5"
    assert by_id["epistemic_labeling"].status is Status.SCORED
    assert outcome.call.calls == 2 and "claim_source_accuracy" in (outcome.call.error or "")


def test_no_repair_when_disabled(rubric: Rubric) -> None:
    backend = FakeBackend(reply(rubric, {}, skip=("epistemic_labeling",)))
    outcome = judge_document(DOCUMENT, rubric, backend, seed=3, repair=False)
    assert len(backend.prompts) == 1
    assert {d.id: d.status for d in outcome.dimensions}["epistemic_labeling"] is Status.ERROR


@pytest.mark.parametrize(
    "failure, reason",
    [
        (BackendError("timed out after 120 s", retryable=True), "timed out after 120 s"),
        (RuntimeError("boom"), "backend fake failed: RuntimeError: boom"),
        ("   \n", "backend fake returned an empty reply"),
    ],
)
def test_backend_failure_errors_every_dimension_and_never_raises(
    rubric: Rubric, failure: Answer, reason: str
) -> None:
    outcome = judge_document(DOCUMENT, rubric, FakeBackend(failure), seed=4)
    assert len(outcome.dimensions) == len(rubric.judged)
    assert all(d.status is Status.ERROR and d.error == reason for d in outcome.dimensions)
    assert outcome.call.error == reason and outcome.call.calls == 1


def test_failed_repair_call_keeps_the_first_reply(rubric: Rubric) -> None:
    backend = FakeBackend(reply(rubric, {}, skip=("epistemic_labeling",)), BackendError("HTTP 503"))
    outcome = judge_document(DOCUMENT, rubric, backend, seed=5)
    statuses = {d.id: d.status for d in outcome.dimensions}
    assert statuses.pop("epistemic_labeling") is Status.ERROR
    assert set(statuses.values()) == {Status.SCORED}
    assert outcome.call.calls == 2 and "repair call failed: HTTP 503" in (outcome.call.error or "")


def test_cache_hit_skips_the_backend(rubric: Rubric, tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    first = judge_document(DOCUMENT, rubric, FakeBackend(reply(rubric, {})), seed=6, cache=cache)
    untouched = FakeBackend()
    second = judge_document(DOCUMENT, rubric, untouched, seed=6, cache=cache)
    assert untouched.prompts == []
    assert second.call.cached and second.call.calls == 0 and second.call.overall_claimed == "PASS"
    assert [d.score for d in second.dimensions] == [d.score for d in first.dimensions]
    # another seed is another prompt, so another key
    other = FakeBackend(reply(rubric, {}))
    judge_document(DOCUMENT, rubric, other, seed=7, cache=cache)
    assert len(other.prompts) == 1


def test_incomplete_replies_are_not_cached(rubric: Rubric, tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    bad = reply(rubric, {}, skip=("epistemic_labeling",))
    judge_document(DOCUMENT, rubric, FakeBackend(bad, bad), seed=8, cache=cache)
    assert not list(tmp_path.rglob("*.json"))
    # a repaired reply that parsed fully is stored, and replayed without calls
    judge_document(DOCUMENT, rubric, FakeBackend(bad, reply(rubric, {})), seed=8, cache=cache)
    assert len(list(tmp_path.rglob("*.json"))) == 1
    assert judge_document(DOCUMENT, rubric, FakeBackend(), seed=8, cache=cache).call.cached


def test_document_object_and_json_rubric(rubric: Rubric) -> None:
    json_rubric = replace(rubric, judging=replace(rubric.judging, reply="json"))
    document = Document(
        path="item.md",
        text=DOCUMENT,
        lines=tuple(DOCUMENT.splitlines()),
        front_matter=FrontMatter(None),
        sections=(),
    )
    body = {
        "dimensions": {d.id: {"score": 3, "evidence": ["Warm caches restore 1.2 GB"]} for d in rubric.judged},
        "overall": "FAIL",
    }
    backend = FakeBackend("```json\n" + json.dumps(body) + "\n```")
    outcome = judge_document(document, json_rubric, backend, seed=9)
    assert "exactly one JSON object" in backend.prompts[0]
    assert all(d.score == 3 and d.evidence[0].line == 9 for d in outcome.dimensions)
    assert outcome.call.overall_claimed == "FAIL" and outcome.warnings == ()


def test_disagreeing_overall_claim_becomes_a_warning(rubric: Rubric) -> None:
    text = reply(rubric, {"executive_summary_first_sentence": 2}, overall="PASS")
    outcome = judge_document(DOCUMENT, rubric, FakeBackend(text), seed=10)
    assert outcome.warnings == (
        "fake:fake-model: the judge claimed OVERALL: PASS but its scores imply FAIL under the rubric policy",
    )
    assert outcome.call.overall_claimed == "PASS"  # recorded, never decisive


def test_overall_disagreement_and_policy_verdict(rubric: Rubric) -> None:
    assert overall_disagreement("PASS", Verdict.PASS) is None
    assert overall_disagreement(None, Verdict.FAIL) is None
    assert overall_disagreement("FAIL", None) is None
    assert overall_disagreement("FAIL", "ERROR") is None
    assert "claimed OVERALL: FAIL but its scores imply PASS" in (overall_disagreement("fail", "pass") or "")
    assert policy_verdict(rubric, [("claim_source_accuracy", 4), ("epistemic_labeling", 4)]) is Verdict.PASS
    assert policy_verdict(rubric, [("claim_source_accuracy", 5), ("epistemic_labeling", 3)]) is Verdict.PASS
    assert policy_verdict(rubric, [("claim_source_accuracy", 4), ("epistemic_labeling", 2)]) is Verdict.FAIL
    assert policy_verdict(rubric, [("claim_source_accuracy", 3), ("epistemic_labeling", 4)]) is Verdict.FAIL
    assert policy_verdict(rubric, [("claim_source_accuracy", None)]) is None


def test_judge_many_keeps_order_and_runs_concurrently(rubric: Rubric) -> None:
    max_workers = 3
    barrier = threading.Barrier(max_workers, timeout=10)
    lock = threading.Lock()
    in_flight = peak = 0

    def answer(score: int) -> Callable[[str], str]:
        def respond(prompt: str) -> str:
            nonlocal in_flight, peak
            with lock:
                in_flight += 1
                peak = max(peak, in_flight)
            try:
                if score <= max_workers:
                    barrier.wait()  # the first N calls only return once N are in flight together
                return reply(rubric, {"epistemic_labeling": score % 5 + 1})
            finally:
                with lock:
                    in_flight -= 1

        return respond

    jobs = [JudgeJob(DOCUMENT, rubric, FakeBackend(answer(i)), seed=i) for i in range(1, 8)]
    outcomes = judge_many(jobs, max_workers=max_workers)
    assert [o.seed for o in outcomes] == list(range(1, 8))
    assert [{d.id: d.score for d in o.dimensions}["epistemic_labeling"] for o in outcomes] == [
        i % 5 + 1 for i in range(1, 8)
    ]
    assert peak == max_workers


JUDGE_SCRIPT = r"""
import re, sys
prompt = sys.stdin.read()
fence = re.search(r"^BEGIN (EVALGATE-DATA-\w+)$", prompt, re.M).group(1)
body = prompt.split(f"BEGIN {fence}\n", 1)[1].split(f"\nEND {fence}", 1)[0]
quote = next(line for line in body.splitlines() if line.startswith("Caching"))
ids = re.findall(r"^\| (\w+) \| <1-5> \|", prompt, re.M)
print("Here is my review.\n\n| dimension | score | evidence | reasoning |\n|---|---|---|---|")
for i in ids:
    print(f'| {i} | **4** | "{quote}" | reads well |')
print("\nOVERALL: PASS")
"""


def test_command_backend_end_to_end(rubric: Rubric, tmp_path: Path) -> None:
    script = tmp_path / "judge.py"
    script.write_text(JUDGE_SCRIPT, encoding="utf-8")
    outcome = judge_document(DOCUMENT, rubric, CommandBackend(f"{sys.executable} {script}"), seed=12)
    assert all(d.status is Status.SCORED and d.score == 4 for d in outcome.dimensions)
    assert all(d.evidence[0].verified and d.evidence[0].line == 5 for d in outcome.dimensions)
    assert outcome.call.calls == 1 and outcome.call.overall_claimed == "PASS"

    failing = CommandBackend(f"{sys.executable} -c 'import sys; sys.exit(3)'")
    broken = judge_document(DOCUMENT, rubric, failing, seed=12)
    assert all(d.status is Status.ERROR and "exit code 3" in (d.error or "") for d in broken.dimensions)


def test_rubric_without_judged_dimensions_makes_no_call(rubric: Rubric) -> None:
    structural = replace(rubric, dimensions=rubric.deterministic)
    backend = FakeBackend()
    outcome = judge_document(DOCUMENT, structural, backend, seed=1)
    assert outcome.dimensions == () and outcome.call.calls == 0 and backend.prompts == []
