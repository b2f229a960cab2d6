"""Ensemble rules: per-judge means, strict pass, critical fail, bands, judge errors; hand-computed."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.gate import decide
from evalgate.judgement import JudgeScore
from evalgate.judging.ensemble import (
    aggregate,
    band_of,
    combine_dimension,
    critical_fail,
    ensemble_mean,
    judge_means,
    strict_pass,
    trio_fail,
)
from evalgate.results import DimensionResult, Rule, Status, Verdict
from evalgate.rubric import Ensemble, load_rubric

BANDS = {"PASS_STRONG": 4.0, "PASS_ADEQUATE": 3.5, "FAIL_WEAK": 2.5, "FAIL_CRITICAL": 0.0}


@pytest.fixture(scope="module")
def kw():
    return load_rubric("knowledge-work")


def trio(rubric, table: dict[str, list[int | None]]) -> list[DimensionResult]:
    """Combined dimension results from per-judge scores: table[judge] = one score per dimension."""
    out = []
    for i, dim in enumerate(rubric.judged):
        per_judge = []
        for label, scores in table.items():
            s = scores[i]
            status = Status.SCORED if s is not None else Status.ERROR
            r = DimensionResult(
                dim.id,
                "judge",
                status,
                score=s,
                error=None if s is not None else "timed out",
                judge_scores=(JudgeScore(label, s, None if s is not None else "timed out"),),
            )
            per_judge.append((label, r))
        out.append(combine_dimension(dim, per_judge, rubric.policy.ensemble))
    return out


def test_judge_means_are_per_judge_over_dimensions(kw):
    dims = trio(kw, {"a": [5, 5, 4, 4, 3, 3], "b": [2, 2, 2, 2, 2, 2], "c": [1, 2, 3, 4, 5, 5]})
    assert judge_means(dims) == {"a": 4.0, "b": 2.0, "c": pytest.approx(20 / 6)}


def test_judge_means_ignore_deterministic_dimensions_and_missing_scores():
    dims = [
        DimensionResult("x", "deterministic", Status.SCORED, score=1, judge_scores=(JudgeScore("a", 1),)),
        DimensionResult(
            "y", "judge", Status.SCORED, score=4, judge_scores=(JudgeScore("a", 4), JudgeScore("b", None))
        ),
    ]
    assert judge_means(dims) == {"a": 4.0}


@pytest.mark.parametrize(
    ("means", "expected"),
    [
        ({"a": 3.5, "b": 3.5, "c": 1.0}, True),  # exactly on the floor counts
        ({"a": 3.49, "b": 4.0, "c": 5.0}, True),
        ({"a": 3.49, "b": 3.49, "c": 5.0}, False),
        ({"a": 5.0}, False),  # one judge cannot make "2 of 3"
    ],
)
def test_strict_pass_at_least_two_of_three(means, expected):
    assert strict_pass(means, judges=2, at_least=3.5) is expected


@pytest.mark.parametrize(
    ("means", "expected"),
    [
        ({"a": 1.9, "b": 1.99, "c": 5.0}, True),
        ({"a": 1.9, "b": 2.0, "c": 5.0}, False),  # 2.0 is not below 2.0
        ({"a": 1.0, "b": 4.0}, False),  # 1 of 2 is not a majority
        ({"a": 1.0, "b": 1.5}, True),
        ({}, False),
    ],
)
def test_critical_fail_needs_a_strict_majority(means, expected):
    assert critical_fail(means, below=2.0) is expected


@pytest.mark.parametrize(
    ("means", "expected"),
    [
        ({"a": 2.99, "b": 2.99, "c": 5.0}, True),
        ({"a": 3.0, "b": 2.99, "c": 1.0}, True),
        ({"a": 3.0, "b": 3.0, "c": 1.0}, False),  # 3.0 is not below 3.0
        ({"a": 1.0, "b": 2.0}, True),  # "at least 2": 2 of 2 as well
        ({"a": 1.0}, False),
        ({}, False),
    ],
)
def test_trio_fail_at_least_two_below_three(means, expected):
    assert trio_fail(means, judges=2, below=3.0) is expected


def test_the_trio_fail_rule_is_whole_or_absent():
    assert Ensemble(fail_judges=2, fail_below=3.0).fail_judges == 2
    with pytest.raises(ValueError, match="fail_judges and fail_below go together"):
        Ensemble(fail_judges=2)
    with pytest.raises(ValueError, match="fail_judges and fail_below go together"):
        Ensemble(fail_below=3.0)


@pytest.mark.parametrize(
    ("mean", "band"),
    [
        (5.0, "PASS_STRONG"),
        (4.0, "PASS_STRONG"),
        (3.99, "PASS_ADEQUATE"),
        (3.5, "PASS_ADEQUATE"),
        (3.49, "FAIL_WEAK"),
        (2.5, "FAIL_WEAK"),
        (2.49, "FAIL_CRITICAL"),
        (1.0, "FAIL_CRITICAL"),
        (None, None),
    ],
)
def test_bands_from_the_top(mean, band):
    assert band_of(mean, BANDS) == band


def test_bands_are_data_in_the_knowledge_work_rubric(kw):
    assert kw.policy.bands is not None and kw.policy.bands.floors == BANDS
    e = kw.policy.ensemble
    assert (e.strict_pass_judges, e.strict_pass_mean, e.critical_fail_below) == (2, 3.5, 2.0)
    assert (e.fail_judges, e.fail_below) == (2, 3.0)


def test_ensemble_mean_mean_and_median():
    means = {"a": 4.0, "b": 2.0, "c": 4.5}
    assert ensemble_mean(means, "mean") == pytest.approx(3.5)
    assert ensemble_mean(means, "median") == 4.0
    assert ensemble_mean({}, "mean") is None


def test_gate_passes_a_trio_that_meets_strict_pass(kw):
    # judge means 4.0, 3.5, 3.0 -> two of three >= 3.5; trio mean 3.5 -> PASS_ADEQUATE
    dims = trio(kw, {"a": [4] * 6, "b": [4, 3, 4, 3, 4, 3], "c": [3] * 6})
    r = decide("item.yml", dims, kw)
    assert r.verdict is Verdict.PASS, r.reasons
    assert r.band == "PASS_ADEQUATE"


def test_gate_fails_strict_pass_even_when_the_mean_passes(kw):
    # means 5.0, 3.0, 3.0: trio mean 3.67 >= 3.5 but only one judge reaches 3.5
    dims = trio(kw, {"a": [5] * 6, "b": [3] * 6, "c": [3] * 6})
    r = decide("item.yml", dims, kw)
    assert r.verdict is Verdict.FAIL
    assert r.reasons == (
        "trio strict pass: 1 of 3 judges' means reach 3.5 (a 5.00, b 3.00, c 3.00); it needs 2",
    )
    assert r.band == "PASS_ADEQUATE"  # the band is over the trio mean; the verdict says FAIL
    assert r.decision is not None and [c.rule for c in r.decision.decided_by] == [Rule.STRICT_PASS]


def test_gate_flags_critical_fail_even_when_the_mean_passes(kw):
    # A lenient policy (mean >= 2.5 passes) so that only the critical rule can fail the item.
    rubric = replace(kw, policy=replace(kw.policy, min_mean=2.5))
    # judge means 1.5, 1.5, 5.0: two of three below 2.0. Per dimension (1+2+5)/3 = 2.67 rounds to 3,
    # so the rounded scores' mean would be 3.0; the file's mean is the trio mean (1.5+1.5+5)/3 = 2.67,
    # FAIL_WEAK, which still reaches this policy's 2.5.
    dims = trio(rubric, {"a": [1, 2, 1, 2, 1, 2], "b": [2, 1, 2, 1, 2, 1], "c": [5] * 6})
    r = decide("item.yml", dims, rubric)
    assert judge_means(dims) == {"a": 1.5, "b": 1.5, "c": 5.0}
    assert r.mean == pytest.approx(8 / 3)
    assert r.verdict is Verdict.FAIL
    assert [x.split(":")[0] for x in r.reasons] == ["trio strict pass", "critical fail", "trio FAIL"]
    assert r.band == "FAIL_WEAK"


def test_critical_fail_flagged_although_the_strict_pass_holds(kw):
    ensemble = Ensemble(strict_pass_judges=1, strict_pass_mean=3.5, critical_fail_below=2.0)
    rubric = replace(kw, policy=replace(kw.policy, ensemble=ensemble))
    dims = trio(rubric, {"a": [1] * 6, "b": [1] * 6, "c": [5] * 6})
    r = decide("item.yml", dims, rubric)
    assert [x for x in r.reasons if x.startswith(("critical", "trio strict"))] == [
        "critical fail: 2 of 3 judges' means are below 2 (a 1.00, b 1.00, c 5.00); a majority fails the file"
    ]


def test_gate_reports_a_trio_fail_that_is_not_critical(kw):
    # Only the trio FAIL rule set: judge means 2.5, 2.0, 5.0 -> two below 3.0, none of two below 2.0.
    ensemble = Ensemble(fail_judges=2, fail_below=3.0, critical_fail_below=2.0)
    rubric = replace(kw, policy=replace(kw.policy, min_mean=None, ensemble=ensemble))
    dims = trio(rubric, {"a": [3, 2, 3, 2, 3, 2], "b": [2] * 6, "c": [5] * 6})
    r = decide("item.yml", dims, rubric)
    assert r.reasons == (
        "trio FAIL: 2 of 3 judges' means are below 3 (a 2.50, b 2.00, c 5.00); 2 fail the file",
    )
    assert r.verdict is Verdict.FAIL
    assert r.decision is not None
    assert [(c.rule, c.passed) for c in r.decision.checks] == [
        (Rule.CRITICAL_FAIL, True),
        (Rule.TRIO_FAIL, False),
    ]
    assert r.failing_dimensions == ()  # no dimension failed: the trio FAIL rule alone decided


def test_single_judge_does_not_apply_ensemble_rules(kw):
    dims = trio(kw, {"solo": [4] * 6})
    r = decide("item.yml", dims, kw)
    assert r.verdict is Verdict.PASS
    assert not any("strict" in x or "critical" in x for x in r.reasons)


def test_errored_judge_fails_the_item_by_default(kw):
    dims = trio(kw, {"a": [5] * 6, "b": [5] * 6, "c": [None] * 6})
    assert all(d.status is Status.ERROR for d in dims)
    assert "1 of 3 judges failed" in (dims[0].error or "")
    assert decide("item.yml", dims, kw).verdict is Verdict.FAIL


def test_errored_judge_is_left_out_with_the_quorum_recorded_when_excluded(kw):
    ensemble = replace(kw.policy.ensemble, on_judge_error="exclude")
    rubric = replace(kw, policy=replace(kw.policy, ensemble=ensemble))
    dims = trio(rubric, {"a": [4] * 6, "b": [5] * 6, "c": [None] * 6})
    assert all(d.status is Status.SCORED for d in dims)
    assert "quorum 2/3" in (dims[0].reasoning or "")
    assert dims[0].score == 5  # mean 4.5 rounds half up
    r = decide("item.yml", dims, rubric)
    assert r.verdict is Verdict.PASS
    assert judge_means(dims) == {"a": 4.0, "b": 5.0}
    assert r.band == "PASS_STRONG"


def test_below_quorum_is_an_error(kw):
    ensemble = replace(kw.policy.ensemble, on_judge_error="exclude")
    rubric = replace(kw, policy=replace(kw.policy, ensemble=ensemble))
    dims = trio(rubric, {"a": [4] * 6, "b": [None] * 6, "c": [None] * 6})
    assert "quorum 2" in (dims[0].error or "")
    assert decide("item.yml", dims, rubric).verdict is Verdict.FAIL


@settings(max_examples=300, deadline=None)
@given(
    scores=st.lists(
        st.one_of(st.integers(1, 5), st.floats(-1e6, 1e6, allow_nan=False)), min_size=1, max_size=7
    )
)
def test_aggregate_is_the_statistics_modules_mean_and_median(scores: list[float]) -> None:
    # written out so that a judged run does not import statistics (and fractions, decimal with it)
    assert aggregate(scores, "mean") == statistics.fmean(scores)
    assert aggregate(scores, "median") == float(statistics.median(scores))
