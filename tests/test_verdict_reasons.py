"""Every verdict says why, in every format: `evalgate check` with scripted judges, its text, JSON,
JSONL and markdown (the markdown is also the job summary, the check run and the PR comment), and
each names the rule that decided."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate.report.load import load_report
from evalgate.report.summary import render_summary
from tests.support.timings import text_without_timings
from tests.test_rubric_packs import (
    KW_DIMS,
    KW_ITEM,
    SR_CRITERIA,
    SR_ITEM,
    check_output,
    judge_spec,
    write_item,
)

ROOT = Path(__file__).resolve().parent.parent


def run_check(
    tmp_path: Path, rubric: str, item: Path, judges: list[str], fmt: str, capsys
) -> tuple[int, str]:
    return check_output(tmp_path, rubric, Path(item.name), judges, capsys, fmt)


def every_format(tmp_path: Path, rubric: str, item: Path, judges: list[str], capsys) -> dict[str, str]:
    """The report in each format; the exit code is the same in all of them (0 for a PASS)."""
    out, codes = {}, set()
    for fmt in ("text", "json", "jsonl", "markdown"):
        code, out[fmt] = run_check(tmp_path, rubric, item, judges, fmt, capsys)
        codes.add(code)
    assert codes == {0 if json.loads(out["json"])["results"][0]["verdict"] == "PASS" else 1}
    return out


def trio_of(tmp_path: Path, means: dict[str, list[int]]) -> list[str]:
    """Three scripted judges, each giving the six knowledge-work dimensions these scores."""
    return [
        judge_spec(tmp_path, name, {"scores": dict(zip(KW_DIMS, scores, strict=True))})
        for name, scores in means.items()
    ]


def test_a_trio_fail_names_its_rule_in_every_format(tmp_path, capsys):
    item = write_item(tmp_path / "item.yml", KW_ITEM)
    # judge means 2.0, 2.5, 5.0: two below 3.0 is the trio FAIL; no dimension fails on its own
    judges = trio_of(tmp_path, {"a": [2] * 6, "b": [3, 2] * 3, "c": [5] * 6})
    out = every_format(tmp_path, "knowledge-work", item, judges, capsys)

    result = json.loads(out["json"])["results"][0]
    assert result["verdict"] == "FAIL"
    assert result["decision"]["decided_by"] == ["min_mean", "strict_pass", "trio_fail"]
    assert "trio FAIL: 2 of 3 judges' means are below 3" in " ".join(result["reasons"])
    assert json.loads(out["jsonl"].splitlines()[0])["decision"] == result["decision"]

    markdown = out["markdown"]
    row = next(line for line in markdown.splitlines() if line.startswith("| `item.yml`"))
    decided = row.split(" | ")[3]
    assert decided.endswith("trio FAIL: 2 of 3 judges &lt; 3")  # not "—": no dimension failed
    assert "Failing dimensions" not in markdown
    assert "- **trio FAIL**: 2 of 3 judges' means are below 3" in markdown

    assert "trio FAIL: 2 of 3 judges' means are below 3" in out["text"]


def test_three_judges_at_3_5_3_5_and_3_0_report_the_trio_mean_3_33(tmp_path, capsys):
    item = write_item(tmp_path / "item.yml", KW_ITEM)
    judges = trio_of(tmp_path, {"a": [4, 3] * 3, "b": [3, 4] * 3, "c": [3] * 6})
    out = every_format(tmp_path, "knowledge-work", item, judges, capsys)

    result = json.loads(out["json"])["results"][0]
    # each dimension's combined score rounds up to 4 or 3 (mean 3.5); the trio's mean is (3.5+3.5+3)/3
    assert result["mean"] == pytest.approx(3.333, abs=1e-3)
    assert result["band"] == "FAIL_WEAK"
    assert result["decision"]["mean_of"] == "judges"
    assert result["verdict"] == "FAIL" and result["decision"]["decided_by"] == ["min_mean"]
    assert result["reasons"][0].startswith("mean: 3.33 is below 3.5 (the mean of 3 judges' means:")
    assert "band FAIL_WEAK" in result["reasons"][0]
    assert "mean 3.33 (3 judges)  FAIL_WEAK" in out["text"]
    row = next(line for line in out["markdown"].splitlines() if line.startswith("| `item.yml`"))
    assert "| 3.33 FAIL\\_WEAK |" in row and "mean 3.33 &lt; 3.5" in row and "3.50" not in row


def test_a_binary_rubric_counts_criteria_met_and_shows_the_unmet_with_evidence(tmp_path, capsys):
    item = write_item(tmp_path / "late-parcel.yml", SR_ITEM)
    spec = {
        "default": 1,
        "scores": {"states_next_step": 0},
        "evidence": {c: "I have refunded EUR 4.50" for c in SR_CRITERIA}
        | {"states_next_step": "you will see it within five days"},
        "reasoning": {"states_next_step": "A timing, not a step the customer can take."},
    }
    judges = [judge_spec(tmp_path, "judge", spec)]
    out = every_format(tmp_path, "support-reply", item, judges, capsys)

    result = json.loads(out["json"])["results"][0]
    assert result["decision"]["criteria"] == {"met": 6, "total": 7}
    assert result["decision"]["failing"] == ["states_next_step"]
    assert result["reasons"] == ["not met: states_next_step"]
    text = out["text"]
    assert "6/7 criteria met" in text and "mean" not in text.splitlines()[0]
    assert "      states_next_step not met\n" in text
    assert 'evidence: "you will see it within five days" (line' in text
    assert "1/5" not in text and "0/5" not in text
    markdown = out["markdown"]
    assert "| 6/7 met |" in markdown and "not met: states\\_next\\_step" in markdown
    assert "- **states\\_next\\_step** not met: A timing" in markdown
    assert "evidence: “you will see it within five days”" in markdown
    # the met criteria are not listed as failing (a score of 1 is the top of a 0-1 scale)
    assert "**addresses\\_question**" not in markdown


def test_a_pass_says_which_rules_it_passed(tmp_path, capsys):
    item = write_item(tmp_path / "item.yml", KW_ITEM)
    judges = trio_of(tmp_path, {"a": [4] * 6, "b": [4] * 6, "c": [5] * 6})
    out = every_format(tmp_path, "knowledge-work", item, judges, capsys)
    result = json.loads(out["json"])["results"][0]
    assert result["verdict"] == "PASS"
    assert result["decision"]["decided_by"] == ["min_mean", "strict_pass", "critical_fail", "trio_fail"]
    head = out["text"].splitlines()[0]
    assert head.startswith("PASS  item.yml  mean 4.33 (3 judges)  PASS_STRONG  · passed: mean 4.33 ≥ 3.5")
    assert "trio strict pass: 3 of 3 judges ≥ 3.5" in head and "no trio FAIL" in head
    row = next(line for line in out["markdown"].splitlines() if line.startswith("| `item.yml`"))
    assert "no critical fail" in row and "trio strict pass: 3 of 3 judges ≥ 3.5" in row


def test_a_results_file_read_back_renders_the_same_reasons(tmp_path, capsys):
    """`evalgate merge` renders from results files: the decision survives the round trip."""
    item = write_item(tmp_path / "item.yml", KW_ITEM)
    judges = trio_of(tmp_path, {"a": [2] * 6, "b": [3, 2] * 3, "c": [5] * 6})
    _, text = run_check(tmp_path, "knowledge-work", item, judges, "json", capsys)
    (tmp_path / "results.json").write_text(text, encoding="utf-8")
    report = load_report(tmp_path / "results.json")
    _, markdown = run_check(tmp_path, "knowledge-work", item, judges, "markdown", capsys)
    assert text_without_timings(render_summary(report)) == text_without_timings(markdown)
