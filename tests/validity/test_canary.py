"""`evalgate canary`: a stable judge shows no drift, a judge shifted by two points fails."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pytest

from evalgate.validity.canary import CanaryError, CanaryItem, load_fixtures, measure_drift, register

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
    if any(prompt_sha256(fixtures, rubric, i) != i.prompt_sha256 for i in fixtures.items):
        pytest.skip("the rubric or prompt templates changed: re-record gold/canary with --rebaseline")
    assert _call([str(copy)]) == 0


def test_load_fixtures_rejects_a_non_mapping(tmp_path: Path) -> None:
    (tmp_path / "canary.yml").write_text("- just a list\n", "utf-8")
    with pytest.raises(CanaryError, match="expected a mapping"):
        load_fixtures(tmp_path)
