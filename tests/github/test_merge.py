"""`evalgate merge`: shards run with `check --shard I/N` merge into what one unsharded run reports."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evalgate.cli import main
from evalgate.github.merge import MergeError, merge_reports
from evalgate.judgement import Evidence, JudgeScore
from evalgate.report.jsonfile import render_json, render_jsonl
from evalgate.report.load import ReportLoadError, load_report
from evalgate.results import (
    DimensionResult,
    FileResult,
    Finding,
    JudgeCall,
    Report,
    RubricRef,
    Status,
    Verdict,
)
from tests.support.timings import TIMING_FIELDS

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "gold" / "research-loop"
SCRIPTED_JUDGE = ROOT / "tests" / "fixtures" / "canary" / "scripted_judge.py"
JUDGED = (
    "executive_summary_first_sentence",
    "claim_source_accuracy",
    "epistemic_labeling",
    "key_finding_specificity",
)


def without_timings(value: Any) -> Any:
    """A report's JSON with every timing field removed, results sorted by path."""
    if isinstance(value, dict):
        out = {k: without_timings(v) for k, v in value.items() if k not in TIMING_FIELDS}
        if isinstance(out.get("results"), list):
            out["results"] = sorted(out["results"], key=lambda r: r["path"])
        return out
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def _documents(base: Path) -> Path:
    """The gold research-loop items plus small documents written here (one unreadable)."""
    docs = base / "docs"
    shutil.copytree(GOLD, docs / "gold")
    (docs / "notes").mkdir()
    for name, body in {
        "stub.md": "# Stub\n\n## Findings\n\nlow-marker: nothing yet.\n",
        "short.md": "# Short\n\n## Executive Summary\n\nCaching halves CI time in our runs.\n",
        "sources.md": "# Sources\n\n## Sources\n\n- [x] [A](https://example.org/a)\n- [ ] B\n",
    }.items():
        (docs / "notes" / name).write_text(body, encoding="utf-8")
    (docs / "notes" / "latin1.md").write_bytes(b"# Caf\xe9\n")  # not UTF-8: an ERROR result
    return docs


def _judges(base: Path) -> list[str]:
    """Two scripted command judges (the second scores one point higher), so agreement is computed."""
    scores = base / "scores.json"
    low, usual = dict.fromkeys(JUDGED, 2), dict.fromkeys(JUDGED, 4)
    scores.write_text(json.dumps({"low-marker": low, "*": usual}), "utf-8")
    judge = "command:" + shlex.join([sys.executable, str(SCRIPTED_JUDGE), str(scores)])
    return ["--judge", judge, "--judge", f"{judge} 1"]


def _check(args: list[str], output: Path) -> int:
    return main(["check", *args, "--no-cache", "--format", "json", "--output", str(output)])


def _shards_and_single(target: str, options: list[str], out: Path, count: int = 3) -> tuple[list[Path], Path]:
    shards = [out / f"shard-{i}.json" for i in range(1, count + 1)]
    for i, shard in enumerate(shards, 1):
        _check([target, *options, "--shard", f"{i}/{count}"], shard)
    single = out / "single.json"
    _check([target, *options], single)
    return shards, single


def test_merged_shards_equal_a_single_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _documents(tmp_path)
    shards, single = _shards_and_single("docs", _judges(tmp_path), tmp_path)

    sizes = [len(json.loads(s.read_text())["results"]) for s in shards]
    assert sum(sizes) == 10 and sum(1 for n in sizes if n) >= 2  # a real split, every file once

    merged = tmp_path / "merged.json"
    code = main(["merge", *map(str, shards), "--format", "json", "--output", str(merged)])
    expected = json.loads(single.read_text())
    got = json.loads(merged.read_text())
    assert without_timings(got) == without_timings(expected)
    assert [r["path"] for r in got["results"]] == sorted(r["path"] for r in got["results"])
    assert code == 1 and got["summary"]["verdict"] == "ERROR"  # latin1.md could not be read
    assert got["agreement"]["epistemic_labeling"]["raters"] == 2  # recomputed over all shards
    assert got["summary"]["judge_calls"] == expected["summary"]["judge_calls"] == 18


