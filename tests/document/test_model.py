"""The document types built by the thousand fill their fields in one call (model.py: Section.__init__):
they must still be the frozen dataclasses their fields say. `find_section` under a section gives
what filtering every section gives; `build_sections` what a plain search gives."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.document import parse_document
from evalgate.document.model import (
    Document,
    EvidenceRow,
    KeyFinding,
    ListItem,
    Section,
    SourceEntry,
    TableRow,
)
from evalgate.document.reader import build_sections

MADE = [
    Section(2, "§6 Synthesis", 10, 20),
    ListItem(1, 2, "text"),
    ListItem(3, 4, "done", ordered=True, checked=True),
    TableRow(5, ("a", "b")),
    KeyFinding(1, 6, 7, "Claim. (fact)", "Claim."),
    EvidenceRow(8, "[fact] c", "https://x.org", "high", "", ("[fact] c", "https://x.org", "high", "")),
    SourceEntry(9, True, "[x](https://x.org)", ("https://x.org",)),
]


@pytest.mark.parametrize("made", MADE, ids=lambda m: type(m).__name__)
def test_every_field_is_set_and_none_else(made) -> None:
    assert set(vars(made)) == {f.name for f in dataclasses.fields(made)}


@pytest.mark.parametrize("made", MADE, ids=lambda m: type(m).__name__)
def test_they_stay_frozen_equal_and_hashable(made) -> None:
    name = dataclasses.fields(made)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, name, 0)
    twin = dataclasses.replace(made)
    assert twin == made and hash(twin) == hash(made) and repr(twin) == repr(made)
    assert dataclasses.replace(made, line=99) != made


def test_defaults_and_keywords_are_the_dataclass_ones() -> None:
    assert ListItem(line=1, end_line=2, text="t") == ListItem(1, 2, "t", False, None)
    section = Section(level=1, title="§6 Synthesis", line=1, end_line=1)
    assert section.key == "6 synthesis"
    assert dataclasses.replace(section, title="Risks, Gaps").key == "risks gaps"


# find_section under a section takes the sections between its lines by bisection; the plain form
# filters every section.
def find_section_plainly(doc: Document, key: str, under: Section | None) -> Section | None:
    for s in doc.sections:
        if under is not None and not (under.line < s.line <= under.end_line):
            continue
        if s.key == key or s.key.startswith(key + " "):
            return s
    return None


_TITLES = ["Findings", "Key Findings", "Key", "Sources", "Map x"]
_HEADINGS = st.tuples(st.integers(1, 4), st.sampled_from(_TITLES))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_HEADINGS, st.sampled_from(["", "text"])), max_size=14))
def test_find_section_under_a_section_is_the_plain_filter(parts: list[tuple[int, str] | str]) -> None:
    text = "\n".join(f"{'#' * p[0]} {p[1]}" if isinstance(p, tuple) else p for p in parts)
    doc = parse_document(text)
    for key in ("findings", "key findings", "key", "sources", "map", "map x", "absent"):
        for under in (None, *doc.sections):
            assert doc.find_section(key, under=under) is find_section_plainly(doc, key, under)


def sections_plainly(
    lines: tuple[str, ...], headings: list[tuple[int, int, str]]
) -> list[tuple[int, str, int, int]]:
    """Each section ends before the next heading of the same or a higher level (a quadratic search),
    trailing blank lines excluded."""
    out = []
    for i, (line, level, title) in enumerate(headings):
        end = next((at - 1 for at, deeper, _ in headings[i + 1 :] if deeper <= level), len(lines))
        while end > line and not lines[end - 1].strip():
            end -= 1
        out.append((level, title, line, end))
    return out


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["", " ", "x"])), max_size=20), st.data())
def test_build_sections_is_the_plain_search(rows: list[tuple[int, str]], data: st.DataObject) -> None:
    lines = tuple(text for _, text in rows)
    at = sorted(data.draw(st.sets(st.integers(1, max(len(lines), 1)), max_size=len(lines))))
    headings = [(line, rows[line - 1][0], f"h{line}") for line in at if line <= len(lines)]
    built = [(s.level, s.title, s.line, s.end_line) for s in build_sections(lines, tuple(headings))]
    assert built == sections_plainly(lines, headings)
