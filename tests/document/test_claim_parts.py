"""Faster forms in the Findings part against the plain forms they replace: a trailing confidence
cut from the claim's end, and the first sentence found from its punctuation."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document.findings import _ABBREVIATIONS, _cut_trailing_confidence, first_sentence

TRAIL_CONFIDENCE = re.compile(r"\s*(?:\*\*)?confidence:?\s*(?:high|medium|low)\.?(?:\*\*)?\s*$", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]*_]*\s+(?=[\"'“‘(*_]*[A-Z0-9]|\[)")


def first_sentence_plainly(text: str) -> str:
    for match in SENTENCE_END.finditer(text):
        head = text[: match.start()].rstrip("\"'”’)]*_")
        if head.endswith(_ABBREVIATIONS) or re.search(r"\b[A-Z]\.$", head):
            continue
        return text[: match.start()].strip()
    return text.strip()


CONFIDENCE_WORDS = ["confidence", "Confidence", "CONFİDENCE", "confıdence", "high", "Medium", "LOW", "claim"]
CONFIDENCE_MARKS = [":", "**", "*", ".", "(", "]", "x", " ", "\n", "\t", "\u00a0"]
CONFIDENCE_PIECES = st.sampled_from([*CONFIDENCE_WORDS, *CONFIDENCE_MARKS])


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.lists(CONFIDENCE_PIECES, max_size=12).map("".join), st.text(max_size=20)))
@example("Claim. Confidence: high.")
@example("Claim **confidence: medium**")
@example("Claim ***confidence low")
@example("x  \n confidence \n high \n")
@example("confidence high confidence low")
@example("Claim ** confidence high")  # the bold marks belong to the claim: only the space goes
def test_cut_trailing_confidence_is_the_plain_sub(text: str) -> None:
    assert _cut_trailing_confidence(text) == TRAIL_CONFIDENCE.sub("", text)


SENTENCE_MARKS = ["A", "b", "1", ".", "!", "?", '"', "'", "”", "’", ")", "]", "*", "_", "“", "‘", "(", "["]
SENTENCE_PIECES = st.sampled_from([*SENTENCE_MARKS, "e.g.", "U.S.", "Dr.", "X.", "..", "word", " ", "\n"])


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.lists(SENTENCE_PIECES, max_size=16).map("".join), st.text(max_size=30)))
@example("One. Two.")
@example("See e.g. This. Then! Next")
@example("a.. B")
@example("x.) [y] z. A")
def test_first_sentence_is_the_plain_search(text: str) -> None:
    assert first_sentence(text) == first_sentence_plainly(text)
