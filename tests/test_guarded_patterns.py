"""Patterns applied only when a text they need is present (a cheap `in` test first) give exactly what
applying them always gives, and the linear rewrites of patterns that backtracked (a closing `#` run,
inline links, a trailing label) give exactly what the patterns gave."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.checks import evidence_map_coverage
from evalgate.checks.key_finding_word_count import claim_words
from evalgate.document import normalise_title
from evalgate.document.findings import _LABEL_WORDS, URL, _cut_trailing_label
from evalgate.document.scan import _MARKUP, heading_title, strip_links

# The patterns as first written (quadratic on crafted lines): the plain forms the rewrites must equal.
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# claim_words counts markup as removed without removing it (key_finding_word_count): the plain form
# removes it.
KF_MARKUP = re.compile(r"[*_`~]+")
_TRAIL_LABEL = re.compile(rf"\s*(?:\*\*)?\[(?:{_LABEL_WORDS})[^\]]*\](?:\*\*)?\.?\s*$", re.I)

PIECES = st.sampled_from(
    [
        "a",
        "Word",
        " ",
        "\t",
        "#",
        "##",
        "*",
        "**",
        "_",
        "__",
        "`",
        "~",
        "[",
        "]",
        "(",
        ")",
        "](",
        "x.y",
        "https://",
        "HTTP://",
        "www.",
        "WwW.",
        "://",
        ".",
        "-",
        "—",
        "1",
        "'s",
        "ing",
        "\u0130",
        "\u212a",
        "\u00c9",
        "\u00a0",
        "\u2009",
        "\x1c",
        "\u3000",
        "!",
        "![",
        "fact",
        "[fact",
        "[high]",
        " [source: x]",
        "  ",
    ]
)
TEXTS = st.lists(PIECES, max_size=14).map("".join)


def heading_title_always(raw: str) -> str:
    text = _ATX_CLOSE.sub("", raw).strip()
    text = _LINK.sub(r"\1", text)
    return _MARKUP.sub("", text).strip()


def content_words_always(text: str) -> frozenset[str]:
    """The plain form: every word (two or more of a-z and 0-9) found by its pattern and stemmed."""
    words = re.findall(r"[a-z0-9]{2,}", URL.sub(" ", text).lower().replace("'s", ""))
    return frozenset(s for s in map(evidence_map_coverage._stem, words) if s is not None)


def claim_words_always(claim: str) -> int:
    text = KF_MARKUP.sub("", URL.sub(" ", _LINK.sub(r"\1", claim)))
    return sum(1 for token in text.split() if re.search(r"[^\W_]", token))


@settings(max_examples=3000, deadline=None)
@given(TEXTS)
@example("[ x ](y)")
@example("Title ##  \t")
@example("see WWW.example.org now")
@example("a\x1cb _ ** -- c_d `e` x\x1f~ 1.")  # ASCII: counted from its bytes
def test_heading_title_and_claim_words_match_the_unguarded_patterns(text: str) -> None:
    assert heading_title(text) == heading_title_always(text)
    assert claim_words(text) == claim_words_always(text)
    assert evidence_map_coverage.content_words(text) == content_words_always(text)


def normalise_title_by_substitution(title: str) -> str:
    """The first form of the rule: `§` and every run of other characters become one space."""
    text = re.sub(r"[^a-z0-9]+", " ", title.lower().replace("§", " "))
    return " ".join(text.split())


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from([*"aZ9 §-_.,\t", "\u00a0", "\u212a", "\u0130", "é", "Risks, Gaps"])).map("".join)
)
def test_normalise_title_is_the_substitution_rule(title: str) -> None:
    assert normalise_title(title) == normalise_title_by_substitution(title)


@settings(max_examples=3000, deadline=None)
@given(TEXTS)
@example("a [b [c](d) e](f)")
@example("![x](y)![z](w)")
@example("a ## ##")
@example("claim [fact] x [inference].")
def test_linear_rewrites_equal_the_patterns_they_replace(text: str) -> None:
    assert strip_links(text) == _LINK.sub(r"\1", text)
    assert _cut_trailing_label(text) == _TRAIL_LABEL.sub("", text, count=1)
    assert heading_title(text) == heading_title_always(text)
