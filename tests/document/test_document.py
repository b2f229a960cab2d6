from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from evalgate.checks import registry, run_check
from evalgate.document import DocumentError, parse_document, read_document
from evalgate.document.scan import scan_lines
from evalgate.results import Status

ITEM = """---
title: "Example"
status: completed
---

# Example

## Findings

### Executive Summary

Digests prove equality, e.g. for bundles. They are cheap.

### Key Findings

1. **First claim words here.** ([fact]; high confidence; source: https://a.example/1)
2) [inference; source: https://b.example] Second claim text. Sources: https://c.example

```md
# not a heading
```

### Evidence Map

| Claim | Source | Confidence | Notes |
|---|---|---|---|
| [fact] First | https://a.example/1 | high | n |

## Sources

- [x] [A](https://a.example/1) — first
- [ ] [B](https://b.example) — second
- plain https://c.example
"""


def test_parse_fills_the_contract() -> None:
    doc = parse_document(ITEM, path="x.md")
    assert doc.front_matter.data == {"title": "Example", "status": "completed"}
    assert (doc.front_matter.start_line, doc.front_matter.end_line) == (1, 4)
    assert [(s.level, s.title, s.line) for s in doc.sections][:3] == [
        (1, "Example", 6),
        (2, "Findings", 8),
        (3, "Executive Summary", 10),
    ]
    assert doc.code_blocks == ((19, 21),)
    assert "not a heading" not in [s.title for s in doc.sections]
    assert "executive_summary" not in vars(doc)  # no check reads it: read when first asked for
    assert doc.executive_summary_section is not None and doc.executive_summary_section.line == 10
    assert doc.executive_summary is not None
    assert doc.executive_summary.first_sentence == "Digests prove equality, e.g. for bundles."
    assert (doc.executive_summary.line, doc.executive_summary.end_line) == (12, 12)
    assert pickle.loads(pickle.dumps(doc)) == doc  # a worker hands documents back read or not
    assert [k.claim for k in doc.key_findings] == ["**First claim words here.**", "Second claim text."]
    assert [k.line for k in doc.key_findings] == [16, 17]
    assert doc.evidence_rows[0].line == 27 and doc.evidence_rows[0].source == "https://a.example/1"
    assert [(s.line, s.checked, s.urls) for s in doc.sources] == [
        (31, True, ("https://a.example/1",)),
        (32, False, ("https://b.example",)),
        (33, None, ("https://c.example",)),
    ]


def test_sources_read_their_subsections_and_span_their_lines() -> None:
    """Authors file sources they did not consult under a subsection of Sources: it is read too, and
    each entry spans its lines (a label line between two groups is no entry's)."""
    text = (
        "## Sources\n\n- [x] [A](https://a.example/1) first,\n  wrapped\n\n**Also:**\n\n- [x] [B](https://b.example)\n\n"
        "### Identified but not consulted\n\n- [ ] [C](https://c.example)\n\n"
        "## Research Skill Output\n\nNotes.\n"
    )
    doc = parse_document(text)
    assert [(s.line, s.checked, s.urls) for s in doc.sources] == [
        (3, True, ("https://a.example/1",)),
        (8, True, ("https://b.example",)),
        (12, False, ("https://c.example",)),
    ]
    assert doc.sources[0].end_line >= 4 and doc.sources[0].end_line < 6  # its wrapped line, not the label


@pytest.mark.parametrize(
    "edit", [lambda t: t.replace("\n", "\r\n"), lambda t: "\ufeff" + t, lambda t: t.replace("\n", "  \n")]
)
def test_line_ends_bom_and_trailing_spaces_change_nothing(edit) -> None:
    plain, edited = parse_document(ITEM), parse_document(edit(ITEM))
    assert [(s.line, s.end_line, s.title) for s in edited.sections] == [
        (s.line, s.end_line, s.title) for s in plain.sections
    ]
    assert [(k.line, k.claim) for k in edited.key_findings] == [(k.line, k.claim) for k in plain.key_findings]
    assert edited.code_blocks == plain.code_blocks and len(edited.lines) == len(plain.lines)


def test_broken_and_hostile_front_matter_are_error_values() -> None:
    broken = parse_document("---\ntitle: [unclosed\nok: 1\n---\n# T\n")
    assert broken.front_matter.data is None and broken.front_matter.error
    assert broken.front_matter.error_line is not None and broken.front_matter.error_line >= 2
    tagged = parse_document("---\nx: !!python/object/apply:os.system ['true']\n---\n")
    assert tagged.front_matter.data is None and "invalid YAML" in (tagged.front_matter.error or "")
    bomb = (
        "---\na: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
        )
        + "---\n"
    )
    assert "expands" in (parse_document(bomb).front_matter.error or "")
    deep = parse_document("---\nx: " + "[" * 50000 + "\n---\n")
    assert "nests deeper" in (deep.front_matter.error or "")
    assert parse_document("---\n- a list\n---\n").front_matter.error
    assert parse_document("---\nno closing line\n").front_matter.error


def test_front_matter_dates_stay_the_text_written() -> None:
    # A date that does not exist used to make the whole front matter invalid YAML (a datetime could
    # not be built), so its title went with it; dates are data evalgate never computes with.
    started = "2026-02-28T09:06:25+00:00"
    doc = parse_document(f'---\ntitle: "TITLE"\nadded: 2026-02-30\nstarted: {started}\n---\n# T\n')
    assert doc.front_matter.error is None
    assert doc.front_matter.data == {"title": "TITLE", "added": "2026-02-30", "started": started}
    # the template title it keeps is still found, on its line
    from evalgate.checks.section_presence import _template_title_line

    assert _template_title_line(doc) == 2


