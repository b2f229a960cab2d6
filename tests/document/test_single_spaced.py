"""`single_spaced` returns a text unchanged when splitting and joining it would give it back, and
otherwise does that; it equals `" ".join(text.split())` on any text."""

from __future__ import annotations

import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document.prose import single_spaced

WHITE_SPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


def test_every_white_space_character_but_the_space_is_unprintable() -> None:
    # what the shortcut rests on
    assert [c for c in WHITE_SPACE if c.isprintable()] == [" "]


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.lists(st.sampled_from([*WHITE_SPACE, "a", "é", "—", "x y", "\u200b"]), max_size=12).map("".join),
    )
)
@example("a  b")
@example(" a")
@example("a ")
@example("a\u00a0b")
@example("")
def test_single_spaced_is_split_and_join(text: str) -> None:
    assert single_spaced(text) == " ".join(text.split())
