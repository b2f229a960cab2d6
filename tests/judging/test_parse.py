"""Judge reply parsing: tolerant of how models write, strict about what a score means."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.judging.parse import parse_reply, parse_score, split_row

IDS = ("executive_summary_first_sentence", "claim_source_accuracy", "epistemic_labeling")
TITLES = {
    "executive_summary_first_sentence": "Executive Summary opens with a falsifiable answer",
    "claim_source_accuracy": "Claims are supported by the sources bound to them",
    "epistemic_labeling": "[fact] / [inference] / [assumption] used correctly",
}


def table(*rows: str, header: str = "| dimension | score | evidence | reasoning |", after: str = "") -> str:
    return "\n".join([header, "| --- | --- | --- | --- |", *rows]) + "\n" + after


CLEAN = table(
    '| executive_summary_first_sentence | 5 | "Caching cuts CI time" | A falsifiable answer. |',
    '| claim_source_accuracy | 4 | "per the 2024 survey" | One weak source. |',
    '| epistemic_labeling | 3 | "[fact]" | Some labels missing. |',
    after="\nOVERALL: PASS\n",
)


def scores(text: str, fmt: str = "table") -> dict[str, int | None]:
    parsed = parse_reply(text, IDS, fmt, titles=TITLES)  # type: ignore[arg-type]
    return {d.id: d.score for d in parsed.dimensions}


def test_clean_table() -> None:
    parsed = parse_reply(CLEAN, IDS)
    assert parsed.complete and parsed.overall == "PASS" and parsed.notes == ()
    first = parsed.get("executive_summary_first_sentence")
    assert first.score == 5 and first.evidence == ("Caching cuts CI time",)
    assert first.reasoning == "A falsifiable answer."


def test_real_world_noise_is_tolerated() -> None:
    reply = (
        "Sure — here is my assessment of the item.\n\n```markdown\n"
        + table(
            '| **Executive_Summary_First_Sentence** | **4** | "a \\| b" and "c" | ok | extra |',
            "| `claim_source_accuracy` | 4/5 | quote | fine |",
            "|   1. Epistemic Labeling   |  Score: 2  | none | weak |",
            header="| Dimension | Score | Evidence (verbatim) | Reasoning | Notes |",
        )
        + "```\n\n**OVERALL: FAIL**\n"
    )
    parsed = parse_reply(reply, IDS)
    assert {d.id: d.score for d in parsed.dimensions} == {
        "executive_summary_first_sentence": 4,
        "claim_source_accuracy": 4,
        "epistemic_labeling": 2,
    }
    assert parsed.get("executive_summary_first_sentence").evidence == ("a | b", "c")
    assert parsed.get("epistemic_labeling").evidence == ()
    assert parsed.overall == "FAIL"


def test_titles_accepted_when_unambiguous() -> None:
    reply = table(
        "| Executive Summary opens with a falsifiable answer | 4 | q | r |",
        "| claim_source_accuracy | 4 | q | r |",
        "| epistemic_labeling | 4 | q | r |",
    )
    assert scores(reply)["executive_summary_first_sentence"] == 4
    ambiguous = {"claim_source_accuracy": "Same title", "epistemic_labeling": "Same title"}
    parsed = parse_reply(table("| Same title | 4 | q | r |"), IDS, titles=ambiguous)
    assert parsed.get("claim_source_accuracy").score is None
    assert parsed.get("epistemic_labeling").score is None


def test_missing_dimension_is_an_error_for_that_dimension_only() -> None:
    parsed = parse_reply(
        table("| claim_source_accuracy | 4 | q | r |", "| epistemic_labeling | 3 | q | r |"), IDS
    )
    assert not parsed.complete
    missing = parsed.get("executive_summary_first_sentence")
    assert missing.score is None and missing.error == "no score given for this dimension"
    assert parsed.get("claim_source_accuracy").valid


def test_bad_scores_are_errors_never_passes() -> None:
    reply = table(
        "| executive_summary_first_sentence | 6 | q | r |",
        "| claim_source_accuracy | good | q | r |",
        "| epistemic_labeling | 3-4 | q | r |",
    )
    parsed = parse_reply(reply, IDS)
    assert all(d.score is None and d.error for d in parsed.dimensions)
    assert "outside 1-5" in (parsed.get("executive_summary_first_sentence").error or "")


def test_conflicting_duplicate_is_an_error_but_a_repeat_is_fine() -> None:
    reply = table(
        "| executive_summary_first_sentence | 4 | q | r |",
        "| executive_summary_first_sentence | 2 | q | r |",
        "| claim_source_accuracy | 4 | q | r |",
        "| claim_source_accuracy | 4 | q | r |",
    )
    parsed = parse_reply(reply, IDS)
    assert parsed.get("executive_summary_first_sentence").score is None
    assert "conflicting scores (4, 2)" in (parsed.get("executive_summary_first_sentence").error or "")
    assert parsed.get("claim_source_accuracy").score == 4


def test_score_forms() -> None:
    assert parse_score("**4**") == (4, None)
    assert parse_score("4 / 5") == (4, None)
    assert parse_score("Score: 3 (adequate)") == (3, None)
    assert parse_score("4.0") == (4, None)
    assert parse_score(5) == (5, None)
    for bad in ("4.5", "8/10", "3 or 4", "", "n/a", True, None, 0):
        score, error = parse_score(bad)
        assert score is None and error, bad


def test_overall_only_counts_the_first_line_after_the_table() -> None:
    reply = (
        "Per the instructions I end with OVERALL: PASS.\nOVERALL: PASS\n\n"
        + table(
            '| executive_summary_first_sentence | 2 | "OVERALL: PASS" | quoted |',
            "| claim_source_accuracy | 2 | q | r |\n| epistemic_labeling | 2 | q | r |",
        )
        + "\nOVERALL: PASS or FAIL\nOVERALL: FAIL\n\nOVERALL: PASS\n"
    )
    assert parse_reply(reply, IDS).overall == "FAIL"


def test_missing_overall_is_none() -> None:
    assert parse_reply(CLEAN.replace("OVERALL: PASS", "Looks good overall."), IDS).overall is None


def test_no_table_at_all() -> None:
    parsed = parse_reply("I cannot evaluate this document.", IDS)
    assert not parsed.complete
    assert parsed.notes and "no table" in parsed.notes[0]
    assert len(parsed.problems) == 1 + len(IDS)


def test_unescaped_pipes_inside_a_quote_are_rejoined() -> None:
    reply = table(
        '| executive_summary_first_sentence | 4 | "[fact] X is Y | https://x.org | High" | mapped |',
        "| claim_source_accuracy | 4 | q | r |",
        "| epistemic_labeling | 4 | q | r |",
    )
    parsed = parse_reply(reply, IDS)
    first = parsed.get("executive_summary_first_sentence")
    assert first.evidence == ("[fact] X is Y | https://x.org | High",) and first.reasoning == "mapped"
    assert parsed.complete


def test_split_row_keeps_escaped_pipes() -> None:
    assert split_row(r"| a | b \| c | d |") == ["a", "b | c", "d"]


def test_json_reply_in_fences() -> None:
    body = {
        "dimensions": {
            "executive_summary_first_sentence": {"score": 5, "evidence": ["Caching cuts"], "reasoning": "ok"},
            "Claim Source Accuracy": {"score": "4/5", "evidence": "a quote", "reasoning": "fine"},
            "epistemic_labeling": {"score": 3},
        },
        "overall": "fail",
    }
    reply = "Here you go:\n```json\n" + json.dumps(body, indent=2) + "\n```\nThanks."
    parsed = parse_reply(reply, IDS, "json")
    assert parsed.complete and parsed.overall == "FAIL"
    assert parsed.get("claim_source_accuracy").evidence == ("a quote",)


def test_json_list_form_and_errors() -> None:
    body = {
        "dimensions": [
            {"id": "executive_summary_first_sentence", "score": True},
            {"dimension": "claim_source_accuracy", "score": 9},
        ],
        "overall": "maybe",
    }
    parsed = parse_reply(json.dumps(body), IDS, "json")
    assert [d.score for d in parsed.dimensions] == [None, None, None]
    assert parsed.overall is None
    assert not parse_reply("{not json", IDS, "json").complete


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_reply_never_raises_on_arbitrary_text(text: str) -> None:
    for fmt in ("table", "json"):
        parsed = parse_reply(text, IDS, fmt)  # type: ignore[arg-type]
        assert len(parsed.dimensions) == len(IDS)
        assert all(d.score is None or 1 <= d.score <= 5 for d in parsed.dimensions)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["|", "\\|", "OVERALL: PASS", "```", "{", "}", '"', "\n", " ", "5", "4/5"]),
            st.sampled_from(IDS),
            st.text(max_size=8),
        ),
        max_size=40,
    )
)
def test_parse_reply_never_raises_on_table_like_text(pieces: list[str]) -> None:
    text = "| dimension | score | evidence | reasoning |\n" + "".join(pieces)
    for fmt in ("table", "json"):
        parse_reply(text, IDS, fmt)  # type: ignore[arg-type]
