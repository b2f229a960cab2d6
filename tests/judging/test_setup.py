"""Run-level judge wiring: backends from config, repeated judges stay distinct raters."""

from __future__ import annotations

import threading
import time

import evalgate.judging.judge as judge_module
from evalgate.config import Config
from evalgate.document import parse_document
from evalgate.judgement import Reply
from evalgate.judging.setup import DocumentJudging, judge_pool, make_judges, unique_labels
from evalgate.rubric import load_rubric
from tests.checks.research_item import research_item


def test_repeated_judges_are_numbered():
    assert unique_labels(["a:m", "b:m", "a:m", "a:m"]) == ["a:m", "b:m", "a:m#2", "a:m#3"]


def test_make_judges_builds_one_backend_per_spec(tmp_path):
    config = Config(judges=("replay:" + str(tmp_path), "command:echo hi"))
    judges = make_judges(config)
    assert [j.name for j in judges] == ["replay", "command"]


def test_the_next_prompt_is_ready_while_the_calls_in_flight_wait(monkeypatch):
    # --jobs 1: one call in flight. The pool's second thread renders the next document's prompt while
    # that call waits on its judge, so the call can start the moment the slot frees.
    rendered: list[str] = []
    original = judge_module.render_judge_prompt

    def recording(rubric, document, seed, **call):
        prompt = original(rubric, document, seed, **call)
        rendered.append(document.path)
        return prompt

    monkeypatch.setattr(judge_module, "render_judge_prompt", recording)
    backend = HeldBackend()
    config = Config(jobs=1, cache=False)
    documents = [
        parse_document(research_item().replace("# ", f"# Copy {i} ", 1), f"d{i}.md") for i in range(3)
    ]
    with judge_pool(config) as pool:
        judging = DocumentJudging(config, load_rubric("research-loop"), [backend], pool)
        pending = [judging.submit(d) for d in documents]
        assert backend.entered.wait(10)
        deadline = time.monotonic() + 10
        while len(rendered) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(rendered) == 2 and backend.calls == 1  # d1's prompt is ready; d0's call still holds
        backend.release.set()
        for document, calls in zip(documents, pending, strict=True):
            judging.collect(document, calls)
    assert backend.max_in_flight == 1  # the pool's extra threads never add calls in flight
    assert sorted(rendered) == ["d0.md", "d1.md", "d2.md"]


class HeldBackend:
    """A judge whose calls wait until released, counting the calls in flight."""

    name = "held"
    model = "m"

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.lock = threading.Lock()
        self.calls = self.in_flight = self.max_in_flight = 0

    def complete(self, prompt: str) -> Reply:
        with self.lock:
            self.calls += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.entered.set()
        self.release.wait(10)
        with self.lock:
            self.in_flight -= 1
        return Reply(text="no table here")