def test_merged_corpus_shards_equal_a_single_run(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(corpus_dir.parent)
    shards, single = _shards_and_single(corpus_dir.name, [], tmp_path)
    merged = tmp_path / "merged.jsonl"
    main(["merge", *map(str, shards), "--format", "jsonl", "--output", str(merged)])
    lines = [json.loads(line) for line in merged.read_text().splitlines()]
    expected = json.loads(single.read_text())
    assert len(lines) == len(expected["results"]) == 453
    rubric = expected["rubric"]
    assert without_timings({"results": lines}) == without_timings(
        {"results": [{"rubric": rubric, **r} for r in expected["results"]]}
    )


# ---- merge rules, on reports built here ------------------------------------------------------------


def _result(path: str, verdict: Verdict = Verdict.PASS, score: int = 4) -> FileResult:
    dims = (
        DimensionResult("section_presence", "deterministic", Status.SCORED, score=score),
        DimensionResult(
            "epistemic_labeling",
            "judge",
            Status.SCORED,
            score=score,
            evidence=(Evidence("a quote", True, 3),),
            reasoning="labels used",
            judge_scores=(JudgeScore("openai:a", score), JudgeScore("openai:b", None, "timed out")),
        ),
    )
    call = JudgeCall("openai", "a", latency_ms=12.5, tokens_in=100, tokens_out=20, cost_usd=0.001, calls=1)
    return FileResult(path, verdict, mean=float(score), dimensions=dims, seed=7, judges=(call,))


RUBRIC = RubricRef("research-loop", "v1")


def _report(
    *results: FileResult, rubric: RubricRef = RUBRIC, judges: tuple[str, ...] = ("openai:a",)
) -> Report:
    return Report(rubric=rubric, results=results, judges=judges, notes=("a note",))


def _write(path: Path, report: Report) -> str:
    path.write_text(render_json(report), encoding="utf-8")
    return str(path)


def test_different_rubric_versions_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _write(tmp_path / "one.json", _report(_result("a.md")))
    two = _write(tmp_path / "two.json", _report(_result("b.md"), rubric=RubricRef("research-loop", "v2")))
    assert main(["merge", one, two]) == 2
    err = capsys.readouterr().err
    assert "two.json" in err and "version v2" in err and "version v1" in err


def test_different_prompt_versions_are_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _write(
        tmp_path / "one.json", _report(_result("a.md"), rubric=RubricRef("research-loop", "v1", "p1"))
    )
    two = _write(
        tmp_path / "two.json", _report(_result("b.md"), rubric=RubricRef("research-loop", "v1", "p2"))
    )
    assert main(["merge", one, two]) == 2
    err = capsys.readouterr().err
    assert "version v1, prompt p2" in err and "version v1, prompt p1" in err


def test_a_path_in_two_shards_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _write(tmp_path / "one.json", _report(_result("a.md"), _result("b.md")))
    assert main(["merge", one, one]) == 2
    assert "a.md is in both" in capsys.readouterr().err


def test_different_judges_are_refused() -> None:
    with pytest.raises(MergeError, match="same judges"):
        merge_reports([_report(_result("a.md")), _report(_result("b.md"), judges=("copilot",))])


def test_a_target_problem_every_shard_reports_is_kept_once() -> None:
    problem = FileResult("missing/*.md", Verdict.ERROR, error="glob matched no files")
    merged = merge_reports([_report(problem, _result("b.md")), _report(problem, _result("a.md"))])
    assert [r.path for r in merged.results] == ["a.md", "b.md", "missing/*.md"]
    assert merged.notes == ("a note",)


def test_exit_code_is_the_merged_verdict(tmp_path: Path) -> None:
    passing = _write(tmp_path / "p.json", _report(_result("a.md")))
    failing = _write(tmp_path / "f.json", _report(_result("b.md", Verdict.FAIL, score=2)))
    assert main(["merge", passing, "--output", str(tmp_path / "out.txt")]) == 0
    assert main(["merge", passing, failing, "--format", "markdown", "--output", str(tmp_path / "s.md")]) == 1
    summary = (tmp_path / "s.md").read_text()
    assert "b.md" in summary and "a.md" in summary


def test_nothing_to_merge_is_an_error() -> None:
    with pytest.raises(MergeError, match="nothing to merge"):
        merge_reports([])


# ---- load_report -----------------------------------------------------------------------------------


def test_json_and_jsonl_load_back_to_the_same_report(tmp_path: Path) -> None:
    finding = Finding(12, "Key Finding 3 has no matching Evidence Map row", end_line=14)
    bad = replace(_result("b.md", Verdict.FAIL, 2), hard_failures=("x",), band="low", warnings=("w",))
    bad = replace(bad, dimensions=(replace(bad.dimensions[0], findings=(finding,)), *bad.dimensions[1:]))
    report = replace(_report(_result("a.md"), bad), agreement={"epistemic_labeling": {"raters": 2}})
    (tmp_path / "r.json").write_text(render_json(report), encoding="utf-8")
    (tmp_path / "r.jsonl").write_text(render_jsonl(report), encoding="utf-8")
    assert load_report(tmp_path / "r.json") == report
    assert load_report(tmp_path / "r.jsonl").results == report.results


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty JSONL"),
        (b"\xff\xfe{", "cannot read"),
        (b"[1, 2]", "not an evalgate results file"),
        (
            b'{"rubric": {"id": "r", "version": "v"}, "results": [{"path": "a.md"}]}',
            "results[0].verdict: missing",
        ),
        (
            b'{"rubric": {"id": "r", "version": "v"}, "results": [{"path": "a.md", "verdict": "PASS",'
            b' "dimensions": [{"id": "d", "kind": "judge", "status": "scored", "score": "4"}]}]}',
            'results[0].dimensions[0].score: expected an integer or null, got the string "4"',
        ),
        (b'{"rubric": {"id": "r"}, "results": []}', "rubric.version: missing"),
        (b'{"path": "a.md"}\nnot json\n', "line 1: rubric: expected an object, got null"),
    ],
)
def test_a_damaged_results_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "shard.json"
    path.write_bytes(content)
    with pytest.raises(ReportLoadError, match=r"shard\.json") as caught:
        load_report(path)
    assert message in str(caught.value)
    assert main(["merge", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


# ---- publishing ------------------------------------------------------------------------------------


def test_merge_publishes_one_check_run(
    github_contract: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.github_api import FakeGitHub

    one = _write(tmp_path / "1.json", _report(_result("a.md")))
    two = _write(tmp_path / "2.json", _report(_result("b.md", Verdict.FAIL, score=2)))
    with FakeGitHub(github_contract) as fake:
        for name, value in {
            "GITHUB_TOKEN": "ghs_merge-token",
            "GITHUB_API_URL": fake.url,
            "GITHUB_REPOSITORY": "octo/docs",
            "GITHUB_SHA": "f" * 40,
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "GITHUB_OUTPUT": str(tmp_path / "output"),
        }.items():
            monkeypatch.setenv(name, value)
        merged = str(tmp_path / "merged.json")
        code = main(
            ["merge", one, two, "--format", "json", "--output", merged, "--publish", "--head-sha", "a" * 40]
        )
        assert fake.violations == []
        [run] = fake.check_runs.values()
    assert code == 1 and run["head_sha"] == "a" * 40 and run["conclusion"] == "failure"
    assert "evaluated=2" in (tmp_path / "output").read_text()
    assert "b.md" in (tmp_path / "summary.md").read_text()
    assert json.loads(Path(merged).read_text())["summary"]["evaluated"] == 2
    assert capsys.readouterr().out.startswith("::add-mask::ghs_merge-token\n")


def test_a_missing_or_repeated_shard_is_refused() -> None:
    one, three = (replace(_report(_result(p)), shard=s) for p, s in (("a.md", "1/3"), ("c.md", "3/3")))
    with pytest.raises(MergeError, match="missing shard result"):
        merge_reports([one, three])
    with pytest.raises(MergeError, match="given twice"):
        merge_reports([one, one, three])
    two = replace(_report(_result("b.md")), shard="2/3")
    assert [r.path for r in merge_reports([three, one, two]).results] == ["a.md", "b.md", "c.md"]
    with pytest.raises(MergeError, match="different counts"):
        merge_reports([one, replace(two, shard="2/2")])
