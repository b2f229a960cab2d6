"""Cost and time you can read: calls, tokens, dollars and time per document and per run, an unknown
cost kept unknown in every format, `budgets:` per document and `budget:` per run.

Judges are real backends: a scripted `command:` judge (which reports no usage, so its cost is
unknown) and the `openai` backend against a loopback model server (which reports tokens; with
`prices:` its calls have a cost)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from evalgate.cli import main
from evalgate.config import Config
from evalgate.github.checks_run import conclusion
from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError
from evalgate.judging.backends.copilot import CopilotBackend, read_usage
from evalgate.judging.backends.retry import RetryingBackend
from evalgate.judging.judge import judge_document
from evalgate.report.render import render
from evalgate.results import Verdict, exit_code
from evalgate.rubric import load_rubric
from evalgate.run import run
from evalgate.usage import Amount, JudgeCall, Usage
from evalgate.yamlsafe import validated
from tests.support import openai_server
from tests.support.openai_server import ModelServer, ServerReply
from tests.support.reports import posted

model_server = openai_server.model_server  # the fixture, under its own name
ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "gold" / "research-loop"
SCRIPTED_JUDGE = ROOT / "tests" / "fixtures" / "canary" / "scripted_judge.py"
PASSING = "2026-11-03-judge-reply-cache-determinism.md"  # structurally clean
HARD_FAIL = "2026-11-05-judge-retry-budget.md"  # acronym_expansion 2: a hard fail no judge changes
JUDGED = (
    "executive_summary_first_sentence",
    "claim_source_accuracy",
    "epistemic_labeling",
    "key_finding_specificity",
)
# 11 tokens in, 7 out per call (the loopback server's default usage) at these prices: $0.025 a call
PRICES = {"loopback-model": {"input": 1000.0, "output": 2000.0}}
CALL_USD = (11 * 1000.0 + 7 * 2000.0) / 1_000_000


def _table(score: int) -> str:
    rows = "\n".join(f"| {d} | {score} | x | fine |" for d in JUDGED)
    return f"| dimension | score | evidence | reasoning |\n|---|---|---|---|\n{rows}\n\nOVERALL: PASS\n"


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with `docs/` holding three structurally clean copies of one gold item
    (different names, so three documents) and the hard-failing one."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "docs"
    folder.mkdir()
    text = (GOLD / PASSING).read_text(encoding="utf-8")
    for n in range(3):
        (folder / f"clean-{n}.md").write_text(text.replace("# ", f"# Copy {n}: ", 1), encoding="utf-8")
    shutil.copy(GOLD / HARD_FAIL, folder / "hard-fail.md")
    return folder


def _scripted(tmp_path: Path, score: int = 4) -> str:
    spec = tmp_path / "judge.json"
    spec.write_text(json.dumps({"*": dict.fromkeys(JUDGED, score)}), encoding="utf-8")
    return "command:" + shlex.join([sys.executable, str(SCRIPTED_JUDGE), str(spec)])


def _config(**settings: object) -> Config:
    """A run's configuration, validated as `.evalgate.yml` is (nested keys as mappings)."""
    return validated(Config, {"cache": False, "root": str(Path.cwd()), **settings})


def _openai(server: ModelServer, monkeypatch: pytest.MonkeyPatch, score: int = 4) -> str:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.responder = lambda _body: ServerReply(text=_table(score))
    return "openai:loopback-model"


def _priced(**settings: object) -> Config:
    return _config(prices=PRICES, **settings)


# ---- the arithmetic: unknown is never zero ----------------------------------------------------------


def test_an_amount_with_an_unknown_call_has_no_total_only_a_lower_bound() -> None:
    amount = Amount().plus(0.02, 1).plus(None, 2)
    assert amount.total is None and amount.known == pytest.approx(0.02) and amount.unknown_calls == 2
    assert amount.to_json() == {"total": None, "at_least": 0.02, "unknown_calls": 2}
    assert Amount().plus(0.01, 1).total == pytest.approx(0.01)


