"""`evalgate check --judge ...` end to end against a model server the test starts on 127.0.0.1:
the openai backend and the real Copilot CLI, the reply cache, calls kept in flight, the judge's own
OVERALL claim never deciding."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from evalgate.cli import main
from evalgate.document import read_document
from tests.support.openai_server import ModelServer, ServerReply

ROOT = Path(__file__).resolve().parent.parent
PASS_ITEM = ROOT / "gold" / "research-loop" / "2026-11-03-judge-reply-cache-determinism.md"
JUDGED = (
    "executive_summary_first_sentence",
    "claim_source_accuracy",
    "epistemic_labeling",
    "key_finding_specificity",
)


def table(score: int, quote: str, overall: str = "PASS") -> str:
    rows = "\n".join(f"| {d} | {score} | {quote} | fine |" for d in JUDGED)
    return f"| dimension | score | evidence | reasoning |\n|---|---|---|---|\n{rows}\n\nOVERALL: {overall}\n"


@pytest.fixture
def quote() -> str:
    summary = read_document(PASS_ITEM).executive_summary
    assert summary is not None
    return summary.first_sentence[:80]


class Recorder:
    """A responder that answers every judge prompt with one table and counts calls in flight."""

    def __init__(self, text: str, delay: float = 0.0, hold_until: int = 0):
        self.text, self.delay, self.hold_until = text, delay, hold_until
        self.lock = threading.Condition()
        self.in_flight = self.max_in_flight = 0

    def __call__(self, _body: dict) -> ServerReply:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.lock.notify_all()
            # Calls wait until `hold_until` have been in flight together once, so on a slow machine a
            # call cannot end before the client has had the chance to start the others.
            self.lock.wait_for(lambda: self.max_in_flight >= self.hold_until, timeout=30)
        time.sleep(self.delay)
        with self.lock:
            self.in_flight -= 1
        return ServerReply(text=self.text)


def check_json(args: list[str], capsys) -> tuple[int, dict]:
    code = main(["check", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def judged_scores(result: dict) -> dict[str, int]:
    return {d["id"]: d["score"] for d in result["dimensions"] if d["kind"] == "judge"}


def test_openai_backend_scores_and_the_cache_saves_the_second_call(tmp_path, monkeypatch, capsys, quote):
    with ModelServer(Recorder(table(4, quote))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        args = ["--judge", "openai:loopback-model", "--cache-dir", str(tmp_path / "cache"), str(PASS_ITEM)]
        code, report = check_json(args, capsys)
        assert len(server.requests) == 1
        result = report["results"][0]
        assert judged_scores(result) == dict.fromkeys(JUDGED, 4)
        assert code == 0 and result["verdict"] == "PASS"
        judge = result["judges"][0]
        assert judge["backend"] == "openai" and judge["tokens_in"] and judge["overall_claimed"] == "PASS"
        assert all(e["verified"] for d in result["dimensions"] if d["kind"] == "judge" for e in d["evidence"])
        assert server.requests[0]["temperature"] == 0

        code, again = check_json(args, capsys)
        assert len(server.requests) == 1  # unchanged file: zero judge calls
        assert again["results"][0]["judges"][0]["cached"] is True
        assert judged_scores(again["results"][0]) == judged_scores(result)


def test_judge_claiming_pass_with_low_scores_fails_and_is_flagged(tmp_path, monkeypatch, capsys, quote):
    with ModelServer(Recorder(table(2, quote, overall="PASS"))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, report = check_json(["--no-cache", "--judge", "openai:m", str(PASS_ITEM)], capsys)
    result = report["results"][0]
    assert code == 1 and result["verdict"] == "FAIL"
    assert "executive_summary_first_sentence" in result["hard_failures"]
    assert any("OVERALL" in w for w in result["warnings"])


def test_jobs_keeps_that_many_calls_in_flight(tmp_path, monkeypatch, capsys, quote):
    docs = []
    text = PASS_ITEM.read_text(encoding="utf-8")
    for i in range(6):
        doc = tmp_path / f"item-{i}.md"
        doc.write_text(text.replace("# ", f"# Copy {i} ", 1))  # distinct bytes, distinct cache keys
        docs.append(str(doc))
    for jobs in (1, 3):
        recorder = Recorder(table(4, quote), delay=0.3, hold_until=jobs)
        with ModelServer(recorder) as server:
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            check_json(["--no-cache", "--jobs", str(jobs), "--judge", "openai:m", *docs], capsys)
            assert len(server.requests) == 6
        assert recorder.max_in_flight == jobs


def test_unreachable_judge_is_an_error_value_and_the_file_fails(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    code, report = check_json(
        ["--no-cache", "--judge-timeout", "5", "--judge", "openai:m", str(PASS_ITEM)], capsys
    )
    result = report["results"][0]
    assert code == 1 and result["verdict"] == "FAIL"
    judged = [d for d in result["dimensions"] if d["kind"] == "judge"]
    assert all(d["status"] == "error" and "connection refused" in d["error"] for d in judged)
    code, report = check_json(
        ["--no-cache", "--on-judge-error", "skip", "--judge", "openai:m", str(PASS_ITEM)], capsys
    )
    assert report["results"][0]["verdict"] == "PASS"


@pytest.mark.copilot
def test_copilot_cli_judges_a_document_end_to_end(tmp_path, monkeypatch, capsys, quote, copilot_bin):
    with ModelServer(Recorder(table(5, quote))) as server:
        monkeypatch.setenv("EVALGATE_COPILOT_BIN", copilot_bin)
        monkeypatch.setenv("COPILOT_OFFLINE", "true")
        monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", server.base_url)
        monkeypatch.setenv("COPILOT_MODEL", "loopback-model")
        args = ["--judge", "copilot", "--cache-dir", str(tmp_path / "cache"), str(PASS_ITEM)]
        code, report = check_json(args, capsys)
        assert code == 0, report
        result = report["results"][0]
        assert judged_scores(result) == dict.fromkeys(JUDGED, 5)
        assert result["judges"][0]["backend"] == "copilot"
        sent = json.dumps(server.requests[-1])
        assert quote.split()[0] in sent  # the document reached the model as data
        calls = len(server.requests)
        check_json(args, capsys)
        assert len(server.requests) == calls  # cached: the CLI was not run again


def test_a_documents_judge_call_starts_before_the_next_document_is_read(tmp_path, monkeypatch, quote):
    """Judge calls start as each document's structural pass ends, not after the whole batch: reading
    the last file waits until the first file's call has reached the judge (it would wait in vain if
    calls started only after every file was read), and the report is the same as ever."""
    import evalgate.document
    import evalgate.run
    from evalgate.config import Config

    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text(PASS_ITEM.read_text(encoding="utf-8"), encoding="utf-8")
    first_call = threading.Event()
    waited: list[bool] = []
    real_read = evalgate.document.read_document  # the run reads through the package's name

    def read(path: Path, **kwargs):
        if path.name == "c.md":
            waited.append(first_call.wait(timeout=30))
        return real_read(path, **kwargs)

    def respond(_body: dict) -> ServerReply:
        first_call.set()
        return ServerReply(text=table(4, f'"{quote}"'))

    monkeypatch.setattr(evalgate.document, "read_document", read)
    with ModelServer(respond) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        config = Config(judges=("openai:m",), cache=False, jobs=2, root=str(tmp_path))
        report = evalgate.run.run(config, ["a.md", "b.md", "c.md"], base=tmp_path)
    assert waited == [True]
    assert [r.path for r in report.results] == ["a.md", "b.md", "c.md"]
    assert all(len(r.judges) == 1 and r.judges[0].error is None for r in report.results)


def test_a_batch_submits_every_documents_calls_before_its_checks_run(tmp_path, monkeypatch, quote):
    """In one process, every document of a batch is read and its calls submitted before the
    deterministic checks run (they run while the calls are in flight): the last call of the first
    wave no longer waits for the checks of the documents before it. The report is the same."""
    import evalgate.checks
    import evalgate.run
    from evalgate.config import Config
    from evalgate.judging.setup import DocumentJudging

    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text(PASS_ITEM.read_text(encoding="utf-8"), encoding="utf-8")
    events: list[tuple[str, str]] = []
    real_check, real_submit = evalgate.checks.run_check, DocumentJudging.submit

    def check(dimension_id, document, **kwargs):
        events.append(("check", Path(document.path).name))
        return real_check(dimension_id, document, **kwargs)

    def submit(self, document):
        events.append(("submit", Path(document.path).name))
        return real_submit(self, document)

    monkeypatch.setattr(evalgate.checks, "run_check", check)
    monkeypatch.setattr(DocumentJudging, "submit", submit)
    with ModelServer(Recorder(table(4, f'"{quote}"'))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        config = Config(judges=("openai:m",), cache=False, jobs=2, root=str(tmp_path))
        report = evalgate.run.run(config, ["a.md", "b.md", "c.md"], base=tmp_path)
    assert events[:3] == [("submit", "a.md"), ("submit", "b.md"), ("submit", "c.md")]
    assert {kind for kind, _ in events[3:]} == {"check"} and len(events) == 3 + 3 * 5
    assert [r.path for r in report.results] == ["a.md", "b.md", "c.md"]
    assert all(r.judges[0].error is None and len(r.dimensions) == 9 for r in report.results)


def test_documents_are_prepared_for_evidence_checks_before_their_replies_come(tmp_path, monkeypatch, quote):
    """Normalising a document for the evidence check (~2.6 ms each) happens in the main thread while
    the calls are in flight, not in the judge threads when a wave of replies arrives at once."""
    import evalgate.judging.evidence as evidence
    import evalgate.run
    from evalgate.config import Config

    texts = []
    for name in ("a.md", "b.md"):
        text = PASS_ITEM.read_text(encoding="utf-8").replace("# ", f"# {name} ", 1)
        (tmp_path / name).write_text(text, encoding="utf-8")
        texts.append(text)
    evidence._normalised_document.cache_clear()
    normalised_in: list[str] = []
    real = evidence.normalise

    def normalise(text: str):
        if len(text) > 1000:  # a document, not a quote
            normalised_in.append(threading.current_thread().name)
        return real(text)

    monkeypatch.setattr(evidence, "normalise", normalise)
    with ModelServer(Recorder(table(4, f'"{quote}"'), delay=0.5)) as server:  # a judge takes a while
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        config = Config(judges=("openai:m",), cache=False, jobs=2, root=str(tmp_path))
        report = evalgate.run.run(config, ["a.md", "b.md"], base=tmp_path)
    assert normalised_in == ["MainThread", "MainThread"]  # once per document, before any reply
    for result in report.results:
        quotes = [e for d in result.dimensions if d.kind == "judge" for e in d.evidence]
        assert quotes and all(e.verified for e in quotes)  # and the replies' quotes were found in it
