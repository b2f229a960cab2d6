"""A source's labels in the body: the fast forms (an author found by str.find, sentence ends found from
their point) held to their plain patterns on generated text."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.checks.source_names import _SENTENCE_END, AuthorYear, Title, _places

SENTENCE_PIECES = st.sampled_from(
    ["al", "e.g", "i.e", "vs", "cf", "Fig", "No", "p", ".", "!", "?", ";", " ", "\n", "x", "_", "é", "et "]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(SENTENCE_PIECES, max_size=16).map("".join))
@example("et al. e.g. x.p. Fig. No; vs? ap. y. é.")
def test_sentence_ends_are_the_look_behind_first_patterns(text: str) -> None:
    plain = re.compile(
        r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)(?<!\bFig)(?<!\bNo)(?<!\bp)[.!?;](?=\s)"
    )
    assert [m.span() for m in _SENTENCE_END.finditer(text)] == [m.span() for m in plain.finditer(text)]


AUTHOR_PIECES = st.sampled_from(
    ["Smith", "smith", "A.A", "A.", "Ng", "-", "'", "’", "_", " ", "\n", "é", "x", "2024", "(", "²", "Jr"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(AUTHOR_PIECES, max_size=16).map("".join))
@example("A.A.A Smith-x xSmith 'Smith Smith² _Smith Smith")
def test_an_authors_places_are_the_patterns_matches(text: str) -> None:
    for author in ("Smith", "A.A", "Ng", "van Smith", "Smith Jr"):
        for any_case in (False, True):
            label = AuthorYear(author, "2024")
            plain = [m.span() for m in label.pattern(any_case).finditer(text)]
            last = author.split()[-1]
            if (last.lower() if any_case else last) not in text:
                plain = []
            assert list(_places(label, text, any_case)) == plain


TITLE_PIECES = st.sampled_from(
    ["The", "the", "THE", "Elements", "elements", "of", "Of", "Learning", "learning", "ı", "ſ", "İ", "\u212a",
     "Kit", "kit", " ", "\n", "-", "*", "_", "é", "x", "2", ", ", "theElements"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(TITLE_PIECES, max_size=16).map("".join))
@example("the elements of learning*The Elements_of learning the--elements of, learning2")
@example("KIT of the \u212ait of the kit of thex")
@example("of the of the of of of x elements elements x elementsx")  # overlapping places: as finditer
@example("the elementſ of learning, kıt of the İ the elements of learning")  # ſ is s, ı is i, İ lowers to 2
def test_a_titles_places_are_the_patterns_matches(text: str) -> None:
    for title in ("the elements of learning", "kit of the", "élan of it", "of of", "of the of", "x elements"):
        label = Title(title)
        plain = [m.span() for m in label.pattern().finditer(text)]
        assert list(_places(label, text, True)) == plain
        # with the text's A-Z lowered at hand (Body.ascii_lowered), as source_consultation gives it
        assert list(_places(label, text, True, text.encode("utf-8").lower().decode("utf-8"))) == plain
