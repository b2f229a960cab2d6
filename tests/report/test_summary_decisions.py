"""Snapshots of verdicts made by the gate, as the markdown summary (also the check run and the PR
comment) and the text report word them: the rule that decided, the trio's mean with its band, and
binary criteria met and not met with their evidence."""

from __future__ import annotations

from evalgate.gate import decide
from evalgate.github.checks_run import annotations_for, publish_check_run
from evalgate.github.comment import publish_comment
from evalgate.judgement import Evidence, JudgeScore
from evalgate.judging.ensemble import combine_dimension
from evalgate.report.summary import render_summary
from evalgate.report.text import render_text
from evalgate.results import DimensionResult, Report, RubricRef, Status
from evalgate.rubric import Rubric, load_rubric
from tests.support.github_api import FakeGitHub
from tests.support.reports import assert_snapshot, client_for

PROMPT = "0123456789ab"


def _trio(rubric: Rubric, path: str, table: dict[str, list[int]]):
    """A file judged by three judges, each giving one score per dimension."""
    dims = []
    for i, dim in enumerate(rubric.judged):
        per_judge = [
            (
                label,
                DimensionResult(
                    dim.id,
                    "judge",
                    Status.SCORED,
                    score=scores[i],
                    judge_scores=(JudgeScore(label, scores[i], position=i + 1),),
                ),
            )
            for label, scores in table.items()
        ]
        dims.append(combine_dimension(dim, per_judge, rubric.policy.ensemble))
    return decide(path, dims, rubric)


def knowledge_work_report() -> Report:
    kw = load_rubric("knowledge-work")
    results = (
        _trio(kw, "items/trio-fail.yml", {"opus": [2] * 6, "gpt": [3, 2] * 3, "gemini": [5] * 6}),
        _trio(kw, "items/weak-mean.yml", {"opus": [4, 3] * 3, "gpt": [3, 4] * 3, "gemini": [3] * 6}),
        _trio(kw, "items/strong.yml", {"opus": [4] * 6, "gpt": [4] * 6, "gemini": [5] * 6}),
    )
    return Report(RubricRef(kw.id, kw.version, PROMPT), results, judges=("opus", "gpt", "gemini"))


def support_reply_report() -> Report:
    sr = load_rubric("support-reply")
    dims = []
    for d in sr.dimensions:
        met = d.id != "states_next_step"
        evidence = () if d.kind != "judge" else (Evidence("I have refunded EUR 4.50", True, 9),)
        if not met:
            evidence = (Evidence("you will see it within five days", True, 9),)
        dims.append(
            DimensionResult(
                d.id,
                d.kind,
                Status.SCORED,
                score=1 if met else 0,
                evidence=evidence,
                reasoning=None if met else "A timing, not a step the customer can take.",
            )
        )
    result = decide("replies/late-parcel.yml", dims, sr)
    return Report(RubricRef(sr.id, sr.version, PROMPT), (result,), judges=("judge",))


def test_decisions_markdown_snapshot() -> None:
    text = (
        render_summary(knowledge_work_report(), "evalgate")
        + "\n"
        + render_summary(support_reply_report(), "evalgate")
    )
    assert_snapshot("summary-decisions.md", text)
    assert "Failing dimensions" not in text


def test_decisions_text_snapshot() -> None:
    text = render_text(knowledge_work_report()) + "\n" + render_text(support_reply_report())
    assert_snapshot("text-decisions.txt", text)


def test_the_check_run_and_the_pr_comment_name_the_rule(fake_github: FakeGitHub) -> None:
    """What the action posts (to the contract-checked fake GitHub) says why, as the summary does."""
    report = knowledge_work_report()
    client = client_for(fake_github)
    outcome = publish_check_run(client, "o/r", "b" * 40, "evalgate", report, annotations_for(report))
    posted = fake_github.check_runs[outcome.check_run_id or 0]["output"]["summary"]
    comment = publish_comment(client, "o/r", 5, report, "evalgate", "always")
    body = fake_github.comments[comment.comment_id or 0]["body"]
    for text in (posted, body):
        assert "- **trio FAIL**: 2 of 3 judges' means are below 3" in text
        assert "- **mean**: 3.33 is below 3.5 (the mean of 3 judges' means" in text
    assert fake_github.violations == []
