from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.checks import key_finding_word_count
from evalgate.document import parse_document
from tests.checks.harmless import HARMLESS
from tests.checks.research_item import FINDINGS, line_of, research_item


def run(text: str) -> key_finding_word_count.CheckOutcome:
    return key_finding_word_count.check(parse_document(text))


@pytest.mark.parametrize("edit", HARMLESS, ids=lambda f: f.__name__)
def test_harmless_edits_keep_the_score(edit) -> None:
    assert run(edit(research_item())).score == 5
    assert run(edit(research_item())).findings == ()


def test_short_finding_lowers_the_score_on_its_line() -> None:
    short = "Digests identify bundles exactly."
    text = research_item(findings=[short, *FINDINGS[1:]])
    outcome = run(text)
    assert outcome.score == 4
    assert [f.line for f in outcome.findings] == [line_of(text, short)]
    assert "4 words" in outcome.findings[0].message


def test_trailing_parenthetical_and_urls_do_not_count_as_words() -> None:
    nineteen = " ".join(["word"] * 19) + "."
    long_tail = f"{nineteen} ([fact]; high confidence; source: https://a.example/x; https://b.example/y)"
    assert (
        key_finding_word_count.claim_words(
            parse_document(f"## Key Findings\n\n1. {long_tail}\n").key_findings[0].claim
        )
        == 19
    )


@pytest.mark.parametrize(
    ("count", "short", "expected"),
    [
        (8, 0, 5),
        (8, 1, 4),
        (8, 2, 3),
        (8, 3, 2),
        (5, 0, 3),
        (13, 0, 3),
        (5, 1, 2),
        (4, 0, 2),
        (14, 0, 2),
        (2, 0, 1),
    ],
)
def test_score_follows_the_anchors(count: int, short: int, expected: int) -> None:
    assert key_finding_word_count.score(count, short) == expected


def test_too_few_findings_and_no_list() -> None:
    assert run(research_item(findings=FINDINGS[:2])).score == 1
    assert run(research_item(findings=FINDINGS[:5])).score == 3
    no_list = run("# T\n\n## Findings\n\n### Key Findings\n\nNone yet.\n")
    assert no_list.score == 1 and "no Key Findings" in no_list.findings[0].message


_CLAIM_PIECES = st.sampled_from([*"aB7_-—é²٣ .", "**", "\t", "\n", "\u00a0", "\u2009", "\x1c", "\x85"])


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(_CLAIM_PIECES, max_size=20))
@example(pieces=["_", "-", "a", " ", "—", " ", "_", "\x1c", "²"])
def test_the_word_tokens_count_as_the_lazy_form_counts(pieces: list[str]) -> None:
    """Tokens matched from their first letter or digit are as many as tokens matched from their first
    character with a lazy run to a letter or digit (the form the count used to take)."""
    text = "".join(pieces)
    plain = re.compile(r"\S*?[^\W_]\S*")
    assert len(key_finding_word_count._WORD_TOKEN.findall(text)) == len(plain.findall(text))
