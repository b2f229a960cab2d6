from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.checks import section_placeholders, section_presence
from evalgate.document import parse_document
from evalgate.rubrics.params import SectionPresenceParams
from tests.checks.harmless import HARMLESS
from tests.checks.research_item import line_of, research_item


def run(text: str) -> section_presence.CheckOutcome:
    return section_presence.check(parse_document(text))


@pytest.mark.parametrize("edit", HARMLESS, ids=lambda f: f.__name__)
def test_harmless_edits_keep_the_score(edit) -> None:
    assert (run(edit(research_item())).score, run(edit(research_item())).findings) == (5, ())


@pytest.mark.parametrize(
    "variant",
    [
        lambda t: t.replace("## Research Question", "## Question / Hypothesis"),
        lambda t: t.replace("## Output", "### Output"),
        lambda t: t.replace("### §6 Synthesis", "### Section 6 Synthesis"),
        lambda t: t.replace("Risks, Gaps, and Uncertainties", "Risks, gaps and uncertainties"),
        # a required title with a qualifier after a dash, colon or parenthesis
        lambda t: t.replace("### Open Questions", "### Open Questions — Ranked by Priority"),
        lambda t: t.replace("## Sources", "## Sources (starting points)"),
        lambda t: t.replace("### Analysis", "### Analysis: how the trade-offs were weighed"),
        lambda t: t.replace("### §3 Reasoning", "### §3 Reasoning - facts and inferences"),
    ],
)
def test_corpus_variations_are_tolerated(variant) -> None:
    assert run(variant(research_item())).score == 5


@pytest.mark.parametrize(
    ("dropped", "expected"),
    [("Scope", 4), ("Research Skill Output", 4), ("§3 Reasoning", 4), ("Key Findings", 2), ("Findings", 1)],
)
def test_deleting_a_section_lowers_the_score(dropped: str, expected: int) -> None:
    outcome = run(research_item(drop_section=dropped))
    assert outcome.score == expected
    assert any(dropped in f.message and "missing" in f.message for f in outcome.findings)


@pytest.mark.parametrize(
    "heading", ["### Open Questionnaire", "### Open Questions Deferred", "### Questions"]
)
def test_a_title_that_only_starts_like_a_required_one_is_not_it(heading: str) -> None:
    text = research_item().replace("### Open Questions", heading)
    (finding,) = run(text).findings
    assert finding.message == "missing required section ### Open Questions"


def test_missing_section_is_reported_where_it_belongs() -> None:
    text = research_item(drop_section="Scope")
    (finding,) = run(text).findings
    assert finding.line == line_of(text, "## Context")


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("Policy drift between stages causes silent enforcement gaps.", "-", "## Context"),
        (
            "How can a deployment pipeline prove two stages evaluate identical policy?",
            "State the specific, answerable question this research addresses.",
            "State the specific",
        ),
        ("- Key rotation was not examined.", "-", "### Risks"),
    ],
)
def test_template_text_lowers_the_score(old: str, new: str, where: str) -> None:
    text = research_item().replace(old, new)
    outcome = run(text)
    assert outcome.score == 4
    assert [f.line for f in outcome.findings] == [line_of(text, where)]


REVIEW_STEP = "- [fact; source: https://example.org/ref/2] Step 7 notes on the investigation."


@pytest.mark.parametrize(
    "review",
    [
        # an author's own review checklist, in words the template also uses for §3
        "- §3 Reasoning: facts, inferences, and assumptions explicitly separated. ✓",
        "Checked that facts, inferences, and assumptions explicitly separated. hold throughout.",
        '- The template\'s line "Final pass: every section justified, all threads synthesised" was met.',
    ],
)
def test_template_words_inside_the_authors_own_line_are_no_placeholder(review: str) -> None:
    text = research_item().replace(REVIEW_STEP, REVIEW_STEP + "\n" + review)
    assert (run(text).score, run(text).findings) == (5, ())


@pytest.mark.parametrize(
    "kept",
    [
        "Final pass: every section justified, all threads synthesised, every claim sourced.",
        "- **Final pass: every section justified,\n  all threads synthesised**, every claim sourced.",
        "> Final pass: every section justified, all threads synthesised.",
        "1. [ ] *Final pass: every section justified, all threads synthesised.*",
    ],
)
def test_template_sentence_left_at_a_lines_start_is_reported_there(kept: str) -> None:
    text = research_item().replace(REVIEW_STEP, kept + "\n\n" + REVIEW_STEP)
    (finding,) = run(text).findings
    assert finding.line == line_of(text, "Final pass")
    assert "§7 Recursive Review still holds the template's placeholder text" in finding.message


