"""`evalgate canary`: a stable judge shows no drift, a judge shifted by two points fails."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pytest

from evalgate.judging.prompt import PROMPTS_ENV, prompt_version, prompts_dir
from evalgate.validity.canary import CanaryError, CanaryItem, load_fixtures, measure_drift, register
from tests.support.openai_server import ModelServer, ServerReply, last_user_text

SCRIPTED_JUDGE = Path(__file__).parents[1] / "fixtures" / "canary" / "scripted_judge.py"
PROJECT_CANARY = Path(__file__).parents[2] / "gold" / "canary"
SCORES = {
    "alpha-marker": {"executive_summary_first_sentence": 4, "claim_source_accuracy": 3},
    "beta-marker": {"executive_summary_first_sentence": 2, "claim_source_accuracy": 5},
}


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="evalgate")
    register(parser.add_subparsers(dest="command"), "test")
    return parser.parse_args(["canary", *argv])


def _call(argv: list[str]) -> int:
    args = _parse(argv)
    code: int = args.func(args)
    return code


def _judge(tmp_path: Path, shift: int = 0) -> str:
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(SCORES), encoding="utf-8")
    return f"command:{sys.executable} {SCRIPTED_JUDGE} {path} {shift}"


@pytest.fixture
def canary_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "canary"
    directory.mkdir()
    for name in ("alpha", "beta"):
        (directory / f"{name}.md").write_text(
            f"# {name}\n\n## Findings\n\n### Executive Summary\n\nThe {name}-marker holds steady.\n",
            encoding="utf-8",
        )
    items = [{"file": "alpha.md"}, {"file": "beta.md"}]
    (directory / "canary.yml").write_text(json.dumps({"rubric": "research-loop", "items": items}), "utf-8")
    return directory


def test_rebaseline_then_replay_shows_no_drift(
    canary_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _call([str(canary_dir), "--rebaseline", "--judge", _judge(tmp_path)]) == 0
    fixtures = load_fixtures(canary_dir)
    alpha = next(i for i in fixtures.items if i.file == "alpha.md")
    assert alpha.scores["executive_summary_first_sentence"] == 4 and alpha.prompt_sha256
    assert any((canary_dir / "replies").glob("*.json"))
    capsys.readouterr()
    # no --judge: the recorded replies answer (offline)
    assert _call([str(canary_dir), "--format", "json"]) == 0
    drift = json.loads(capsys.readouterr().out)
    assert drift["passed"] and not drift["stale"]
    assert {d["mean_abs_change"] for d in drift["dimensions"]} == {0.0}


def test_unchanged_live_judge_has_zero_drift(canary_dir: Path, tmp_path: Path) -> None:
    judge = _judge(tmp_path)
    assert _call([str(canary_dir), "--rebaseline", "--judge", judge]) == 0
    assert _call([str(canary_dir), "--judge", judge]) == 0


def test_a_judge_shifted_by_two_drifts_and_fails(
    canary_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _call([str(canary_dir), "--rebaseline", "--judge", _judge(tmp_path)]) == 0
    capsys.readouterr()
    assert _call([str(canary_dir), "--judge", _judge(tmp_path, shift=-2)]) == 1
    out = capsys.readouterr().out
    # executive summary 4->2 and 2->1 (clamped): mean 1.5; claim accuracy 3->1 and 5->3: mean 2.0
    assert "executive_summary_first_sentence     2   1.50    2  <- past tolerance" in out
    assert "claim_source_accuracy                2   2.00    2  <- past tolerance" in out
    assert "alpha.md: recorded 3, now 1" in out
    assert out.rstrip().endswith("FAIL: tolerance 0.5 mean absolute change per dimension")
    assert _call([str(canary_dir), "--judge", _judge(tmp_path, shift=-2), "--tolerance", "2"]) == 0


def test_an_edited_fixture_is_stale_and_unscored_under_replay(
    canary_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _call([str(canary_dir), "--rebaseline", "--judge", _judge(tmp_path)]) == 0
    with (canary_dir / "beta.md").open("a", encoding="utf-8") as handle:
        handle.write("\nAn added line.\n")
    capsys.readouterr()
    assert _call([str(canary_dir), "--format", "json"]) == 1
    drift = json.loads(capsys.readouterr().out)
    assert drift["stale"] == [
        "beta.md: the prompt changed since it was recorded (rubric, template or document)"
    ]
    assert any(
        u.startswith("beta.md: executive_summary_first_sentence has no score") for u in drift["unscored"]
    )


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _call([str(tmp_path)]) == 2
    assert "canary.yml" in capsys.readouterr().err
    (tmp_path / "canary.yml").write_text("items:\n  - file: a.md\n    scores: {x: high}\n", "utf-8")
    assert _call([str(tmp_path)]) == 2
    assert "items[0].scores" in capsys.readouterr().err
    assert _call([str(tmp_path), "--rebaseline"]) == 2
    assert _call([str(tmp_path), "--tolerance", "-1"]) == 2


def test_measure_drift_is_mean_absolute_change() -> None:
    items = [CanaryItem("a", {"d": 3}), CanaryItem("b", {"d": 5}), CanaryItem("c", {"d": 4})]
    drift = measure_drift(items, {"a": {"d": 4}, "b": {"d": 3}, "c": {"d": 4}}, tolerance=1.0)
    (only,) = drift.dimensions
    assert only.mean_abs_change == pytest.approx(1.0) and only.max_abs_change == 2
    assert drift.passed  # 1.0 is not past a tolerance of 1.0
    assert not measure_drift(items, {"a": {"d": 3}}, tolerance=1.0).passed  # b and c unscored


def test_the_project_canary_replays_without_drift(tmp_path: Path) -> None:
    if not (PROJECT_CANARY / "canary.yml").is_file():
        pytest.skip("gold/canary has no fixtures")
    copy = tmp_path / "canary"
    shutil.copytree(PROJECT_CANARY, copy)
    fixtures = load_fixtures(copy)
    from evalgate.rubric import load_rubric
    from evalgate.validity.canary import prompt_sha256

    rubric = load_rubric(fixtures.rubric)
    # A template or rubric edit makes the recordings stale: that fails here (it used to skip, and the
    # shipped canary then went unexercised), with the command that re-records it.
    stale = [i.file for i in fixtures.items if prompt_sha256(fixtures, rubric, i) != i.prompt_sha256]
    assert not stale, (
        f"gold/canary is stale for {stale}: re-record it with `evalgate canary gold/canary --rebaseline "
        "--judge 'command:python3 tests/fixtures/canary/scripted_judge.py "
        "tests/fixtures/canary/gold-canary-scores.json'`"
    )
    assert fixtures.baseline.prompt_version == prompt_version(rubric)
    assert _call([str(copy)]) == 0


def test_load_fixtures_rejects_a_non_mapping(tmp_path: Path) -> None:
    (tmp_path / "canary.yml").write_text("- just a list\n", "utf-8")
    with pytest.raises(CanaryError, match="expected a mapping"):
        load_fixtures(tmp_path)


def _live_table(body: dict) -> ServerReply:
    """A live model's reply: the scores the scripted judge would give, in the table contract."""
    prompt = last_user_text(body)
    marker = "alpha-marker" if "alpha-marker" in prompt else "beta-marker"
    rows = "\n".join(f'| {d} | {s} | "{marker}" | live |' for d, s in SCORES[marker].items())
    rows += "\n| epistemic_labeling | 3 | - | live |\n| key_finding_specificity | 3 | - | live |"
    head = "| dimension | score | evidence | reasoning |\n| --- | --- | --- | --- |"
    return ServerReply(text=f"{head}\n{rows}\n\nOVERALL: PASS\n")


