"""Faster forms in the Findings part against the plain forms they replace: a trailing confidence
cut from the claim's end, the first sentence found from its punctuation, and the search for a
`Source:` tail started at the first `source`; an Evidence Map row's cells picked in one call."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.document.findings import (
    _cut_at_sources,
    _cut_trailing_confidence,
    _evidence_rows,
    _strip_trailing_sources,
)
from evalgate.document.model import Table, TableRow
from evalgate.document.prose import _ABBREVIATIONS, _ends_with_initial, first_sentence

TRAIL_CONFIDENCE = re.compile(r"\s*(?:\*\*)?confidence:?\s*(?:high|medium|low)\.?(?:\*\*)?\s*$", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]*_]*\s+(?=[\"'“‘(*_]*[A-Z0-9]|\[)")


def first_sentence_plainly(text: str) -> str:
    for match in SENTENCE_END.finditer(text):
        head = text[: match.start()].rstrip("\"'”’)]*_")
        if head.endswith(_ABBREVIATIONS) or re.search(r"\b[A-Z]\.$", head):
            continue
        return text[: match.start()].strip()
    return text.strip()


def strip_trailing_sources_plainly(text: str) -> str:
    """The search from the claim's start."""
    if ":" not in text or "ource" not in text.lower():
        return text
    return _cut_at_sources(text, 0)


CONFIDENCE_WORDS = ["confidence", "Confidence", "CONFİDENCE", "confıdence", "high", "Medium", "LOW", "claim"]
SENTENCE_MARKS = ["A", "b", "1", ".", "!", "?", '"', "'", "”", "’", ")", "]", "*", "_", "“", "‘", "(", "["]
SOURCE_WORDS = ["source", "Sources", "ſOURCE", "ource", "xsource", "İ", "claim", "(", ")", "[", "]"]

# name: (faster form, plain form, pieces texts are made of, examples each must agree on)
FORMS: dict[str, tuple[Callable[[str], str], Callable[[str], str], list[str], list[str]]] = {
    "trailing confidence": (
        _cut_trailing_confidence,
        lambda text: TRAIL_CONFIDENCE.sub("", text),
        [*CONFIDENCE_WORDS, ":", "**", "*", ".", "(", "]", "x", " ", "\n", "\t", "\u00a0"],
        [
            "Claim. Confidence: high.",
            "Claim **confidence: medium**",
            "Claim ***confidence low",
            "x  \n confidence \n high \n",
            "confidence high confidence low",
            "Claim ** confidence high",  # the bold marks belong to the claim: only the space goes
        ],
    ),
    "first sentence": (
        first_sentence,
        first_sentence_plainly,
        [*SENTENCE_MARKS, "e.g.", "U.S.", "Dr.", "X.", "..", "word", "é", "²", " ", "\n"],
        [
            "One. Two.",
            "See e.g. This. Then! Next",
            "a.. B",
            "x.) [y] z. A",
            "By J. Smith. Then",
            "2J. K",
            "Née É. Next",
        ],
    ),
    "trailing sources": (
        _strip_trailing_sources,
        strip_trailing_sources_plainly,
        [*SOURCE_WORDS, ":", "**", "*", ".", "!", " ", "\n", "\u00a0", "x"],
        [
            "Claim. Source: x",
            "Claim. ** Sources: x. Source: y",
            "**source: x",
            "İ. source: x",
            "a. * *source: x",
            "Claim. **Source:** x",  # the bold marks are in the match: the search starts before them
        ],
    ),
}


@pytest.mark.parametrize("form", FORMS)
def test_the_faster_form_agrees_on_its_examples(form: str) -> None:
    faster, plain, _, examples = FORMS[form]
    assert [faster(text) for text in examples] == [plain(text) for text in examples]


@pytest.mark.parametrize("form", FORMS)
@settings(max_examples=3000, deadline=None)
@given(data=st.data())
def test_the_faster_form_is_the_plain_form(form: str, data: st.DataObject) -> None:
    faster, plain, pieces, _ = FORMS[form]
    made_of_pieces = st.lists(st.sampled_from(pieces), max_size=14).map("".join)
    text = data.draw(st.one_of(made_of_pieces, st.text(max_size=30)))
    assert faster(text) == plain(text)


@settings(max_examples=2000, deadline=None)
@given(st.text(st.sampled_from("J É2_ .x\n"), max_size=6))
def test_ends_with_initial_is_the_pattern(head: str) -> None:
    assert _ends_with_initial(head) == (re.search(r"\b[A-Z]\.$", head) is not None)


def evidence_rows_plainly(table: Table) -> list[tuple[int, str, str, str, str, tuple[str, ...]]]:
    names = [h.lower() for h in table.header]
    at = [next((i for i, h in enumerate(names) if word in h), default) for word, default in COLUMNS]
    return [(r.line, *(r.cells[i] if i < len(r.cells) else "" for i in at), r.cells) for r in table.rows]


COLUMNS = [("claim", 0), ("source", 1), ("confid", 2), ("note", 3)]
CELL = st.sampled_from(["", "x", "[fact] c", "https://x.org", "Claim", "Notes", "Source", "Confidence"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(CELL, max_size=6), st.lists(st.lists(CELL, max_size=7), max_size=4))
def test_evidence_rows_pick_the_plain_cells(header: list[str], rows: list[list[str]]) -> None:
    table = Table(1, 2, tuple(header), tuple(TableRow(n, tuple(cells)) for n, cells in enumerate(rows, 3)))
    picked = [(r.line, r.claim, r.source, r.confidence, r.notes, r.cells) for r in _evidence_rows(table)]
    assert picked == evidence_rows_plainly(table)
