"""`URL` is spelled without re.I so that `re` can skip to its first letter; it finds exactly what
the case-blind pattern it replaces finds, with every method the checks call."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document.findings import URL, urls_in

CASE_BLIND = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]|`\"']+(?:\([^\s()]*\)[^\s<>()\[\]|`\"']*)*", re.I)

EVERY_CHARACTER = "".join(map(chr, range(0x110000)))


def test_each_part_matches_what_it_matched_under_re_i() -> None:
    # over every code point: a letter of the scheme, and the classes of what follows it
    for case_blind, spelled in [
        ("h", "[hH]"),
        ("t", "[tT]"),
        ("p", "[pP]"),
        ("s", "[sS\u017f]"),
        ("w", "[wW]"),
        (r"[^\s<>()\[\]|`\"']", r"[^\s<>()\[\]|`\"']"),
        (r"[^\s()]", r"[^\s()]"),
    ]:
        assert re.findall(case_blind, EVERY_CHARACTER, re.I) == re.findall(spelled, EVERY_CHARACTER)


PIECES = st.sampled_from(
    [
        "http",
        "HTTPS",
        "hTtPſ",
        "://",
        "www.",
        "WwW.",
        "w",
        "h",
        "s",
        "x",
        ".",
        "/",
        "(",
        ")",
        "[",
        "]",
        " ",
        "\n",
        "|",
        "`",
        '"',
        "'",
        "<",
        ">",
        "é",
        "\u212a",
        "ſ",
        "a.b",
        "?q=1",
        "#f",
        ").",
    ]
)


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.lists(PIECES, max_size=20).map("".join), st.text(max_size=30)))
@example("see https://a.b/c_(d) and WWW.x.org, httpſ://y")
@example("hwww.x hhttp://y whttps://z hww.q wttp://r")
@example("http://a(b)c)d www.e(f g)h")
def test_url_finds_what_the_case_blind_pattern_finds(text: str) -> None:
    assert _spans(URL, text) == _spans(CASE_BLIND, text)
    assert bool(URL.search(text)) == bool(CASE_BLIND.search(text))
    assert URL.sub(" ", text) == CASE_BLIND.sub(" ", text)
    assert URL.sub(" ", text.lower()) == CASE_BLIND.sub(" ", text.lower())


def test_urls_in_trims_and_dedupes() -> None:
    text = "A (https://a.org/x). B www.b.org; again https://a.org/x, HTTP://C.ORG/Y_"
    assert urls_in(text) == ("https://a.org/x", "www.b.org", "HTTP://C.ORG/Y")