def test_a_cached_judgement_made_no_call_and_cost_nothing() -> None:
    cached = JudgeCall("openai", "m", tokens_in=0, tokens_out=0, cost_usd=0.0, cached=True, calls=0)
    failed = JudgeCall("command", "c", calls=1, error="exit code 3")  # what it spent is unknown
    usage = Usage.of([cached, failed])
    assert (usage.calls, usage.cached, usage.cost_usd.total, usage.cost_usd.unknown_calls) == (1, 1, None, 1)


def test_premium_requests_and_credits_are_counted_over_copilot_calls_only() -> None:
    copilot = JudgeCall("copilot", "gpt-5.4", cost_usd=None, calls=1, premium_requests=1.0, credits=None)
    other = JudgeCall("openai", "m", cost_usd=0.01, calls=1)
    usage = Usage.of([copilot, other])
    assert usage.copilot_calls == 1 and usage.premium_requests.total == 1.0
    assert usage.credits.total is None and usage.credits.unknown_calls == 1
    assert "premium_requests" not in other.to_json() and copilot.to_json()["credits"] is None


# ---- what backends report ----------------------------------------------------------------------------


def test_the_copilot_usage_file_gives_credits_only_when_the_cli_says_they_are_complete(
    tmp_path: Path,
) -> None:
    usage = {
        "totalPremiumRequestCost": 1.5,
        "totalNanoAiu": 2_500_000_000,
        "aiCreditsStatus": "complete",
        "modelMetrics": {"gpt-5.4": {"usage": {"inputTokens": 900, "outputTokens": 80}}},
    }
    path = tmp_path / "usage.json"
    path.write_text(json.dumps(usage), encoding="utf-8")
    read = read_usage(path)
    assert (read.model, read.tokens_in, read.tokens_out) == ("gpt-5.4", 900, 80)
    assert (read.premium_requests, read.credits) == (1.5, 2.5)
    # the CLI's own schema: "unavailable" means a numeric zero is not a zero-cost claim
    for status in ("unavailable", "partial", None):
        path.write_text(json.dumps({**usage, "aiCreditsStatus": status}), encoding="utf-8")
        assert read_usage(path).credits is None
    path.write_text("{not json", encoding="utf-8")
    assert read_usage(path).premium_requests is None and read_usage(path).tokens_in is None


@pytest.mark.copilot
def test_the_real_copilot_cli_reports_premium_requests_and_no_credits_offline(
    model_server: ModelServer, copilot_bin: str
) -> None:
    """Offline, against a provider of its own (BYOK), the CLI bills no premium request and reports
    the AI credits as unavailable: the reply has premium requests 0 and credits unknown."""
    model_server.script(ServerReply(text="ok", model="judge-model", prompt_tokens=321, completion_tokens=9))
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(Path.home()),
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": model_server.base_url,
        "COPILOT_MODEL": "judge-model",
    }
    backend = CopilotBackend(
        "judge-model", environ=environ, binary=copilot_bin, prices={"judge-model": (1.0, 2.0)}
    )
    reply = backend.complete("Score this.")
    assert (reply.tokens_in, reply.tokens_out, reply.premium_requests, reply.credits) == (321, 9, 0.0, None)
    assert reply.cost_usd == pytest.approx((321 * 1.0 + 9 * 2.0) / 1_000_000)


class _Flaky:
    """A backend whose first call fails (retryable) and second answers with a priced reply."""

    name, model = "openai", "m"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, prompt: str) -> Reply:
        self.calls += 1
        if self.calls == 1:
            raise BackendError("HTTP 500", retryable=True)
        return Reply(_table(4), "m", 5.0, tokens_in=10, tokens_out=5, cost_usd=0.001)


def test_a_retried_call_counts_every_attempt_and_its_cost_is_unknown() -> None:
    backend = RetryingBackend(_Flaky(), attempts=3, sleep=lambda _s: None)
    outcome = judge_document("# Doc\n\nText.\n", load_rubric("research-loop"), backend, seed=0)
    assert outcome.call.calls == 2  # the failed attempt was a call too, maybe billed
    assert outcome.call.cost_usd is None and outcome.call.tokens_in is None


