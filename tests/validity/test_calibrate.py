"""`evalgate calibrate`: judges whose scores the test controls against a small labelled gold set."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from evalgate.results import DimensionResult, FileResult, JudgeCall, Report, RubricRef, Status, Verdict
from evalgate.rubric import load_rubric
from evalgate.validity.calibrate import (
    GoldError,
    GoldItem,
    GoldSet,
    calibrate,
    compare_scores,
    load_gold,
)
from evalgate.validity.calibrate_command import register

SCRIPTED_JUDGE = Path(__file__).parents[1] / "fixtures" / "canary" / "scripted_judge.py"
JUDGED = (
    "executive_summary_first_sentence",
    "claim_source_accuracy",
    "epistemic_labeling",
    "key_finding_specificity",
)
LABELS = {
    "alpha.md": dict(zip(JUDGED, (5, 4, 4, 5), strict=True)),
    "beta.md": dict(zip(JUDGED, (1, 3, 4, 4), strict=True)),
}


def _document(title: str) -> str:
    return (
        f"# {title}\n\n## Research Question\n\nDoes the {title} marker reach the judge?\n\n"
        "## Findings\n\n### Executive Summary\n\nIt does, in every prompt rendered.\n"
    )


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="evalgate")
    register(parser.add_subparsers(dest="command"), "test")
    return parser.parse_args(["calibrate", *argv])


@pytest.fixture
def gold_dir(tmp_path: Path) -> Path:
    gold = tmp_path / "gold"
    gold.mkdir()
    items = []
    for name, judged in LABELS.items():
        (gold / name).write_text(_document(name.removesuffix(".md") + "-marker"), encoding="utf-8")
        items.append({"file": name, "judged": judged, "verdict": {"structural": "FAIL", "full": "FAIL"}})
    (gold / "labels.yml").write_text(
        json.dumps({"rubric": "research-loop", "items": items}), encoding="utf-8"
    )
    return gold


def _judge(tmp_path: Path, scores: dict[str, dict[str, int]], name: str) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(scores), encoding="utf-8")
    return f"command:{sys.executable} {SCRIPTED_JUDGE} {path}"


def _run(gold: Path, judge: str, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    args = _parse([str(gold), "--judge", judge, "--no-cache", *extra])
    code = args.func(args)
    return code, capsys.readouterr().out


def test_a_judge_that_matches_the_labels_passes(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = _judge(tmp_path, {f"{n.removesuffix('.md')}-marker": s for n, s in LABELS.items()}, "matching")
    code, out = _run(gold_dir, judge, "--format", "json", capsys=capsys)
    result = json.loads(out)
    assert code == 0, out
    assert result["passed"] is True
    assert result["overall"]["exact"] == 1.0 and result["overall"]["items"] == 8
    assert result["overall"]["cohen_kappa"] == 1.0
    # it claimed PASS on items whose structural checks fail, but it was told not to judge them: no
    # judged dimension of research-loop is also computed by a check, so nothing is compared
    assert result["mechanical"]["comparisons"] == 0 and result["mechanical"]["rate"] is None


def test_a_judge_that_disagrees_fails_below_the_bar(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = _judge(tmp_path, {"*": dict.fromkeys(JUDGED, 3)}, "flat")
    code, out = _run(gold_dir, judge, capsys=capsys)
    assert code == 1
    assert "FAIL: exact agreement 12% is below 60%" in out  # 1 of 8 labels is a 3
    assert "miss executive_summary_first_sentence: alpha.md: label 5, scored 3" in out


def test_the_bar_and_metric_are_options(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = _judge(tmp_path, {"*": dict.fromkeys(JUDGED, 4)}, "fours")
    # labels 5,4,4,5,1,3,4,4: exact 4/8, within one 7/8; a constant judge's kappa is 0 (floor lifted)
    loose = ["--min-kappa", "-1", "--min-within-one", "0.8"]
    assert _run(gold_dir, judge, "--bar", "0.5", *loose, capsys=capsys)[0] == 0
    assert (
        _run(gold_dir, judge, "--bar", "0.9", "--metric", "within_one", "--min-kappa", "-1", capsys=capsys)[0]
        == 1
    )
    assert (
        _run(
            gold_dir,
            judge,
            "--bar",
            "0.85",
            "--metric",
            "within_one",
            "--min-kappa",
            "-1",
            "--min-exact",
            "0.5",
            capsys=capsys,
        )[0]
        == 0
    )


def test_usage_errors_exit_2(gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _parse([str(gold_dir), "--no-cache"])
    assert args.func(args) == 2
    assert "--judge" in capsys.readouterr().err
    args = _parse([str(tmp_path / "nowhere"), "--judge", "command:true", "--no-cache"])
    assert args.func(args) == 2
    assert "labels.yml" in capsys.readouterr().err
    assert _run(gold_dir, "command:true", "--bar", "80", capsys=capsys)[0] == 2


def test_load_gold_rejects_bad_labels_with_the_item(tmp_path: Path) -> None:
    (tmp_path / "labels.yml").write_text("items:\n  - file: a.md\n    judged: {x: high}\n", encoding="utf-8")
    with pytest.raises(GoldError, match=r"items\[0\]\.judged"):
        load_gold(tmp_path)


def test_load_gold_reads_the_project_gold_set() -> None:
    gold = load_gold(Path(__file__).parents[2] / "gold")
    assert gold.rubric == "research-loop" and len(gold.items) >= 5
    assert all(set(item.judged) <= {d.id for d in load_rubric("research-loop").judged} for item in gold.items)


def test_compare_scores_counts_a_judge_error_as_a_miss() -> None:
    result = compare_scores("d", "judge", [("a", 4, 4), ("b", 2, None), ("c", 5, 4)], (1, 5))
    assert (
        result.items == 3
        and result.exact == pytest.approx(1 / 3)
        and result.within_one == pytest.approx(2 / 3)
    )
    assert result.misses == ("b: label 2, scored None", "c: label 5, scored 4")


def test_mechanical_field_compares_the_judge_with_the_check() -> None:
    rubric = load_rubric("research-loop")
    mechanical = replace(
        rubric,
        dimensions=tuple(
            replace(d, mechanical="key_finding_word_count") if d.id == "key_finding_specificity" else d
            for d in rubric.dimensions
        ),
    )
    claims_fail = (JudgeCall("j", "m", overall_claimed="FAIL"),)
    dims = (
        DimensionResult("key_finding_word_count", "deterministic", Status.SCORED, score=2),
        DimensionResult("key_finding_specificity", "judge", Status.SCORED, score=5),
    )
    report = Report(
        RubricRef(rubric.id, rubric.version),
        (FileResult("a.md", Verdict.FAIL, dimensions=dims, judges=claims_fail),),
    )
    gold = GoldSet(Path("."), rubric.id, (GoldItem("a.md", {"key_finding_specificity": 5}, {}, "FAIL"),))
    result = calibrate(report, gold, mechanical)
    assert result.mechanical_comparisons == 1  # the mechanical dimension; a structural claim never counts
    assert result.mechanical_disagreements == (
        "a.md: key_finding_specificity judged 5, key_finding_word_count computed 2",
    )
    assert result.passed


def test_an_item_missing_from_the_report_is_listed_not_scored() -> None:
    rubric = load_rubric("research-loop")
    gold = GoldSet(Path("."), rubric.id, (GoldItem("gone.md", {"epistemic_labeling": 4}),))
    result = calibrate(Report(RubricRef(rubric.id, rubric.version), ()), gold, rubric)
    assert result.unevaluated == ("gone.md: not in the report",)
    assert result.overall.items == 0 and not result.passed


def test_wired_into_the_cli(gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from evalgate.cli import main

    judge = _judge(tmp_path, {"*": dict.fromkeys(JUDGED, 3)}, "flat")
    assert main(["calibrate", str(gold_dir), "--judge", judge, "--no-cache", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["passed"] is False


def test_the_gold_sets_rubric_is_used_unless_overridden(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "evalgate.yml"
    config.write_text("rubric: no-such-rubric\n", encoding="utf-8")
    judge = _judge(tmp_path, {"*": dict.fromkeys(JUDGED, 3)}, "flat")
    # the labels say research-loop: the configuration's rubric does not apply to the gold set
    assert _run(gold_dir, judge, "--config", str(config), capsys=capsys)[0] == 1
    args = _parse([str(gold_dir), "--judge", judge, "--no-cache", "--rubric", "no-such-rubric"])
    assert args.func(args) == 2
    assert "unknown rubric 'no-such-rubric'" in capsys.readouterr().err


def test_calibrate_reports_the_position_effect_per_criterion(tmp_path: Path, capsys) -> None:
    """A judge that scores a criterion by its place in the list (5, 5, 4, 4, 3, 3), against labels of
    4 everywhere: its error is +1 at places 1-2, 0 at 3-4 and -1 at 5-6, whatever the criterion."""
    from tests.test_rubric_packs import KW_DIMS, KW_ITEM, judge_spec, write_item

    gold = tmp_path / "gold"
    gold.mkdir()
    items = []
    unlabelled = {k: v for k, v in KW_ITEM.items() if k != "labels"}  # labels.yml labels these items
    for n in range(4):
        write_item(gold / f"item-{n}.yml", {**unlabelled, "response": f"## Answer\n\nOption {n}.\n"})
        items.append({"file": f"item-{n}.yml", "judged": dict.fromkeys(KW_DIMS, 4)})
    (gold / "labels.yml").write_text(json.dumps({"rubric": "knowledge-work", "items": items}), "utf-8")
    judge = judge_spec(tmp_path, "by-place", {"by_position": [5, 5, 4, 4, 3, 3]})
    _, out = _run(gold, judge, "--format", "json", capsys=capsys)
    effect = json.loads(out)["position_effect"]
    assert effect["varied"] is True and effect["value"] == "score minus label"
    criteria = {c["criterion"]: c for c in effect["criteria"]}
    assert set(criteria) == set(KW_DIMS) and all(c["n"] == 4 for c in criteria.values())
    expected = {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.0, 5: -1.0, 6: -1.0}
    for c in criteria.values():
        assert all(p["mean"] == expected[p["position"]] for p in c["by_position"])
        if c["correlation"] is not None:
            assert c["slope"] < 0 and c["correlation"] < 0
    assert any(c["correlation"] is not None for c in criteria.values())
    _, text = _run(gold, judge, capsys=capsys)
    assert "position effect (mean error (score minus label) by the criterion's place in the list" in text
