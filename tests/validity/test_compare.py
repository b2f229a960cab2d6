"""`evalgate compare`: both orders, verdicts only when they agree, position-consistency rate."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from evalgate.judging.backends.registry import make_backend
from evalgate.rubric import load_rubric
from evalgate.validity.compare import (
    PairJudgement,
    PairResult,
    compare,
    consistency_rate,
    parse_preference,
    register,
    render_pairwise_prompt,
)
from tests.test_rubric_packs import KW_ITEM, judge_spec, write_item

STRONG = "## Answer\n\nShip Thursday with the rounding change reverted; STRONG-MARK.\n"
WEAK = "## Answer\n\nIt depends on many factors.\n"


def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="evalgate")
    register(parser.add_subparsers(dest="command"), "test")
    args = parser.parse_args(argv)
    code = args.func(args)
    captured = capsys.readouterr()
    run_cli.stderr = captured.err  # type: ignore[attr-defined]  # the last run's stderr, for messages
    return code, captured.out


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(STRONG, encoding="utf-8")
    b.write_text(WEAK, encoding="utf-8")
    return str(a), str(b)


def test_pairwise_prompt_fences_both_responses_and_asks_for_json():
    rubric = load_rubric("knowledge-work")
    text = render_pairwise_prompt(rubric, "first text", "second text", seed=1)
    assert (
        text.index("## Response 1")
        < text.index("first text")
        < text.index("## Response 2")
        < text.index("second text")
    )
    assert '{"preferred": "<1, 2 or tie>"' in text
    assert "- accuracy — Accuracy" in text


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"preferred": "1", "reason": "x"}', "1"),
        ('Thinking... {"preferred": "Response 2"}', "2"),
        ('{"preferred": "tie"}', "tie"),
        ('{"preferred": "maybe"}', None),
        ("no json", None),
    ],
)
def test_parse_preference(reply, expected):
    assert parse_preference(reply) == expected


def test_consistency_rule_by_hand():
    consistent = PairJudgement("j1", "A", "A")
    biased = PairJudgement("j2", "A", "B")  # always "Response 1": A first, then B first
    broken = PairJudgement("j3", "A", None, error="timeout")
    assert (consistent.verdict, biased.verdict, broken.verdict) == ("A", "tie", "tie")
    pair = PairResult("a", "b", (consistent, biased, broken))
    assert pair.verdict == "A"  # one A, two ties
    assert consistency_rate([pair]) == 0.5  # 1 of 2 usable judgements
    assert consistency_rate([]) is None


def test_consistent_judge_prefers_the_strong_item_in_both_orders(tmp_path, capsys):
    # knowledge-work items: same persona, scenario, question and materials; different responses
    items = [
        str(write_item(tmp_path / name, {**KW_ITEM, "response": response}))
        for name, response in (("a.yml", STRONG), ("b.yml", WEAK))
    ]
    judge = judge_spec(tmp_path, "content-judge", {"prefer_containing": "STRONG-MARK"})
    argv = ["compare", *items, "--judge", judge, "--rubric", "knowledge-work", "--format", "json"]
    code, out = run_cli(argv, capsys)
    report = json.loads(out)
    assert code == 0
    (pair,) = report["pairs"]
    assert pair["verdict"] == "A"
    assert pair["judgements"][0]["forward"] == "A" and pair["judgements"][0]["backward"] == "A"
    assert report["position_consistency"] == 1.0


def test_position_biased_judge_gives_a_tie_and_zero_consistency(tmp_path, files, capsys):
    judge = judge_spec(tmp_path, "first-judge", {"prefer": "1"})
    code, out = run_cli(["compare", *files, "--judge", judge, "--format", "json"], capsys)
    report = json.loads(out)
    assert code == 0
    assert report["pairs"][0]["verdict"] == "tie"
    assert report["pairs"][0]["judgements"][0]["consistent"] is False
    assert report["position_consistency"] == 0.0


def test_consistency_over_several_pairs_and_judges(tmp_path, files):
    rubric = load_rubric("research-loop")
    judges = [
        make_backend(judge_spec(tmp_path, "good", {"prefer_containing": "STRONG-MARK"})),
        make_backend(judge_spec(tmp_path, "biased", {"prefer": "2"})),
    ]
    a, b = files
    results = compare([(a, b), (b, a)], rubric, judges)
    assert [p.verdict for p in results] == ["A", "B"]  # the consistent judge decides; the biased one ties
    assert [j.verdict for j in results[0].judgements] == ["A", "tie"]
    assert [j.verdict for j in results[1].judgements] == ["B", "tie"]
    assert consistency_rate(results) == 0.5  # 2 consistent of 4


def test_errors_are_reported_not_raised(tmp_path, files, capsys):
    judge = judge_spec(tmp_path, "broken", {"fail": True})
    code, out = run_cli(["compare", *files, "--judge", judge], capsys)
    assert code == 1
    assert "error:" in out and "position consistency: n/a" in out


def test_usage_errors(tmp_path, files, capsys):
    assert run_cli(["compare", files[0], "--judge", "command:true"], capsys)[0] == 2
    assert run_cli(["compare", *files], capsys)[0] == 2
    missing = str(tmp_path / "missing.md")
    assert run_cli(["compare", files[0], missing, "--judge", "command:true"], capsys)[0] == 2
    assert "missing.md: cannot read" in run_cli.stderr


def _kw_compare(tmp_path, judge: str, pairs: int) -> list[str]:
    """`compare` argv for `pairs` knowledge-work pairs and one judge, JSON out."""
    return [
        "compare",
        *_kw_pairs(tmp_path, pairs),
        "--judge",
        judge,
        "--rubric",
        "knowledge-work",
        "--format",
        "json",
    ]


def _kw_pairs(tmp_path, count: int) -> list[str]:
    """`count` pairs of knowledge-work items, a strong response against a weak one each."""
    paths = []
    for n in range(count):
        for name, response in (("strong", STRONG), ("weak", WEAK)):
            item = write_item(
                tmp_path / f"{name}-{n}.yml", {**KW_ITEM, "response": f"{response}\nPair {n}.\n"}
            )
            paths.append(str(item))
    return paths


def test_each_call_lists_the_criteria_in_its_own_order_and_records_it(tmp_path, capsys):
    judge = judge_spec(tmp_path, "judge", {"prefer_containing": "STRONG-MARK", "criteria": True})
    argv = _kw_compare(tmp_path, judge, 1)
    code, out = run_cli(argv, capsys)
    (judgement,) = json.loads(out)["pairs"][0]["judgements"]
    forward, backward = judgement["criteria_orders"]
    assert sorted(forward) == sorted(backward) and forward != backward  # (B, A) is a second attempt
    assert judgement["criteria"] == [dict.fromkeys(forward, "A"), dict.fromkeys(backward, "A")]
    assert code == 0


def test_position_effect_per_criterion_when_late_criteria_are_ties(tmp_path, capsys):
    # the judge's overall preference is content (STRONG-MARK), but only its first two listed
    # criteria follow it; the rest it calls a tie: agreement 1 at places 1-2, 1/2 below
    judge = judge_spec(tmp_path, "primacy", {"prefer_containing": "STRONG-MARK", "criteria_tie_after": 2})
    argv = _kw_compare(tmp_path, judge, 4)
    _, out = run_cli(argv, capsys)
    effect = json.loads(out)["position_effect"]
    assert effect["varied"] is True
    criteria = {c["criterion"]: c for c in effect["criteria"]}
    assert set(criteria) == {d.id for d in load_rubric("knowledge-work").judged}
    for c in criteria.values():
        assert c["n"] == 8  # 4 pairs x 2 orders
        assert all(p["mean"] == (1.0 if p["position"] <= 2 else 0.5) for p in c["by_position"])
        if {p["position"] <= 2 for p in c["by_position"]} == {True, False}:  # seen early and late
            assert c["slope"] < 0 and c["correlation"] < 0
    text = run_cli(argv[:-2], capsys)[1]
    assert "position effect (agreement with the judge's overall preference by the criterion's place" in text


def test_no_position_effect_when_every_criterion_follows_the_verdict(tmp_path, capsys):
    judge = judge_spec(tmp_path, "steady", {"prefer_containing": "STRONG-MARK", "criteria": True})
    argv = _kw_compare(tmp_path, judge, 3)
    _, out = run_cli(argv, capsys)
    criteria = json.loads(out)["position_effect"]["criteria"]
    assert all(c["correlation"] is None and c["reason"] == "the value never varied" for c in criteria)
    assert all(c["slope"] == 0 for c in criteria if c["slope"] is not None)
