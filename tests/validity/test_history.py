"""History: JSONL records, concurrent appends, corrupt lines, pass rates per version, trends, chart."""

from __future__ import annotations

import json
import multiprocessing
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from evalgate.results import DimensionResult, FileResult, JudgeCall, Report, RubricRef, Status, Verdict
from evalgate.validity.history import (
    ALL_FILES,
    HistoryRecord,
    HistoryWarning,
    append_history,
    load_history,
    mermaid_trend,
    pass_rates,
    trend_alerts,
)

T0 = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def _result(path: str, mean: float, **scores: int | None) -> FileResult:
    dims = tuple(
        DimensionResult(d, "judge", Status.SCORED if s is not None else Status.SKIPPED, score=s)
        for d, s in scores.items()
    )
    verdict = Verdict.PASS if all(s is None or s >= 3 for s in scores.values()) else Verdict.FAIL
    return FileResult(path, verdict, mean=mean, dimensions=dims, judges=(JudgeCall("replay", "m"),))


def _report(*results: FileResult, version: str = "v1") -> Report:
    return Report(RubricRef("research-loop", version), results, judges=("replay:x",))


def test_append_writes_one_record_per_evaluated_file(tmp_path: Path) -> None:
    history = tmp_path / "deep" / "history.jsonl"
    report = _report(
        _result("a.md", 4.5, spec=5, acc=4),
        FileResult("broken.md", Verdict.ERROR, error="cannot read"),
    )
    assert append_history(report, history, now=T0) == 1
    (line,) = history.read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    assert record["timestamp"] == "2026-12-01T09:30:00Z"
    assert (record["path"], record["rubric"], record["rubric_version"]) == ("a.md", "research-loop", "v1")
    assert record["verdict"] == "PASS" and record["mean"] == 4.5
    assert record["scores"] == {"spec": 5, "acc": 4} and record["judges"] == ["replay:m"]
    assert load_history(history)[0] == HistoryRecord.from_json(record)


def test_a_missing_history_is_empty(tmp_path: Path) -> None:
    assert load_history(tmp_path / "none.jsonl") == []


