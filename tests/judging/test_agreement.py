"""Kappa and agreement figures against textbook examples and hand-computed values."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalgate.judgement import JudgeScore
from evalgate.judging.agreement import (
    agreement,
    agreement_by_dimension,
    cohen_kappa,
    exact_agreement,
    fleiss_kappa,
    fleiss_kappa_counts,
    weighted_kappa,
    within_one_agreement,
)
from evalgate.results import DimensionResult, FileResult, Report, RubricRef, Status, Verdict

# Wikipedia's worked Fleiss example: 10 subjects, 14 raters, 5 categories; kappa = 0.210.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_matches_the_wikipedia_worked_example() -> None:
    kappa = fleiss_kappa_counts(WIKIPEDIA_FLEISS)
    assert kappa.value == pytest.approx(0.2099, abs=5e-4)


def test_fleiss_from_rating_lists_equals_fleiss_from_counts() -> None:
    ratings = [[c for c, n in enumerate(row, 1) for _ in range(n)] for row in WIKIPEDIA_FLEISS]
    assert fleiss_kappa(ratings).value == pytest.approx(fleiss_kappa_counts(WIKIPEDIA_FLEISS).value)


def test_cohen_matches_the_wikipedia_example() -> None:
    # 50 proposals: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o 0.7, p_e 0.5, kappa 0.4
    a = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b).value == pytest.approx(0.4)


def test_weighted_kappa_hand_computed() -> None:
    a, b = [1, 1, 2, 3], [1, 2, 2, 3]
    # linear: observed 0.5/4, expected 7/16 -> 1 - 0.125/0.4375 = 5/7; quadratic: 1 - 0.0625/0.3125
    assert weighted_kappa(a, b, weights="linear", scale=(1, 3)).value == pytest.approx(5 / 7)
    assert weighted_kappa(a, b, weights="quadratic", scale=(1, 3)).value == pytest.approx(0.8)


def test_weighted_kappa_on_two_categories_equals_cohen() -> None:
    a, b = [1, 1, 2, 2, 1, 2], [1, 2, 2, 2, 1, 1]
    cohen = cohen_kappa(a, b).value
    assert weighted_kappa(a, b, weights="linear").value == pytest.approx(cohen)
    assert weighted_kappa(a, b, weights="quadratic").value == pytest.approx(cohen)


def test_near_misses_cost_less_under_weighting() -> None:
    a, b = [5, 4, 3, 2, 1], [4, 4, 3, 2, 2]
    linear = weighted_kappa(a, b, weights="linear", scale=(1, 5)).value
    assert linear is not None and cohen_kappa(a, b).value is not None
    assert linear > cohen_kappa(a, b).value  # type: ignore[operator]


def test_constant_raters_are_undefined_with_a_reason() -> None:
    for kappa in (
        cohen_kappa([4, 4, 4], [4, 4, 4]),
        fleiss_kappa([[5, 5, 5], [5, 5, 5]]),
        weighted_kappa([3, 3], [3, 3]),
    ):
        assert kappa.value is None
        assert kappa.reason and "same" in kappa.reason


def test_mismatched_and_empty_inputs_are_undefined() -> None:
    assert cohen_kappa([1, 2], [1]).value is None
    assert cohen_kappa([], []).reason == "no rated items"
    assert fleiss_kappa_counts([[2, 1], [1, 1]]).reason == "items have different numbers of raters"
    assert exact_agreement([]) is None


def test_exact_and_within_one() -> None:
    ratings = [[4, 4, 4], [4, 5, 4], [2, 4, 3], [1, 1, 1]]
    assert exact_agreement(ratings) == 0.5
    assert within_one_agreement(ratings) == 0.75


def test_agreement_picks_cohen_for_two_and_fleiss_for_three() -> None:
    two = agreement("d", [[1, 1], [2, 3], [3, 3]], scale=(1, 5))
    three = agreement("d", [[1, 1, 2], [3, 3, 3]])
    assert (two.kappa_kind, three.kappa_kind) == ("cohen", "fleiss")
    assert two.weighted_linear is not None and three.weighted_linear is None
    assert "weighted_kappa" in two.to_json() and "weighted_kappa" not in three.to_json()


@given(st.lists(st.tuples(st.integers(1, 5), st.integers(1, 5)), min_size=1, max_size=30))
def test_kappas_never_exceed_one_and_never_raise(pairs: list[tuple[int, int]]) -> None:
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    for kappa in (cohen_kappa(a, b), weighted_kappa(a, b), weighted_kappa(a, b, weights="quadratic")):
        assert kappa.value is None or kappa.value <= 1.0 + 1e-9
        assert (kappa.value is None) == (kappa.reason is not None)


def _dim(dim_id: str, *scores: int | None) -> DimensionResult:
    judges = tuple(JudgeScore(f"j{i}", s, None if s is not None else "boom") for i, s in enumerate(scores))
    known = [s for s in scores if s is not None]
    return DimensionResult(
        dim_id, "judge", Status.SCORED, score=round(sum(known) / len(known)), judge_scores=judges
    )


def test_agreement_by_dimension_reads_per_judge_scores_and_drops_errored_files() -> None:
    files = [
        FileResult("a.md", Verdict.PASS, dimensions=(_dim("spec", 4, 4, 4), _dim("acc", 5, 4, 5))),
        FileResult("b.md", Verdict.PASS, dimensions=(_dim("spec", 3, 3, 2), _dim("acc", 2, 2, 2))),
        FileResult("c.md", Verdict.FAIL, dimensions=(_dim("spec", 1, None, 1),)),
    ]
    report = Report(RubricRef("r", "v"), tuple(files), judges=("j0", "j1", "j2"))
    out = agreement_by_dimension(report)
    assert set(out) == {"acc", "spec"}
    assert out["spec"]["items"] == 2 and out["spec"]["raters"] == 3
    assert out["spec"]["exact"] == 0.5
    assert out["acc"]["within_one"] == 1.0


def test_agreement_by_dimension_is_empty_for_one_judge() -> None:
    single = DimensionResult("spec", "judge", Status.SCORED, score=4, judge_scores=(JudgeScore("j", 4),))
    report = Report(RubricRef("r", "v"), (FileResult("a.md", Verdict.PASS, dimensions=(single,)),))
    assert agreement_by_dimension(report) == {}


def test_agreement_from_a_real_two_judge_run(tmp_path: Path) -> None:
    from evalgate.config import Config
    from evalgate.run import run

    script = Path(__file__).parents[1] / "fixtures" / "canary" / "scripted_judge.py"
    for name in ("one", "two", "three"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n\n## Findings\n\nThe {name}-marker.\n", "utf-8")
    scores = tmp_path / "scores.json"
    scores.write_text(
        json.dumps(
            {f"{n}-marker": {"epistemic_labeling": s} for n, s in (("one", 2), ("two", 3), ("three", 5))}
        )
    )
    judge = f"command:{sys.executable} {script} {scores}"
    config = Config(judges=(judge, f"{judge} 1"), cache=False, root=str(tmp_path))
    out = agreement_by_dimension(run(config, [str(tmp_path)], base=tmp_path))
    # the second judge scores one point higher (5 stays 5): pairs (2,3) (3,4) (5,5)
    labelling = out["epistemic_labeling"]
    assert (labelling["items"], labelling["exact"]) == (3, pytest.approx(1 / 3, abs=1e-4))
    assert labelling["within_one"] == 1.0 and labelling["kappa_kind"] == "cohen"