def test_template_evidence_row_and_title() -> None:
    text = research_item().replace("|---|---|---|---|", "|---|---|---|---|\n| | | high / medium / low | |")
    outcome = run(text)
    assert outcome.score == 2 and "empty row" in outcome.findings[0].message
    titled = research_item().replace('title: "Policy digest equality"', 'title: "TITLE"')
    assert run(titled).score == 4


def _reference_phrases(text: str) -> set[str]:
    """The rule the fast search must agree with: a phrase occurs when the lowered text, its white
    space collapsed, contains it."""
    whole = " ".join(text.lower().split())
    return {phrase for phrase, key in section_presence._PLACEHOLDER_KEYS if key in whole}


@pytest.fixture(params=["direct", "compiled"])
def phrases_in(request, monkeypatch):
    """`_phrases_in` both ways a process looks for phrases: directly (its first documents) and through
    the compiled searches (every document after those)."""
    monkeypatch.setattr(section_placeholders.Searches, "DIRECT", 10**9 if request.param == "direct" else 0)
    section_presence._template.cache_clear()
    yield lambda document: {p for p, _ in section_presence._phrases_in(document)}
    section_presence._template.cache_clear()


def test_the_searches_are_compiled_after_the_first_documents(monkeypatch) -> None:
    monkeypatch.setattr(section_placeholders.Searches, "DIRECT", 3)
    searches = section_placeholders.Searches(section_presence._template(None).placeholder_keys)
    assert [searches.get() is None for _ in range(5)] == [True, True, True, False, False]
    assert searches.get() is searches.get()  # compiled once


# White space str.split() splits on, beyond the space: a line break, a tab, NBSP, thin space, U+3000.
_GAPS = ("\n", "\t ", "\u00a0", "\u2009", "\u3000", "\n\n  ")


@pytest.mark.parametrize("phrase", section_placeholders.PLACEHOLDER_PHRASES)
def test_every_phrase_is_found_reflowed_in_any_case(phrase: str, phrases_in) -> None:
    for n, gap in enumerate(_GAPS):
        words = phrase.split(" ")
        reflowed = "".join(w + (gap if i % 2 else " ") for i, w in enumerate(words)).strip()
        for variant in (reflowed, reflowed.upper(), reflowed.title()):
            text = f"## Context\n\nSome words ({n}) before. {variant} and after.\n"
            found = phrases_in(parse_document(text))
            assert phrase in found, (gap, variant)
            assert found == _reference_phrases(text)


def test_the_two_characters_whose_lower_case_is_ascii_are_looked_through(phrases_in) -> None:
    # KELVIN SIGN lowers to `k`: str.lower() reads "bro\u212aen" as "broken"; bytes.lower() would not
    text = "## Approach\n\nApproach sub-questions bro\u212aen into atomic questions\n"
    assert phrases_in(parse_document(text)) == {"Approach sub-questions broken into atomic questions"}


def test_near_misses_are_not_phrases(phrases_in) -> None:
    text = (
        "## Context\n\nState the specific, answerable question this research address.\n"
        "Claim text as a complete statement? Why is this question worth answering today?\n"
        "[Smith et al. (YYYY) Source Title](https://url.example)\n"
    )
    assert phrases_in(parse_document(text)) == set()
    assert _reference_phrases(text) == set()


def test_every_phrase_is_found_when_all_are_there(phrases_in) -> None:
    # The search stops at its first match: whichever phrase it meets, every phrase is then looked for.
    text = "## Context\n\n" + "\n".join(reversed(section_placeholders.PLACEHOLDER_PHRASES)) + "\n"
    assert phrases_in(parse_document(text)) == set(section_placeholders.PLACEHOLDER_PHRASES)