@pytest.fixture
def live_judge(monkeypatch: pytest.MonkeyPatch):
    """`openai:loopback-model`, a live backend, answered by a model server on 127.0.0.1."""
    with ModelServer(_live_table) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        yield "openai:loopback-model"


def test_the_shipped_baseline_says_a_scripted_test_judge_recorded_it() -> None:
    fixtures = load_fixtures(PROJECT_CANARY)
    assert fixtures.baseline.source == "fixture"
    assert (
        fixtures.baseline.judges and "tests/fixtures/canary/scripted_judge.py" in fixtures.baseline.judges[0]
    )
    assert fixtures.baseline.prompt_version and fixtures.baseline.recorded


def test_a_fixture_baseline_against_a_live_judge_says_so(
    canary_dir: Path, tmp_path: Path, live_judge: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _call([str(canary_dir), "--rebaseline", "--judge", _judge(tmp_path)]) == 0
    assert "baseline: a fixture judge, command:" in capsys.readouterr().out
    _call([str(canary_dir), "--judge", live_judge, "--format", "json"])
    drift = json.loads(capsys.readouterr().out)
    assert drift["comparison"] == "fixture baseline, live judge"
    assert drift["baseline"]["source"] == "fixture" and drift["judges"] == [live_judge]
    _call([str(canary_dir), "--judge", live_judge])
    out = capsys.readouterr().out
    (line,) = [
        line for line in out.splitlines() if line.startswith("note: the baseline was recorded by a fixture")
    ]
    assert f"not {live_judge} moving over time" in line
    assert f"evalgate canary {canary_dir} --rebaseline --judge {live_judge}" in line


def test_a_live_baseline_records_its_model_and_compares_like_with_like(
    canary_dir: Path, live_judge: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _call([str(canary_dir), "--rebaseline", "--judge", live_judge]) == 0
    baseline = load_fixtures(canary_dir).baseline
    assert (baseline.source, baseline.judges) == ("live", (live_judge,))
    assert baseline.models == ("openai:loopback-model",)
    capsys.readouterr()
    assert _call([str(canary_dir), "--judge", live_judge, "--format", "json"]) == 0
    drift = json.loads(capsys.readouterr().out)
    assert drift["comparison"] == "same judge" and drift["notes"] == []


def test_replay_says_it_checks_the_harness_not_the_judge(
    canary_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _call([str(canary_dir), "--rebaseline", "--judge", _judge(tmp_path)]) == 0
    capsys.readouterr()
    assert _call([str(canary_dir)]) == 0
    out = capsys.readouterr().out
    assert "now: the recorded replies" in out.splitlines()[0]
    assert "note: replaying the baseline's own recorded replies" in out


def test_rebaseline_replaces_the_recordings_and_can_name_its_source(canary_dir: Path, tmp_path: Path) -> None:
    replies = canary_dir / "replies"
    replies.mkdir()
    stale = replies / ("0" * 64 + ".json")
    stale.write_text('{"text": "an answer to a prompt nobody asks any more"}', "utf-8")
    assert (
        _call([str(canary_dir), "--rebaseline", "--judge", _judge(tmp_path), "--baseline-source", "live"])
        == 0
    )
    fixtures = load_fixtures(canary_dir)
    assert not stale.exists()
    assert {f"{i.prompt_sha256}.json" for i in fixtures.items} <= {p.name for p in replies.glob("*.json")}
    assert fixtures.baseline.source == "live"
    assert not (canary_dir / ".replies-rebaseline").exists()


def test_a_prompt_edit_since_the_baseline_is_named(
    canary_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = _judge(tmp_path)
    assert _call([str(canary_dir), "--rebaseline", "--judge", judge]) == 0
    prompts = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), prompts)
    with (prompts / "_reply-table.md.j2").open("a", encoding="utf-8") as handle:
        handle.write("- One more rule.\n")
    monkeypatch.setenv(PROMPTS_ENV, str(prompts))
    capsys.readouterr()
    _call([str(canary_dir), "--judge", judge])
    out = capsys.readouterr().out
    assert "note: the prompt version changed since the baseline was recorded (" in out


def test_a_baseline_without_provenance_is_inferred_or_unknown(canary_dir: Path, tmp_path: Path) -> None:
    assert load_fixtures(canary_dir).baseline.source == "unknown"
    raw = {"rubric": "research-loop", "recorded_with": ["copilot:gpt-5.4"], "items": [{"file": "alpha.md"}]}
    (canary_dir / "canary.yml").write_text(json.dumps(raw), "utf-8")
    assert load_fixtures(canary_dir).baseline.source == "live"
    (canary_dir / "canary.yml").write_text(json.dumps({**raw, "baseline": {"source": "model"}}), "utf-8")
    with pytest.raises(CanaryError, match=r"baseline\.source: expected live or fixture"):
        load_fixtures(canary_dir)
