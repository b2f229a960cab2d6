"""`evalgate pilot`: 3 tasks x 4 cells judged blind by a scripted trio; the summary computed by hand."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from evalgate.validity.pilot import PilotError, load_pilot_config, register
from tests.test_rubric_packs import KW_DIMS, judge_spec

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pilot"
WORDS = {
    ("t1", "A"): "amber", ("t1", "B"): "birch", ("t1", "C"): "cedar", ("t1", "D"): "dune",
    ("t2", "A"): "elm", ("t2", "B"): "fern", ("t2", "C"): "gorse", ("t2", "D"): "heath",
    ("t3", "A"): "iris", ("t3", "B"): "juniper", ("t3", "C"): "kelp", ("t3", "D"): "larch",
}  # fmt: skip
# Every dimension gets the same score from a judge, so a judge's mean is that score.
# (task, cell): (judge 1, judge 2, judge 3)
TRIO = {
    ("t1", "A"): (3, 3, 3), ("t1", "B"): (4, 4, 3), ("t1", "C"): (3, 4, 4), ("t1", "D"): (4, 4, 4),
    ("t2", "A"): (3, 3, 3), ("t2", "B"): (3, 3, 4), ("t2", "C"): (4, 4, 4), ("t2", "D"): (4, 4, 5),
    ("t3", "A"): (4, 4, 4), ("t3", "B"): (4, 4, 4), ("t3", "C"): (3, 3, 3), ("t3", "D"): (3, 3, 4),
}  # fmt: skip


@pytest.fixture
def pilot_dir(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "pilot")
    return tmp_path / "pilot"


def trio_specs(tmp_path: Path, trio: dict) -> list[str]:
    log = tmp_path / "prompts.log"
    specs = []
    for n in range(3):
        by_text = [[f"Ref: {WORDS[key]}.", scores[n]] for key, scores in trio.items()]
        spec = {"default": 1, "by_text": by_text, "reasoning": {"structure": f"judge {n + 1} rationale"}}
        specs.append(judge_spec(tmp_path, f"judge-{n + 1}", {**spec, "log": str(log)}))
    return specs


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalgate")
    register(parser.add_subparsers(dest="command"), "test")
    args = parser.parse_args(argv)
    return args.func(args)


def pilot(pilot_dir: Path, tmp_path: Path, trio: dict) -> tuple[int, list[dict], dict]:
    argv = ["pilot", str(pilot_dir / "pilot.yml"), "--output", str(tmp_path / "out")]
    for spec in trio_specs(tmp_path, trio):
        argv += ["--judge", spec]
    code = run(argv)
    lines = (tmp_path / "out" / "pilot.jsonl").read_text(encoding="utf-8").splitlines()
    summary = json.loads((tmp_path / "out" / "pilot-summary.json").read_text(encoding="utf-8"))
    return code, [json.loads(x) for x in lines], summary


def test_pilot_records_and_summary_by_hand(pilot_dir, tmp_path):
    code, records, summary = pilot(pilot_dir, tmp_path, TRIO)
    assert len(records) == 12
    first = records[0]
    assert (first["task_id"], first["cell_id"], first["model"], first["configuration"]) == (
        "t1", "A", "acme-small", "baseline",
    )  # fmt: skip
    assert "Ref: amber." in first["candidate_response"]
    assert (first["candidate_latency_ms"], first["candidate_tokens_in"], first["candidate_cost_usd"]) == (
        1200,
        800,
        0.004,
    )
    assert records[1]["candidate_latency_ms"] is None  # no metrics file for t1/B
    assert [j["scores"] for j in first["judges"]] == [dict.fromkeys(KW_DIMS, 3)] * 3
    assert [j["rationale"] for j in first["judges"]] == [
        "judge 1 rationale",
        "judge 2 rationale",
        "judge 3 rationale",
    ]
    assert [j["verdict"] for j in first["judges"]] == ["FAIL"] * 3  # mean 3.0 < 3.5
    assert first["manifest_anchor"].startswith("sha256:") and "head_sha" in first

    by_cell = {(r["task_id"], r["cell_id"]): r for r in records}
    t1b = by_cell[("t1", "B")]  # 4, 4, 3
    assert t1b["trio_mean"] == pytest.approx(11 / 3, abs=1e-4)
    assert t1b["trio_strict_pass"] is True and t1b["trio_critical_fail"] is False
    assert by_cell[("t3", "D")]["trio_strict_pass"] is False  # 3, 3, 4: one judge >= 3.5

    # Hand-computed deltas: t1 B-A 0.667, D-C 0.333, D-A 1.0; t2 0.333, 0.333, 1.333;
    # t3 B-A 0 (fails: not > 0), D-C 0.333, D-A -0.667 (fails). Each hypothesis right in >= 2 of 3.
    hyp = {h["id"]: h for h in summary["hypotheses"]}
    assert {t: v["delta"] for t, v in hyp["B-A"]["per_task"].items()} == pytest.approx(
        {"t1": 0.6667, "t2": 0.3333, "t3": 0.0}, abs=1e-3
    )
    assert [v["pass"] for v in hyp["B-A"]["per_task"].values()] == [True, True, False]
    assert [v["pass"] for v in hyp["D-C"]["per_task"].values()] == [True, True, True]
    assert [v["pass"] for v in hyp["D-A"]["per_task"].values()] == [True, True, False]
    assert [h["tasks_passing"] for h in summary["hypotheses"]] == [2, 3, 2]
    assert summary["tasks"]["t2"]["D"] == pytest.approx(13 / 3, abs=1e-4)
    assert summary["counts"] == {
        "tasks": 3, "cells": 4, "records": 12, "judgements": 36, "judge_errors": 0, "strict_passes": 7,
    }  # fmt: skip
    assert summary["critical_failures"] == []
    assert summary["verdict"] == "PASS" and code == 0


def test_judges_are_blind_to_model_and_configuration(pilot_dir, tmp_path):
    pilot(pilot_dir, tmp_path, TRIO)
    prompts = (tmp_path / "prompts.log").read_text(encoding="utf-8").split("\n\0\n")
    assert len([p for p in prompts if p.strip()]) == 36
    for p in prompts:
        for hidden in ("acme-small", "acme-large", "multiplier", "baseline", "cell"):
            assert hidden not in p


def test_a_critical_failure_fails_the_pilot(pilot_dir, tmp_path):
    trio = {**TRIO, ("t3", "C"): (1, 1, 5)}  # two of three judges below 2.0
    code, _, summary = pilot(pilot_dir, tmp_path, trio)
    assert summary["critical_failures"] == [{"task_id": "t3", "cell_id": "C"}]
    # t3 C's trio mean is now 7/3, so D-C in t3 is 3.333 - 2.333 = 1.0: every hypothesis still passes
    assert all(h["pass"] for h in summary["hypotheses"])
    assert summary["verdict"] == "FAIL" and code == 1


def test_a_wrong_direction_fails_the_hypothesis(pilot_dir, tmp_path):
    trio = {**TRIO, ("t2", "B"): (3, 3, 3)}  # t2 B-A becomes 0: only 1 of 3 tasks right
    code, _, summary = pilot(pilot_dir, tmp_path, trio)
    assert summary["hypotheses"][0]["tasks_passing"] == 1
    assert summary["reasons"] == ["hypothesis B-A: direction right in 1 of 3 tasks (needs 2)"]
    assert code == 1


def test_bad_configs_are_clear_errors(tmp_path, capsys):
    bad = tmp_path / "pilot.yml"
    bad.write_text("tasks: []\ncells: [{id: A, model: m, configuration: c}]\ntypo: 1\n", encoding="utf-8")
    with pytest.raises(PilotError, match="typo"):
        load_pilot_config(bad)
    assert run(["pilot", str(bad), "--judge", "command:true"]) == 2
    assert "invalid pilot config" in capsys.readouterr().err


def test_missing_response_file_is_named(pilot_dir, tmp_path, capsys):
    (pilot_dir / "responses" / "t2" / "C.md").unlink()
    assert (
        run(
            [
                "pilot",
                str(pilot_dir / "pilot.yml"),
                "--judge",
                "command:true",
                "--output",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "C.md: cannot read" in capsys.readouterr().err
