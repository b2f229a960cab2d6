"""The gate applies the rubric's policy; the judge's own claim never decides."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evalgate.gate import decide, error_result
from evalgate.judgement import JudgeScore
from evalgate.judging.ensemble import round_half_up
from evalgate.results import DimensionResult, JudgeCall, Rule, Status, Verdict
from evalgate.rubric import load_rubric


@pytest.fixture(scope="module")
def rubric():
    return load_rubric("research-loop")


def dims(rubric, **scores):
    """Every dimension of the rubric, scored 5 unless given (None = skipped, 'error' = error)."""
    out = []
    for d in rubric.dimensions:
        value = scores.get(d.id, 5)
        if value is None:
            out.append(DimensionResult(d.id, d.kind, Status.SKIPPED, hard_fail=d.hard_fail))
        elif value == "error":
            out.append(DimensionResult(d.id, d.kind, Status.ERROR, error="timed out", hard_fail=d.hard_fail))
        else:
            out.append(DimensionResult(d.id, d.kind, Status.SCORED, score=value, hard_fail=d.hard_fail))
    return out


def test_all_fives_pass(rubric):
    r = decide("a.md", dims(rubric), rubric)
    assert r.verdict is Verdict.PASS
    assert r.mean == 5
    assert r.hard_failures == ()


def test_hard_fail_dimension_below_three_fails_even_with_high_mean(rubric):
    r = decide("a.md", dims(rubric, acronym_expansion=2), rubric)
    assert r.verdict is Verdict.FAIL
    assert r.hard_failures == ("acronym_expansion",)
    assert r.mean > 4


def test_any_score_of_one_fails(rubric):
    r = decide("a.md", dims(rubric, source_consultation=1), rubric)
    assert r.verdict is Verdict.FAIL
    assert r.hard_failures == ()
    assert any("source_consultation scored 1" in reason for reason in r.reasons)


def test_each_dimension_needs_three(rubric):
    r = decide("a.md", dims(rubric, key_finding_word_count=2), rubric)
    assert r.verdict is Verdict.FAIL


def test_mean_needs_four(rubric):
    # every dimension >= 3 but mean below 4
    r = decide("a.md", dims(rubric, **{d.id: 3 for d in rubric.dimensions[:6]}), rubric)
    assert r.mean < 4
    assert r.verdict is Verdict.FAIL
    assert any(reason.startswith("mean") for reason in r.reasons)


def test_mean_exactly_four_passes(rubric):
    r = decide(
        "a.md",
        dims(
            rubric,
            section_presence=3,
            source_consultation=4,
            epistemic_labeling=4,
            claim_source_accuracy=4,
            key_finding_specificity=4,
            acronym_expansion=4,
            evidence_map_coverage=4,
            key_finding_word_count=4,
            executive_summary_first_sentence=5,
        ),
        rubric,
    )
    assert r.mean == pytest.approx(4.0)
    assert r.verdict is Verdict.PASS


def test_skipped_dimensions_are_left_out_and_reported(rubric):
    skipped = {d.id: None for d in rubric.judged}
    r = decide("a.md", dims(rubric, **skipped), rubric)
    assert r.verdict is Verdict.PASS
    assert set(r.skipped) == {d.id for d in rubric.judged}
    assert r.to_json()["skipped"] == [d.id for d in rubric.judged]


def test_judge_error_fails_by_default_and_can_be_skipped(rubric):
    broken = dims(rubric, claim_source_accuracy="error")
    assert decide("a.md", broken, rubric).verdict is Verdict.FAIL
    lenient = decide("a.md", broken, rubric, on_judge_error="skip")
    assert lenient.verdict is Verdict.PASS
    assert "claim_source_accuracy" in lenient.skipped


def test_deterministic_error_is_a_tool_error(rubric):
    r = decide("a.md", dims(rubric, section_presence="error"), rubric)
    assert r.verdict is Verdict.ERROR


def test_judge_overall_claim_does_not_decide(rubric):
    claimed_pass = JudgeCall(backend="replay", model="m", overall_claimed="PASS")
    r = decide("a.md", dims(rubric, executive_summary_first_sentence=1), rubric, judges=[claimed_pass])
    assert r.verdict is Verdict.FAIL
    claimed_fail = JudgeCall(backend="replay", model="m", overall_claimed="FAIL")
    assert decide("a.md", dims(rubric), rubric, judges=[claimed_fail]).verdict is Verdict.PASS


def test_nothing_evaluated_is_not_a_pass(rubric):
    r = decide("a.md", dims(rubric, **{d.id: None for d in rubric.dimensions}), rubric)
    assert r.verdict is Verdict.FAIL


def test_error_result_carries_message():
    r = error_result("x.md", "not UTF-8 at byte 3")
    assert r.verdict is Verdict.ERROR and r.error == "not UTF-8 at byte 3"


def test_a_pass_records_every_rule_it_passed(rubric):
    r = decide("a.md", dims(rubric, section_presence=4), rubric)
    assert r.decision is not None and not r.decision.failed
    assert [(c.rule, c.brief) for c in r.decision.decided_by] == [
        (Rule.HARD_FAIL, "no hard fail"),
        (Rule.FAIL_ON_SCORE, "none ≤ 1"),
        (Rule.MIN_EACH, "all ≥ 3"),
        (Rule.MIN_MEAN, "mean 4.89 ≥ 4"),
    ]


def test_each_failed_rule_names_itself_and_its_dimension(rubric):
    r = decide(
        "a.md", dims(rubric, acronym_expansion=2, source_consultation=1, key_finding_word_count=2), rubric
    )
    assert r.reasons == (
        "hard fail: acronym_expansion scored 2, below 3",
        "any 1: source_consultation scored 1",
        "floor: key_finding_word_count scored 2 (each dimension needs 3)",
        "mean: 3.89 is below 4",
    )
    assert r.decision is not None
    assert [c.dimension for c in r.decision.failed] == [
        "acronym_expansion",
        "source_consultation",
        "key_finding_word_count",
        None,
    ]
    assert {d.id for d in r.failing_dimensions} == set(r.decision.failing)


def test_errors_name_the_rule_by_who_could_not_score(rubric):
    judge = decide("a.md", dims(rubric, claim_source_accuracy="error"), rubric)
    assert judge.reasons == ("judge error: claim_source_accuracy could not be evaluated: timed out",)
    check = decide("a.md", dims(rubric, section_presence="error"), rubric)
    assert check.verdict is Verdict.ERROR and check.reasons[0].startswith("check error: section_presence")
    two = [
        replace(d, judge_scores=(JudgeScore("a", None, "timed out"), JudgeScore("b", 4)))
        if d.id == "epistemic_labeling"
        else d
        for d in dims(rubric, epistemic_labeling="error")
    ]
    assert decide("a.md", two, rubric).reasons[0].startswith("ensemble error: epistemic_labeling")


def test_with_two_judges_the_mean_is_the_mean_of_each_judges_file_mean(rubric):
    """research-loop's mean covers its checks too: each judge's mean is over every scored dimension,
    the judged ones with that judge's own scores."""
    table = {"claim_source_accuracy": (5, 2), "epistemic_labeling": (5, 3)}
    two = [
        replace(
            d,
            score=round_half_up((table[d.id][0] + table[d.id][1]) / 2),
            judge_scores=(JudgeScore("a", table[d.id][0]), JudgeScore("b", table[d.id][1])),
        )
        if d.id in table
        else replace(d, judge_scores=(JudgeScore("a", 5), JudgeScore("b", 5)))
        if d.kind == "judge"
        else d
        for d in dims(rubric)
    ]
    r = decide("a.md", two, rubric)
    assert r.decision is not None and r.decision.mean_of == "judges"
    # judge a: nine 5s -> 5.0; judge b: seven 5s, a 2 and a 3 -> 40/9
    assert dict(r.decision.judge_means) == {"a": 5.0, "b": pytest.approx(40 / 9)}
    assert r.mean == pytest.approx((5.0 + 40 / 9) / 2)


def test_a_binary_rubric_counts_criteria_and_fails_only_the_unmet():
    sr = load_rubric("support-reply")
    scored = [
        DimensionResult(d.id, d.kind, Status.SCORED, score=0 if d.id == "tone_appropriate" else 1)
        for d in sr.dimensions
    ]
    r = decide("item.yml", scored, sr)
    assert r.verdict is Verdict.FAIL
    assert r.decision is not None and r.decision.criteria == (6, 7)
    assert r.reasons == ("not met: tone_appropriate",)
    assert [d.id for d in r.failing_dimensions] == ["tone_appropriate"]  # a 1 is met, not "below 3"
    assert r.mean is not None  # kept in JSON; reports show the criteria count instead