def test_corrupt_lines_are_skipped_with_a_warning(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    append_history(_report(_result("a.md", 4.0, spec=4)), history, now=T0)
    with history.open("a", encoding="utf-8") as handle:
        handle.write('{"timestamp": "2026-12-01T10:00:00Z", "path": "b.md"\n')  # truncated write
        handle.write('["not", "a", "record"]\n\n')
    append_history(_report(_result("c.md", 3.0, spec=3)), history, now=T0)
    with pytest.warns(HistoryWarning) as caught:
        records = load_history(history)
    assert [r.path for r in records] == ["a.md", "c.md"]
    assert [str(w.message).split(": ")[0] for w in caught] == [f"{history}:2", f"{history}:3"]


def _append_many(args: tuple[str, str, int]) -> None:
    history, path, count = args
    for i in range(count):
        append_history(
            _report(_result(path, 4.0, spec=4, long_dimension_name_to_make_lines_long=i % 5 + 1)), history
        )


def test_concurrent_appends_never_interleave_lines(tmp_path: Path) -> None:
    history = str(tmp_path / "h.jsonl")
    with multiprocessing.get_context("fork").Pool(4) as pool:
        # long paths make each line ~10 KB, past any stdio buffer that could split a write
        pool.map(_append_many, [(history, f"writer{n}-" + "x" * 10_000, 50) for n in range(4)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", HistoryWarning)  # a torn line would warn: make it fail
        records = load_history(history)
    assert len(records) == 200
    assert {r.path[:7] for r in records} == {f"writer{n}" for n in range(4)}


def test_pass_rates_are_kept_per_rubric_version(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    append_history(_report(_result("a.md", 4.0, spec=4, acc=2)), history, now=T0)
    append_history(_report(_result("b.md", 4.0, spec=2, acc=5)), history, now=T0)
    # version 2 adds a criterion: the old table stays as it was, the new one starts its own series
    append_history(_report(_result("a.md", 4.0, spec=4, acc=4, new=1), version="v2"), history, now=T0)
    rates = pass_rates(load_history(history))
    assert list(rates) == ["research-loop@v1", "research-loop@v2"]
    assert "new" not in rates["research-loop@v1"]
    assert (rates["research-loop@v1"]["spec"].passed, rates["research-loop@v1"]["spec"].total) == (1, 2)
    assert rates["research-loop@v1"]["acc"].rate == 0.5
    assert rates["research-loop@v2"]["new"].rate == 0.0 and rates["research-loop@v2"]["spec"].rate == 1.0


def test_skipped_criteria_do_not_count_toward_pass_rates(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    append_history(_report(_result("a.md", 4.0, spec=4, judged=None)), history, now=T0)
    rates = pass_rates(load_history(history))["research-loop@v1"]
    assert set(rates) == {"spec"}


def _series(history: Path, path: str, means: list[float]) -> None:
    for i, mean in enumerate(means):
        append_history(_report(_result(path, mean, spec=4)), history, now=T0 + timedelta(hours=i))


def test_trend_alert_when_the_mean_falls_half_a_point_over_three_items(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    _series(history, "falling.md", [4.8, 4.6, 4.3, 4.1])  # last three: 4.6 -> 4.1 = 0.5
    records = load_history(history)
    alerts = trend_alerts(records)
    assert [a.subject for a in alerts] == ["falling.md", ALL_FILES]
    assert alerts[0].means == (4.6, 4.3, 4.1)
    assert alerts[0].message == "falling.md: mean fell by 0.50 over the last 3 (4.60 -> 4.30 -> 4.10)"


def test_no_alert_for_a_smaller_fall_a_rise_or_too_few_items(tmp_path: Path) -> None:
    for name, means in (("small", [4.5, 4.3, 4.1]), ("rising", [3.0, 4.0, 4.5]), ("short", [5.0, 3.0])):
        history = tmp_path / f"{name}.jsonl"
        _series(history, f"{name}.md", means)
        assert trend_alerts(load_history(history)) == [], name


def test_mermaid_trend_is_an_xychart_of_the_mean_per_run(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    for i, means in enumerate(([4.0, 5.0], [3.0, 4.0])):
        report = _report(*(_result(f"f{n}.md", m, spec=4) for n, m in enumerate(means)))
        append_history(report, history, now=T0 + timedelta(days=i))
    chart = mermaid_trend(load_history(history))
    assert chart == (
        "```mermaid\n"
        "xychart-beta\n"
        '    title "Mean score per run"\n'
        '    x-axis ["12-01 09:30", "12-02 09:30"]\n'
        '    y-axis "mean score" 1 --> 5\n'
        "    line [4.50, 3.50]\n"
        "```\n"
    )
    assert mermaid_trend([]) == ""


def test_mermaid_trend_keeps_the_last_runs_only(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    _series(history, "a.md", [1.0, 2.0, 3.0, 4.0])
    assert "line [3.00, 4.00]" in mermaid_trend(load_history(history), last=2)


def test_from_json_rejects_records_missing_keys() -> None:
    with pytest.raises(ValueError, match="rubric_version"):
        HistoryRecord.from_json({"timestamp": "t", "path": "p", "rubric": "r", "verdict": "PASS"})
    with pytest.raises(ValueError, match="scores"):
        HistoryRecord.from_json(
            {
                "timestamp": "t",
                "path": "p",
                "rubric": "r",
                "rubric_version": "v",
                "verdict": "PASS",
                "scores": [],
            }
        )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("judged", 3),  # not iterable: was a TypeError and a stack trace from `history show`
        ("failed", "section_presence"),  # a string: was read letter by letter as failed dimensions
        ("judges", {"copilot": 1}),
        ("failed", [1]),
        ("run", {"id": 1}),
    ],
)
def test_a_record_with_a_mistyped_optional_field_is_skipped_by_name(
    tmp_path: Path, field: str, value: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalgate.cli import main

    history = tmp_path / "h.jsonl"
    append_history(_report(_result("a.md", 4.0, spec=4)), history, now=T0)
    good = json.loads(history.read_text(encoding="utf-8"))
    with history.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**good, "path": "b.md", field: value}) + "\n")
    with pytest.warns(HistoryWarning, match=rf"{history}:2: skipped history line: '{field}' must be"):
        assert [r.path for r in load_history(history)] == ["a.md"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HistoryWarning)
        assert main(["history", "show", str(history)]) == 0
    assert "1 record(s)" in capsys.readouterr().out