# ---- a run: per document and per run, in every format -----------------------------------------------


def test_an_unknown_cost_stays_unknown_in_every_format(
    docs: Path, tmp_path: Path, github_contract: Path
) -> None:
    report = run(_config(judges=(_scripted(tmp_path),)), ["docs/clean-0.md", "docs/clean-1.md"])
    summary = report.summary()
    assert summary["judge_calls"] == 2
    assert summary["cost_usd"] is None and summary["tokens_in"] is None  # never summed as 0
    assert summary["usage"]["cost_usd"] == {"total": None, "at_least": 0.0, "unknown_calls": 2}
    first = json.loads(render(report, "json"))["results"][0]
    assert first["usage"]["cost_usd"]["total"] is None and first["judges"][0]["cost_usd"] is None
    assert first["wall_ms"] > 0 and summary["wall_ms"] > 0
    phrase = "cost unknown (2 calls of unknown cost)"
    assert phrase in render(report, "text") and phrase in render(report, "markdown")
    assert "wall time" in render(report, "text")

    check, comment = posted(report, github_contract)
    assert phrase in check["output"]["summary"] and phrase in comment["body"]


def test_priced_calls_total_and_an_unpriced_judge_makes_it_at_least(
    docs: Path, tmp_path: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    priced = _openai(model_server, monkeypatch)
    alone = run(_priced(judges=(priced,)), ["docs/clean-0.md"])
    assert alone.summary()["cost_usd"] == pytest.approx(CALL_USD)
    assert alone.summary()["tokens_in"] == 11 and alone.summary()["tokens_out"] == 7
    assert f"cost ${CALL_USD:.4f}" in render(alone, "text")

    both = run(_priced(judges=(priced, _scripted(tmp_path))), ["docs/clean-0.md", "docs/clean-1.md"])
    assert both.summary()["cost_usd"] is None
    assert both.summary()["usage"]["cost_usd"]["at_least"] == pytest.approx(2 * CALL_USD)
    text = render(both, "text")
    assert f"cost at least ${2 * CALL_USD:.4f} (2 calls of unknown cost)" in text
    assert "tokens at least 22 in / 14 out (2 calls without counts)" in text


# ---- budgets: per document -------------------------------------------------------------------------


def test_a_document_over_its_time_budget_is_flagged_and_fails_only_when_configured(docs: Path) -> None:
    flagged = run(_config(budgets={"seconds_per_document": 1e-9}), ["docs/clean-0.md"])
    [result] = flagged.results
    assert result.verdict is Verdict.PASS and exit_code(flagged) == 0  # a warning by default
    assert result.over_budget and "over the budget of 1e-09 s per document" in result.over_budget[0]
    assert "over budget:" in render(flagged, "text") and "Over budget" in render(flagged, "markdown")

    strict = {"seconds_per_document": 1e-9, "over_budget": "fail"}
    failed = run(_config(budgets=strict), ["docs/clean-0.md"])
    assert failed.results[0].verdict is Verdict.FAIL and exit_code(failed) == 1
    assert failed.results[0].decision is not None
    assert [c.rule.value for c in failed.results[0].decision.failed] == ["budgets"]

    roomy = run(_config(budgets={"seconds_per_document": 3600}), ["docs/clean-0.md"])
    assert roomy.results[0].over_budget == ()


def test_a_document_over_its_dollar_budget_is_flagged(
    docs: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = _openai(model_server, monkeypatch)
    report = run(_priced(judges=(judge,), budgets={"usd_per_document": 0.01}), ["docs/clean-0.md"])
    assert report.results[0].over_budget == (
        f"cost ${CALL_USD:.4f}, over the budget of $0.0100 per document",
    )
    # and runner time counts when priced: a cent a minute is far below this budget
    roomy = _priced(judges=(judge,), budgets={"usd_per_document": 1.0, "runner_usd_per_minute": 0.008})
    assert run(roomy, ["docs/clean-0.md"]).results[0].over_budget == ()


def test_a_dollar_budget_per_document_says_when_a_cost_is_unknown(docs: Path, tmp_path: Path) -> None:
    config = _config(judges=(_scripted(tmp_path),), budgets={"usd_per_document": 0.01})
    report = run(config, ["docs/clean-0.md"])
    assert report.results[0].over_budget == ()
    assert any("could not be held to usd-per-document" in n for n in report.notes)


# ---- budget: per run -------------------------------------------------------------------------------


def test_the_call_budget_stops_judging_and_the_rest_are_not_judged(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".evalgate.yml").write_text("budget: {calls: 2}\n", encoding="utf-8")
    args = ["check", "docs/clean-0.md", "docs/clean-1.md", "docs/clean-2.md", "--no-cache"]
    code = main([*args, "--judge", _scripted(tmp_path), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    verdicts = sorted(r["verdict"] for r in report["results"])
    assert verdicts == ["NOT_JUDGED", "PASS", "PASS"] and code == 1  # on-budget: fail, the default
    assert report["summary"]["verdict"] == "NOT_JUDGED" and report["summary"]["not_judged"] == 1
    assert report["summary"]["budget"]["reached"] is True and report["summary"]["judge_calls"] == 2
    [unjudged] = [r for r in report["results"] if r["verdict"] == "NOT_JUDGED"]
    assert unjudged["reasons"] == [
        "not judged: budget reached (the run's judging budget of 2 calls was spent)"
    ]
    assert all(d["status"] == "skipped" for d in unjudged["dimensions"] if d["kind"] == "judge")
    assert unjudged["judges"][0]["budget_refused"] is True and unjudged["judges"][0]["calls"] == 0

    (tmp_path / ".evalgate.yml").write_text("budget: {calls: 2}\non-budget: skip\n", encoding="utf-8")
    assert main([*args, "--judge", _scripted(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "NOT JUDGED docs/" in text and "1 not judged" in text
    assert "judging budget reached (2 calls per run): 1 document(s) not judged" in text


def test_a_document_the_structure_fails_outright_is_a_fail_even_unjudged(docs: Path, tmp_path: Path) -> None:
    config = _config(judges=(_scripted(tmp_path),), budget={"calls": 1})
    shutil.copy(docs / "hard-fail.md", docs / "hard-fail-2.md")
    report = run(config, ["docs/hard-fail.md", "docs/hard-fail-2.md"])
    assert [r.verdict for r in report.results] == [Verdict.FAIL, Verdict.FAIL]
    refused = [r for r in report.results if any(j.budget_refused for j in r.judges)]
    assert len(refused) == 1 and refused[0].hard_failures == ("acronym_expansion",)
    assert report.budget is not None and report.budget.not_judged == 1


def test_the_dollar_budget_admits_the_same_number_of_calls_every_run(
    docs: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = _openai(model_server, monkeypatch)
    files = ["docs/clean-0.md", "docs/clean-1.md", "docs/clean-2.md"]
    # one call in flight: the first two are admitted ($0 then $0.025 spent, below $0.03), the third not
    config = _priced(judges=(judge,), jobs=1, budget={"usd": 0.03})
    for _ in range(2):
        report = run(config, files)
        assert sorted(r.verdict for r in report.results) == [Verdict.NOT_JUDGED, Verdict.PASS, Verdict.PASS]
        assert report.budget is not None and report.budget.usd_spent == pytest.approx(2 * CALL_USD)
    assert len(model_server.requests) == 4


def test_neither_pass_nor_fail_maps_to_a_neutral_check_under_on_budget_skip(
    docs: Path, tmp_path: Path
) -> None:
    files = ["docs/clean-0.md", "docs/clean-1.md"]
    judges = (_scripted(tmp_path),)
    failing = run(_config(judges=judges, budget={"calls": 1}), files)
    skipping = run(_config(judges=judges, budget={"calls": 1}, on_budget="skip"), files)
    assert failing.verdict is skipping.verdict is Verdict.NOT_JUDGED
    assert (exit_code(failing), conclusion(failing)) == (1, "failure")
    assert (exit_code(skipping), conclusion(skipping)) == (0, "neutral")
