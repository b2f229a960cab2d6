"""How addresses compare, and where the body cites them: the fast paths (URLs found by findall and
located by find, identifiers found from each `10.` and `arxiv` on lowered bytes) held to their plain
forms on generated text."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.checks.source_citations import _CODE_SPAN, Body, _without_unticked_items
from evalgate.checks.source_keys import (
    identifier_keys,
    lowered_identifiers,
    source_keys,
    text_identifiers,
    url_key,
)
from evalgate.document import parse_document
from evalgate.document.findings import urls_in


def test_url_keys() -> None:
    assert url_key("HTTPS://WWW.Example.org/A/b/#top") == "example.org/a/b"
    assert url_key("http://example.org/a%20b/") == url_key("https://example.org/a b")
    assert url_key("https://youtu.be/Ab1?si=Xy9") == url_key("https://youtu.be/Ab1")
    assert url_key("https://x.org/p?id=4&utm_source=feed&utm_medium=rss") == "x.org/p?id=4"
    assert url_key("https://x.org/p?id=4") != url_key("https://x.org/p?id=5")
    assert url_key("https://x.org/page") != url_key("https://x.org/page/child")
    raw = "https://raw.githubusercontent.com/Owner/Repo/main/docs/a.md"
    assert url_key(raw) == url_key("https://github.com/owner/repo/blob/main/docs/a.md")
    assert url_key("https://raw.githubusercontent.com/owner") == "raw.githubusercontent.com/owner"


def test_identifier_keys() -> None:
    assert identifier_keys("see doi:10.1145/3442188.3445922.") == {"doi:10.1145/3442188.3445922"}
    assert identifier_keys("https://dl.example.org/doi/pdf/10.1145/ABC.123.pdf") == {"doi:10.1145/abc.123"}
    assert identifier_keys("https://doi.org/10.1007%2Fs10664-015-9381-9") == {"doi:10.1007/s10664-015-9381-9"}
    assert identifier_keys("arXiv:2310.06770v3 and https://arxiv.org/abs/cs/0112017v1") == {
        "arxiv:2310.06770",
        "arxiv:cs/0112017",
    }
    assert identifier_keys("version 10.2 of the tool, 2310.06770 alone") == set()
    assert source_keys("https://arxiv.org/pdf/2310.06770") == {"arxiv.org/pdf/2310.06770", "arxiv:2310.06770"}


IDENTIFIER_PIECES = st.sampled_from(
    ["10.", "1234", "56789/", "ab.c", "doi:", "arXiv:", "ARXIV: ", "arxiv.org/abs/", "arxiv.org/pdf/", "cs/",
     "0112017",
     "2310.06770", "v2", ".pdf", "x", "_", "-", " ", "\n", "(", ")", "%2F", "é", "—"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(IDENTIFIER_PIECES, max_size=24).map("".join))
@example("a10.1234/x b10.1234/y _10.1234/z —10.1234/w")
@example("xarxiv:2310.06770 arxiv:2310.06770 xarxiv.org/abs/2310.06770")
@example("10.56789/10.56789/10.")  # a DOI's suffix holding `10.`: no second DOI inside the first
@example("éarXiv:2310.06770 é10.1234/x —arXiv:2310.06770")  # a letter outside ASCII is a word character
def test_identifiers_from_lowered_bytes_are_the_regexs(text: str) -> None:
    fast = sorted(lowered_identifiers(text.encode("utf-8").lower()))
    assert fast == sorted(text_identifiers(text))


URL_PIECES = st.sampled_from(
    ["https://", "HTTP://", "www.", "a.org", "/p", "?q=1", "#f", ".", ",", ")", "(", "[x](", "`", "``", " ",
     "\n",
     "https://a.org/p", "https://a.org/p/q", "url=https://b.org", "- [ ] ", "- [x] ", "```\n", "é",
     "httpſ://", "hTtPs://", "WWW.", "ww", "\u00a0", "—", "é/x", "\u2028", "\u212a", "xhttp://", "\x1f",
     "https://a.org", "?u=https://a.org/p", "https://www.a.org/p", "https://é", "(p)", "https://a.org/p(q)r",
     "http://www.", "ftp://www.", "//www.", "?u=www.a.org"]
)  # fmt: skip


def _plain_citations(text: str) -> list[tuple[str, int]]:
    """Body's citations by the plain route: every URL of every body line (`urls_in`), first
    occurrence of each key, with the same code and `[ ]` lines set aside."""
    document = parse_document(text)
    body = Body(document)
    lines = body.raw.split("\n")
    seen: dict[str, tuple[str, int]] = {}
    for index, line in enumerate(lines):
        for url in urls_in(line):
            seen.setdefault(url_key(url), (url, body.numbers[index]))
    return list(seen.values())


@settings(max_examples=300, deadline=None)
@given(st.lists(URL_PIECES, max_size=30).map("".join))
@example("https://a.org/p?u=https://b.org/x https://b.org/x")
@example("https://a.org/p https://a.org/pq https://a.org/p")
# a URL met first inside a repeated one, then as the start of a repeated longer one
@example("https://a.org/?u=https://b.org https://c.org https://a.org/?u=https://b.org\nhttps://b.org")
@example("https://a.org/p https://c.org https://a.org/p\nhttps://a.org")
@example("https://a.org/p\x1fq")  # \x1f is white space to URL
@example("ftp://www.a.org/p https://www.b.org/q")  # a `www.` after another scheme starts a URL
def test_citations_are_every_url_at_its_first_line(body: str) -> None:
    text = (
        f"## Sources\n\n- [x] [A](https://a.org/p)\n\n## Research Skill Output\n\n{body}\n\n"
        "## Findings\n\nEnd.\n"
    )
    found = [(c.url, c.line) for c in Body(parse_document(text)).citations]
    assert found == _plain_citations(text)


def test_a_url_first_found_inside_another_is_placed_where_it_stands_alone() -> None:
    text = (
        "## Research Skill Output\n\nhttps://a.org/p?u=https://b.org/x\n\nAlso https://b.org/x here.\n\n"
        "## Findings\n\nEnd.\n"
    )
    assert [(c.url, c.line) for c in Body(parse_document(text)).citations] == [
        ("https://a.org/p?u=https://b.org/x", 3),
        ("https://b.org/x", 5),
    ]


UNTICKED_LINE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\*\*|__)?\[ \].*$", re.M)
ITEM_PIECES = st.sampled_from(
    ["- ", "* ", "1. ", "12) ", "  ", "\t", "[ ]", "[x]", "**[ ]**", "__", "x", "\n", " "]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(ITEM_PIECES, max_size=20).map("".join))
@example("- [ ] a\ntext [ ] b\n  1. **[ ]** c [ ]\n-[ ] d")
def test_unticked_items_are_the_line_patterns(text: str) -> None:
    assert _without_unticked_items(text) == (UNTICKED_LINE.sub("", text), UNTICKED_LINE.findall(text))


# the code-span pattern as first written: a lazy `.*?` tried against the closing run after every
# character of the span
PLAIN_CODE_SPAN = re.compile(r"`(`*)(?!`).*?(?<!`)`\1(?!`)")
SPAN_PIECES = st.sampled_from(["`", "``", "```", "a", "b c", "\n", " ", "é", "/", "\\"])


@settings(max_examples=500, deadline=None)
@given(st.lists(SPAN_PIECES, max_size=24).map("".join))
@example("``a`b`` c `d``e` `` f ``` g `")  # a run of another length inside a span, an unclosed one
@example("`a``\n`b` ``c```d`` `")
def test_code_spans_are_the_lazy_patterns(text: str) -> None:
    assert [m.span() for m in _CODE_SPAN.finditer(text)] == [m.span() for m in PLAIN_CODE_SPAN.finditer(text)]


PHRASE_PIECES = st.sampled_from(
    ["not", "consulted", "returned", "403", "paywalled", "pay", "wall", "access", "-gated", "gated", "in",
     "this", "session", "Session", "identified", "but", ",", ";", " ", "\n", "non", "-", "_", "é", "x", "NOT",
     "retrieval", "İ", "ı", "ſ", "\u212a", "ACCESS", "paywalled", "Returned", "not consulted"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(PHRASE_PIECES, max_size=14).map("".join))
@example("non-access-gated, identified,but not  consulted")
@example("ſeſſion acceſſ not conſulted İdentified")  # ſ is s, and İ is i, in any case
@example("It returned 403; see FAILED_PRIMARY_SEARCH.")  # digits and `_` are parts of words
def test_a_phrase_lists_word_filter_never_hides_a_match(text: str) -> None:
    from evalgate.checks.source_reasons import ACCESS_NOTES, REASONS, phrase_pattern

    for phrases in (
        REASONS,
        ACCESS_NOTES,
        ("access-gated", "pay*", "not retriev*"),
        ("Not Consulted", "café"),
        ("failed_primary_search", "http 403"),
    ):
        matcher = phrase_pattern(phrases)
        assert matcher.search(text) == (matcher.pattern.search(text) is not None)


TITLE_PIECES = st.sampled_from(
    ["The", "the", "THE", "Elements", "elements", "of", "Of", "Learning", "learning", "ı", "ſ", "İ", "\u212a",
     "Kit", "kit", "Statistical", " ", "\n", "-", "*", "é"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(TITLE_PIECES, max_size=16).map("".join))
@example("The Elements of Statiſtical Learning")  # ſ is s in any case
@example("thE elements OF statistical learning")
def test_a_title_the_body_cannot_write_is_named_nowhere(body: str) -> None:
    from evalgate.checks.source_names import Title, mentions

    document = parse_document(f"## Research Skill Output\n\n{body}\n\n## Findings\n\nEnd.\n")
    found = Body(document)
    for title in (Title("the elements of statistical learning"), Title("kit of the"), Title("élan of it")):
        if not found.may_write(title):
            assert list(mentions(title, found.raw, found.numbers)) == []


def test_lowering_keeps_each_characters_length_and_class_and_what_an_ascii_letter_matches() -> None:
    """What the lower-case readings of Phrases.search and source_names rest on, over every code point
    outside FOLDS: lowering keeps a character one character, of its class (`\\w`, `\\s`); a character
    outside ASCII neither lowers into ASCII nor matches an ASCII letter under `re.I`."""
    from evalgate.checks.source_reasons import FOLDS

    word, space = re.compile(r"\w"), re.compile(r"\s")
    ascii_letters = re.compile("[a-z]", re.I)
    folded = 0
    for point in range(0x110000):
        character = chr(point)
        if 0xD800 <= point < 0xE000:
            continue
        if character in FOLDS:
            folded += 1
            continue
        lowered = character.lower()
        assert len(lowered) == 1
        assert bool(word.match(character)) == bool(word.match(lowered))
        assert bool(space.match(character)) == bool(space.match(lowered))
        if point > 127:
            assert not lowered.isascii()
            assert not ascii_letters.match(character)
    assert folded == 4