def test_scan_is_exact_about_fences() -> None:
    lines = ("````", "```", "# inside", "````", "## after", "~~~", "# x", "~~~")
    scan = scan_lines(lines)
    assert scan.headings == ((5, 2, "after"),)
    assert scan.code_blocks == ((1, 4), (6, 8))


def test_setext_heading_and_closing_hashes() -> None:
    doc = parse_document("Title\n=====\n\n## Scope ##\n\ntext\n")
    assert [(s.level, s.title, s.line) for s in doc.sections] == [(1, "Title", 1), (2, "Scope", 4)]


def test_read_document_refuses_bad_files(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no such file"):
        read_document(tmp_path / "absent.md")
    with pytest.raises(DocumentError, match="not a regular file"):
        read_document(tmp_path)
    (tmp_path / "latin1.md").write_bytes(b"# caf\xe9\n")
    with pytest.raises(DocumentError, match="offset 5"):
        read_document(tmp_path / "latin1.md")
    (tmp_path / "bin.md").write_bytes(b"# a\x00b")
    with pytest.raises(DocumentError, match="NUL byte at offset 3"):
        read_document(tmp_path / "bin.md")
    (tmp_path / "big.md").write_bytes(b"x" * 2000)
    with pytest.raises(DocumentError, match="2000 bytes"):
        read_document(tmp_path / "big.md", max_bytes=1000)
    (tmp_path / "empty.md").write_bytes(b"")
    empty = read_document(tmp_path / "empty.md")
    assert empty.lines == () and empty.sections == ()
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.md")
        with pytest.raises(DocumentError, match="not a regular file"):
            read_document(tmp_path / "fifo.md")


def test_every_corpus_item_parses_and_checks(corpus_dir: Path) -> None:
    paths = sorted(corpus_dir.glob("*.md"))
    assert len(paths) >= 400
    for path in paths:
        doc = read_document(path)
        assert doc.sections, path
        for name in registry():  # every registered check, whatever its rubric
            result = run_check(name, doc)
            assert result.status is Status.SCORED, (path, result.error)
            assert all(1 <= f.line <= max(len(doc.lines), 1) for f in result.findings), (path, name)


def test_corpus_headings_match_a_full_markdown_it_parse(corpus_dir: Path) -> None:
    """The cheap line scan finds exactly the headings markdown-it-py finds (sampled for speed)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
    for path in sorted(corpus_dir.glob("*.md"))[::15]:
        doc = read_document(path)
        start = doc.front_matter.end_line or 0
        tokens = md.parse("\n".join(doc.lines[start:]) + "\n")
        expected = [t.map[0] + 1 + start for t in tokens if t.type == "heading_open" and t.map]
        assert [s.line for s in doc.sections] == expected, path


def test_corpus_evidence_maps_match_markdown_it_tables(corpus_dir: Path) -> None:
    """The line-scan pipe table reads every corpus Evidence Map cell for cell as markdown-it-py does."""
    from evalgate.document.blocks import parse_region

    for path in sorted(corpus_dir.glob("*.md"))[::5]:
        doc = read_document(path)
        if doc.evidence_map is None:
            continue
        section = next(
            s
            for s in doc.sections
            if s.line < doc.evidence_map.line <= s.end_line and s.key == "evidence map"
        )
        (table, *_) = parse_region(doc.lines, section.line + 1, doc.evidence_map.end_line, tables=True).tables
        assert table.header == doc.evidence_map.header, path
        assert [(r.line, r.cells) for r in table.rows] == [
            (r.line, r.cells) for r in doc.evidence_map.rows
        ], path


def test_pipe_table_rules() -> None:
    doc = parse_document(
        "## Findings\n\n### Evidence Map\n\n"
        "| a | b |\n|:--|--:|\n| 1 \\| 2 | x | extra |\n| only |\n> quote\n"
    )
    assert doc.evidence_map is not None
    assert [r.cells for r in doc.evidence_map.rows] == [("1 \\| 2", "x"), ("only", "")]


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("# Title\n\nText — with a dash.\n".encode(), True),
        (b"\xef\xbb\xbf# Title\n\nText.\n", False),  # the BOM is dropped from the text
        (b"# Title\r\n\r\nText.\r\n", False),  # CRLF becomes LF
    ],
)
def test_read_document_keeps_the_file_bytes_only_when_they_are_the_text(
    tmp_path: Path, raw: bytes, kept: bool
) -> None:
    path = tmp_path / "item.md"
    path.write_bytes(raw)
    doc = read_document(path)
    assert doc.utf8 == (raw if kept else None)
    if doc.utf8 is not None:
        assert doc.utf8 == doc.text.encode("utf-8")
    assert parse_document(raw.decode("utf-8-sig"), path=str(path)) == doc  # bytes take no part in ==


def test_a_document_kept_for_judges_leaves_its_bytes_behind(tmp_path: Path) -> None:
    """A document kept for the judges is sent from a worker process to the main one: without its
    bytes, which only the structural checks read."""
    from evalgate.discover import Target
    from evalgate.run import StructuralPass

    path = tmp_path / "item.md"
    path.write_text("# Title\n\n## Findings\n\nText.\n", encoding="utf-8")
    evaluated = StructuralPass(
        max_bytes=1 << 20, checks=(("section_presence", False, None),), keep_document=True
    )(Target(display="item.md", path=path))
    assert evaluated.document is not None and evaluated.document.utf8 is None
    assert evaluated.document.text == read_document(path).text
