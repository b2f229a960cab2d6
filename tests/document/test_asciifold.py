"""ascii_lowered agrees with str.lower() on every ASCII needle, or declines."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document.asciifold import ascii_lowered

# ASCII letters and punctuation, and non-ASCII letters in both cases, including the two whose lower
# case is ASCII and one whose lower case is longer.
CHARS = st.sampled_from([*"aAkKiIsS-:/. ", "\u0130", "\u212a", "\u00c9", "\u00e9", "\u1e9e", "\u2014"])


@settings(max_examples=2000, deadline=None)
@given(st.text(CHARS, max_size=12), st.text(st.sampled_from(list("akis-:/. ")), min_size=1, max_size=4))
@example("\u212aey", "key")
@example("\u0130s", "is")
def test_ascii_needles_match_as_with_str_lower(text: str, needle: str) -> None:
    lowered = ascii_lowered(text)
    assert ascii_lowered(text, text.encode("utf-8")) == lowered  # the bytes at hand, not encoded again
    if lowered is None:
        assert "\u0130" in text or "\u212a" in text
    else:
        assert (needle.encode("ascii") in lowered) == (needle in text.lower())


def test_declines_only_for_the_two_characters() -> None:
    assert ascii_lowered("Caf\u00c9 KEY \u2014 x") == "caf\u00c9 key \u2014 x".encode()
    assert ascii_lowered("\u212aelvin") is None
    assert ascii_lowered("\u0130stanbul") is None


@settings(max_examples=500, deadline=None)
@given(st.text(CHARS, max_size=12))
def test_a_translation_table_is_applied_instead_of_lowering(text: str) -> None:
    # a table that lowers A-Z and makes `:` and `k` (in either case) NUL, as section_presence's does
    table = bytearray(bytes(range(256)).lower())
    table[ord(":")] = table[ord("k")] = table[ord("K")] = 0
    lowered = ascii_lowered(text)
    folded = ascii_lowered(text, None, bytes(table))
    assert folded == (None if lowered is None else lowered.replace(b":", b"\0").replace(b"k", b"\0"))
