"""The gate applies the rubric's policy; the judge's own claim never decides."""

from __future__ import annotations

import pytest

from evalgate.gate import decide, error_result
from evalgate.results import DimensionResult, JudgeCall, Status, Verdict
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
