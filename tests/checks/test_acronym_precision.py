"""Precision: English words written in capitals (emphasis, labels, query keywords) are not acronyms in a
document that never expands them, and are checked in one that does; decided by acronyms.yml's
`capitalised_words`, never by code."""

from __future__ import annotations

from evalgate.checks.acronym_expansion import find_problems
from evalgate.checks.acronym_table import common_expansions, load_table
from evalgate.document import parse_document


def _acronyms(text: str) -> list[str]:
    return [p.acronym for p in find_problems(parse_document(text))]


def test_query_keywords_and_emphasis_are_not_acronyms() -> None:
    text = (
        "The index uses SQLite full-text search with the FTS5 MATCH operator.\n\n"
        "Rows are read with SELECT ... ORDER BY rank and written with UPDATE.\n\n"
        "**PLANNING** comes first; this DOES require care. SPECULATIVE — an extrapolation.\n"
    )
    assert _acronyms(text) == ["FTS5"]


def test_a_capitalised_word_the_document_expands_is_an_acronym_there() -> None:
    text = "GREEN ranks first.\n\nA Graph Retrieval Engine Enhanced Network (GREEN) ranks documents.\n"
    (problem,) = find_problems(parse_document(text))
    assert (problem.acronym, problem.kind, problem.line) == ("GREEN", "late", 1)
    assert 'write "Graph Retrieval Engine Enhanced Network (GREEN)" at first use' in problem.message


def test_real_acronyms_beside_capitalised_words_are_still_reported() -> None:
    text = "The LLM and the GPU MATCH the PLANNING step of the RAG pipeline.\n"
    assert _acronyms(text) == ["GPU", "LLM", "RAG"]


def test_the_word_list_is_data_that_overlaps_nothing_else() -> None:
    table = load_table()
    words = table.capitalised_words
    assert {"MATCH", "PLANNING", "SPECULATIVE", "UPDATE", "INSANE", "BACKLOG"} <= words
    assert all(w.isupper() and w.isalpha() for w in words)
    assert not words & table.not_acronyms  # an unconditional word belongs in one list only
    assert not words & (set(table.required) | set(table.checked) | set(common_expansions()))


def test_size_labels_in_a_models_name_are_not_acronyms() -> None:
    """`GPT-2 XL`, a `T5-XXL` checkpoint: sizes, as `GB` or `MHz` are units (not_acronyms)."""
    text = (
        "Causal tracing on the XL variant of a 1.5B-parameter GPT-2 XL model, the T5-XXL checkpoint "
        "and an XS board; the CNN baseline trails.\n"
    )
    assert _acronyms(text) == ["CNN", "GPT"]


def test_names_set_in_capitals_from_the_hand_samples() -> None:
    """CNBC and GNU are names nobody expands; WARP and ADAPT are names unless a document expands them."""
    text = (
        "Reported by CNBC; the tool is GNU General Public License software. Cloudflare WARP routes "
        "traffic, and the ADAPT Centre hosts the survey; the VPN hides the IP.\n"
    )
    assert _acronyms(text) == ["IP", "VPN"]
    expanded = "A Weighted Adaptive Routing Protocol (WARP) ranks links.\n\nWARP is fast.\n"
    assert _acronyms(expanded) == []  # expanded here: an acronym, and rightly written
    assert _acronyms("WARP is fast.\n\nA Weighted Adaptive Routing Protocol (WARP) ranks links.\n") == [
        "WARP"
    ]
