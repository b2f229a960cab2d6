"""`evalgate history show FILE` and the job summary's history section: pass rates, alerts, rubric
health (the protocol's "80%+ of items at 4-5: anchors too loose") and judge-vs-check disagreement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalgate.cli import main
from evalgate.results import DimensionResult, FileResult, JudgeCall, Report, RubricRef, Status, Verdict
from evalgate.validity.history import HistoryRecord, history_records, parse_history
from evalgate.validity.history_view import disagreement_by_run, history_markdown, record_side


def _record(run: int, path: str, mean: float, scores: dict[str, int], **extra: Any) -> dict[str, Any]:
    return {
        "timestamp": f"2026-12-0{1 + run // 10}T10:{run % 60:02d}:00Z",
        "path": path,
        "rubric": "research-loop",
        "rubric_version": extra.pop("version", "v1"),
        "verdict": "PASS",
        "mean": mean,
        "scores": scores,
        "run": str(run),
        **extra,
    }


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _show(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str, str]:
    code = main(["history", "show", str(path), *options])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_dimension_with_80_percent_at_4_or_5_is_named_too_loose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # loose: 4 of 5 items at 4-5 (80%, the protocol's line); tight: 3 of 5 (60%)
    loose = [5, 4, 4, 5, 2]
    tight = [5, 4, 3, 2, 4]
    records = [
        _record(1, f"item-{i}.md", 4.0, {"loose": a, "tight": b})
        for i, (a, b) in enumerate(zip(loose, tight, strict=True))
    ]
    code, out, err = _show(_write(tmp_path, records), capsys)

    assert code == 0 and err == ""
    assert "loose: 4 of 5 items (80.0%) score 4-5: anchors too loose" in out
    assert "tight" in out and "tight: 3 of 5" not in out
    assert out.count("anchors too loose") == 1
    assert "  loose  1:0 2:1 3:0 4:2 5:2  top two 80%" in out


def test_just_below_the_line_is_not_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = [5] * 7 + [3] * 2  # 7 of 9 = 77.8%
    records = [_record(1, f"i{n}.md", 4.0, {"spec": s}) for n, s in enumerate(scores)]
    _, out, _ = _show(_write(tmp_path, records), capsys)
    assert "anchors too loose" not in out and "top two 78%" in out


def test_show_prints_pass_rates_per_version_and_alerts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        _record(1, "a.md", 4.6, {"spec": 5}, version="v0"),
        _record(2, "a.md", 4.6, {"spec": 5}),
        _record(3, "a.md", 4.2, {"spec": 4}),
        _record(4, "a.md", 3.9, {"spec": 2}, failed=["spec"], verdict="FAIL"),
    ]
    code, out, _ = _show(_write(tmp_path, records), capsys)
    assert code == 0
    assert "4 record(s) over 4 run(s)" in out
    assert "pass rates, research-loop@v0:\n  spec  1/1  100%" in out
    assert "pass rates, research-loop@v1:\n  spec  2/3  67%" in out
    assert "alert: a.md: mean fell by 0.70 over the last 3 (4.60 -> 4.20 -> 3.90)" in out
    # rubric health is over the current version only (3 records), not the old anchors
    assert "research-loop@v1:\nrubric health" in out and "spec  1:0 2:1 3:0 4:1 5:1" in out


def test_show_reports_no_alert_and_reads_bad_lines_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, [_record(1, "a.md", 4.0, {"spec": 4})])
    with path.open("a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    code, out, err = _show(path, capsys)
    assert code == 0 and "no trend alert" in out
    assert f"{path}:2: skipped history line" in err


def test_show_on_a_missing_file_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _show(tmp_path / "absent.jsonl", capsys)
    assert code == 2 and out == ""
    assert "absent.jsonl" in err and "Traceback" not in err


def test_disagreement_is_reported_per_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agree = {"judged": ["j"], "failed": [], "mechanical": {"j": "m"}}
    judge_only = {"judged": ["j"], "failed": ["j"], "mechanical": {"j": "m"}}
    records = [
        _record(1, "a.md", 4.0, {"m": 4, "j": 4}, **agree),
        _record(1, "b.md", 4.0, {"m": 4, "j": 2}, **judge_only),
        _record(2, "a.md", 4.0, {"m": 4, "j": 4}, **agree),
        _record(2, "b.md", 4.0, {"m": 4}),  # no judged score: not compared
    ]
    parsed = parse_history("".join(json.dumps(r) + "\n" for r in records), "x")
    assert [(label, d.disagreeing, d.compared) for label, d in disagreement_by_run(parsed)] == [
        ("12-01 10:01 #1", 1, 2),
        ("12-01 10:02 #2", 0, 1),
    ]
    _, out, _ = _show(_write(tmp_path, records), capsys)
    assert "judge vs mechanical disagreement per run: 12-01 10:01 #1 1 of 2 files (50%)" in out


def test_record_sides_follow_the_gate_failures() -> None:
    scores = {"m": 1, "j": 4, "s": 1}
    linked = HistoryRecord(
        "t", "a.md", "r", "v", "FAIL", 3.0, scores, ("m",), judged=("j",), mechanical=(("j", "m"),)
    )
    assert record_side(linked) == (True, False)
    # `s` fails too, but no judged dimension is also computed by it: only the linked pair counts
    unlinked = HistoryRecord(
        "t", "a.md", "r", "v", "FAIL", 3.0, scores, ("s",), judged=("j",), mechanical=(("j", "m"),)
    )
    assert record_side(unlinked) == (False, False)
    assert (
        record_side(HistoryRecord("t", "a.md", "r", "v", "FAIL", 3.0, scores, ("m",), judged=("j",))) is None
    )


def test_records_carry_the_judged_dimensions_run_and_commit() -> None:
    dims = (
        DimensionResult("m", "deterministic", Status.SCORED, score=4),
        DimensionResult("j", "judge", Status.SCORED, score=5),
        DimensionResult("k", "judge", Status.SKIPPED),
    )
    report = Report(RubricRef("r", "v"), (FileResult("a.md", Verdict.PASS, mean=4.5, dimensions=dims),))
    (record,) = history_records(report, run="77", commit="c" * 40)
    assert record.judged == ("j",) and record.run == "77" and record.commit == "c" * 40
    assert HistoryRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    # a record written before these fields existed reads as before
    old = HistoryRecord.from_json(
        {k: v for k, v in record.to_json().items() if k not in ("judged", "run", "commit")}
    )
    assert (old.judged, old.run, old.commit) == ((), None, None)


def test_the_summary_section_waits_for_a_second_run() -> None:
    one = parse_history(json.dumps(_record(1, "a.md", 4.0, {"spec": 4})) + "\n", "x")
    assert history_markdown(one) == ""
    two = parse_history("".join(json.dumps(_record(n, "a.md", 4.0, {"spec": 4})) + "\n" for n in (1, 2)), "x")
    section = history_markdown(two)
    assert section.startswith("### Score history") and "```mermaid" in section
    assert '"12-01 10:01 #1", "12-01 10:02 #2"' in section
    assert "| spec | 2/2 | 100% |" in section and "alert" not in section
    assert "**spec**: 2 of 2 items (100.0%) score 4-5: anchors too loose" in section


def test_a_hand_edited_run_id_cannot_leave_the_chart_block() -> None:
    hostile = [_record(1, "a.md", 4.0, {"spec": 4}), _record(2, "a.md", 4.0, {"spec": 4})]
    hostile[1]["run"] = 'x"]\n```\n<img src=x>'
    section = history_markdown(parse_history("".join(json.dumps(r) + "\n" for r in hostile), "x"))
    chart = section.split("```mermaid\n", 1)[1].split("\n```", 1)[0]
    assert '"12-01 10:02 #ximg srcx"' in chart and "<img" not in section
    assert section.count("```") == 2  # the chart's own fence, opened and closed


def test_a_prompt_version_change_starts_a_new_series_and_the_chart_marks_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the mean falls 4.8 -> 3.6 across an edit of the judge template: that is the prompt, not a trend
    records = [
        _record(1, "a.md", 4.8, {"spec": 5}, prompt_version="aaaaaaaaaaaa"),
        _record(2, "a.md", 4.7, {"spec": 5}, prompt_version="aaaaaaaaaaaa"),
        _record(3, "a.md", 3.7, {"spec": 4}, prompt_version="bbbbbbbbbbbb"),
        _record(4, "a.md", 3.6, {"spec": 4}, prompt_version="bbbbbbbbbbbb"),
    ]
    path = _write(tmp_path, records)
    code, out, _ = _show(path, capsys)
    assert code == 0
    assert "pass rates, research-loop@v1 prompt aaaaaaaaaaaa:\n  spec  2/2  100%" in out
    assert "pass rates, research-loop@v1 prompt bbbbbbbbbbbb:\n  spec  2/2  100%" in out
    assert (
        "a new series starts at 12-01 10:03 #3: research-loop@v1 prompt aaaaaaaaaaaa -> "
        "research-loop@v1 prompt bbbbbbbbbbbb"
    ) in out
    assert "no trend alert" in out  # 4.7 -> 3.7 -> 3.6 crosses the break; within the series it is 0.1

    markdown = history_markdown(parse_history(path.read_text(encoding="utf-8"), "h"))
    assert 'x-axis ["12-01 10:01 #1", "12-01 10:02 #2", "▶ 12-01 10:03 #3", "12-01 10:04 #4"]' in markdown
    assert "▶ marks a new series (trends and pass rates start again there)" in markdown
    assert "research-loop@v1 prompt bbbbbbbbbbbb" in markdown  # the current series' table


def test_the_same_fall_within_one_series_is_an_alert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        _record(n, "a.md", mean, {"spec": 5}, prompt_version="aaaaaaaaaaaa")
        for n, mean in enumerate((4.8, 4.7, 3.7, 3.6), 1)
    ]
    _, out, _ = _show(_write(tmp_path, records), capsys)
    assert "alert: a.md: mean fell by 1.10 over the last 3 (4.70 -> 3.70 -> 3.60)" in out
    assert "new series" not in out


def test_records_carry_the_prompt_version_and_each_judges_criteria_order() -> None:
    dims = (DimensionResult("j", "judge", Status.SCORED, score=5),)
    judges = (
        JudgeCall("command", "a", criteria_order=("j", "k")),
        JudgeCall("command", "b", criteria_order=("k", "j")),
    )
    report = Report(
        RubricRef("r", "v", "cccccccccccc"),
        (FileResult("a.md", Verdict.PASS, mean=5.0, dimensions=dims, judges=judges),),
    )
    (record,) = history_records(report)
    assert record.prompt_version == "cccccccccccc" and record.orders == (("j", "k"), ("k", "j"))
    assert record.series == "r@v prompt cccccccccccc"
    assert HistoryRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    with pytest.raises(ValueError, match="'orders' must be"):
        HistoryRecord.from_json({**record.to_json(), "orders": "j,k"})