def test_a_near_miss_of_the_search_is_no_phrase(phrases_in) -> None:
    # `eqplicit` folds as `explicit` does (both rare characters become NUL): the search matches, and
    # the exact look finds no phrase.
    text = "## Context\n\nFacts, inferences, and assumptions eqplicitly separated.\n"
    search = section_placeholders.phrase_search(section_presence._PLACEHOLDER_KEYS)
    assert search is not None and search.pattern.search(text.lower().encode().translate(search.table))
    assert phrases_in(parse_document(text)) == set()


def test_custom_phrases_without_an_ascii_character_are_looked_through_directly(monkeypatch) -> None:
    params = SectionPresenceParams(placeholders=("Заполните раздел", "Fill in: the section"))
    assert section_placeholders.phrase_search(section_presence._template(params).placeholder_keys) is None
    monkeypatch.setattr(section_placeholders.Searches, "DIRECT", 0)
    section_presence._template.cache_clear()
    try:
        text = "## Context\n\nЗАПОЛНИТЕ\n раздел, and fill in:  the SECTION\n"
        found = section_presence._phrases_in(parse_document(text), section_presence._template(params))
        assert [phrase for phrase, _ in found] == ["Заполните раздел", "Fill in: the section"]
    finally:
        section_presence._template.cache_clear()


def test_custom_phrases_without_a_rare_character_are_found(phrases_in) -> None:
    # no character of `section_placeholders._RARE_FIRST`: the search starts from the first ASCII character
    params = SectionPresenceParams(placeholders=("Noch mehr Sinn",))
    keys = section_presence._template(params).placeholder_keys
    search = section_placeholders.phrase_search(keys)
    assert search is not None and search.table[ord("n")] == search.table[ord("N")] == 0
    text = "## Context\n\nUnd NOCH\u00a0mehr  SINN.\n"
    assert [
        p for p, _ in section_presence._phrases_in(parse_document(text), section_presence._template(params))
    ] == ["Noch mehr Sinn"]


def test_corpus_phrase_search_agrees_with_the_plain_rule(corpus_dir, phrases_in) -> None:
    for path in sorted(corpus_dir.glob("*.md")):
        document = parse_document(path.read_text(encoding="utf-8"))
        found = phrases_in(document)
        assert found == _reference_phrases(document.text), path.name


@pytest.mark.parametrize(
    "row",
    [
        "| | | high / medium / low | |",
        "|\u00a0|\u2009|",  # blank cells of non-ASCII white space
        "| HIGH / MEDIUM / LOW |",
        "| high\u00a0/\u3000medium / low |",
    ],
)
def test_every_form_of_the_empty_evidence_row_is_found(row: str) -> None:
    text = research_item().replace("|---|---|---|---|", "|---|---|---|---|\n" + row)
    outcome = run(text)
    assert [f.message for f in outcome.findings] == ["### Evidence Map still holds the template's empty row"]
    assert outcome.findings[0].line == line_of(text, row)


def test_rows_with_text_are_not_empty_rows() -> None:
    text = research_item().replace("|---|---|---|---|", "|---|---|---|---|\n| a | b | high | c |")
    assert run(text).findings == ()


_TRIE_BYTES = st.sampled_from([b"a", b"b", b"ab", b"\x00", b"."])
_BRANCHES = st.lists(
    st.tuples(
        st.lists(_TRIE_BYTES, max_size=3).map(b"".join),
        st.sampled_from([b"", b"c", b"(?<=a)", b"(?<=\x00a)b", b"(?:c|a)+", b"\\."]),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(branches=_BRANCHES, text=st.lists(st.sampled_from([b"a", b"b", b"c", b"\x00", b"."]), max_size=12))
@example(branches=[(b"ab", b""), (b"a", b"c"), (b"", b"(?<=a)")], text=[b"\x00", b"a", b"c"])
def test_the_merged_alternation_matches_where_the_flat_one_does(
    branches: list[tuple[bytes, bytes]], text: list[bytes]
) -> None:
    """The phrase search's branches merged into a trie of their literals match at the same places as
    the branches side by side (which branch matches may differ; the search asks only whether one does)."""
    data = b"".join(text)
    merged = re.compile(b"\x00" + section_placeholders.alternation(branches))
    flat = re.compile(b"\x00(?:" + b"|".join(re.escape(literal) + tail for literal, tail in branches) + b")")
    assert [merged.match(data, i) is not None for i in range(len(data))] == [
        flat.match(data, i) is not None for i in range(len(data))
    ]
