"""globs.py: GitHub's `paths` filter patterns, the roots they cover, and why a path misses them."""

from __future__ import annotations

import pytest

from evalgate.github.globs import explain_miss, glob_roots, loose, path_matches, under_roots

PATHS = "Research/completed/**/*.md"


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("Research/completed/**/*.md", "Research/completed/a.md", True),
        ("Research/completed/**/*.md", "Research/completed/2026/01/a.md", True),
        ("Research/completed/**/*.md", "Research/completed/a.txt", False),
        ("Research/completed/**/*.md", "Research/completedX/a.md", False),
        ("Research/completed/**/*.md", "Research/draft/a.md", False),
        ("Research/completed/**/*.md", "other/Research/completed/a.md", False),
        ("*.md", "README.md", True),
        ("*.md", "docs/README.md", False),
        ("**.md", "docs/deep/README.md", True),
        ("docs/*", "docs/a.md", True),
        ("docs/*", "docs/sub/a.md", False),
        ("docs/**", "docs/sub/a.md", True),
        ("**", "anything/at/all", True),
        ("*.jsx?", "page.js", True),
        ("*.jsx?", "page.jsx", True),
        ("*.jsx?", "page.jsxx", False),
        ("ab+c.md", "abbbc.md", True),
        ("ab+c.md", "ac.md", False),
        ("[CB]at.md", "Cat.md", True),
        ("[CB]at.md", "Hat.md", False),
        ("v[0-9].md", "v7.md", True),
        ("a.md", "aXmd", False),  # '.' is literal
        ("\\*.md", "*.md", True),
        ("\\*.md", "x.md", False),
        ("docs/*.md", "docs/new\nline.md", True),
        ("docs/*.md", "docs/sub\n/x.md", False),
        ("Research/**\n!Research/drafts/**", "Research/drafts/x.md", False),
        ("Research/**\n!Research/drafts/**", "Research/done/x.md", True),
        ("Research/**\n!Research/drafts/**\nResearch/drafts/keep.md", "Research/drafts/keep.md", True),
        ("", "any/path.md", True),
        ("!**", "a.md", False),
        # a trailing markdown extension stands for every markdown extension, in any letter case
        ("Research/completed/**/*.md", "Research/completed/a.MD", True),
        ("Research/completed/**/*.md", "Research/completed/a.Md", True),
        ("Research/completed/**/*.md", "Research/completed/a.markdown", True),
        ("Research/completed/**/*.md", "Research/completed/a.MARKDOWN", True),
        ("*.MD", "a.md", True),
        ("*.markdown", "a.md", True),
        ("Research/completed/**/*.md", "Research/completed/a.mdx", False),
        ("Research/completed/**/*.md", "Research/completed/a.md ", False),
        ("Research/completed/**/*.md", "Research/completed/a.mar\u212adown", False),  # Kelvin sign
        ("Research/completed/**/*.md", "Research/Completed/a.md", False),  # only the extension
        ("docs/x\\.md", "docs/x.md", True),  # an escaped dot: the name as written
        ("docs/x\\.md", "docs/x.MD", False),
        ("*.txt", "a.TXT", False),
    ],
)
def test_path_matches_follows_github_filter_patterns(pattern: str, path: str, expected: bool) -> None:
    assert path_matches(path, pattern) is expected


@pytest.mark.parametrize(
    ("pattern", "roots"),
    [
        (PATHS, ("Research/completed",)),
        ("**/*.md", ("",)),
        ("*.md", ("",)),
        ("", ("",)),
        ("docs/*.md\n!docs/draft.md\nnotes/2026/**", ("docs", "notes/2026")),
        ("docs/v[0-9]/*.md", ("docs",)),
        ("docs/a+/*.md", ("docs",)),
    ],
)
def test_glob_roots_are_the_literal_leading_directories(pattern: str, roots: tuple[str, ...]) -> None:
    assert glob_roots(pattern) == roots


def test_loose_reads_a_path_as_a_reader_does() -> None:
    assert loose("Ｒesearch/Completed /a\u200b.ＭＤ") == "research/completed/a.md"
    assert loose("Research/completed/a.md") == "research/completed/a.md"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("Research/completed/a.txt", True),
        ("Research/Completed/a.md", True),
        ("research/completed /deep/a.md", True),
        ("Ｒesearch/completed/a.md", True),
        ("Research/completedX/a.md", False),
        ("Research/a.md", False),
        ("notes/a.md", False),
    ],
)
def test_under_roots_reads_names_as_a_reader_does(path: str, expected: bool) -> None:
    assert under_roots(path, glob_roots(PATHS)) is expected


def test_under_the_whole_repository_only_markdown_counts() -> None:
    assert under_roots("src/app.py", ("",)) is False
    assert under_roots("docs/x.MD ", ("",)) is True


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("Research/Completed/a.md", "the directory 'Completed' differs in letter case from 'completed'"),
        ("research/completed/a.md", "the directory 'research' differs in letter case from 'Research'"),
        ("Research/completed/a.md ", "the name 'a.md ' ends with a space"),
        ("Research/ completed/a.md", "the name ' completed' begins with a space"),
        ("Ｒesearch/completed/a.md", "full-width or other compatibility characters (it reads as 'Research"),
        ("Research/completed/a.ｍｄ", "(it reads as 'Research/completed/a.md')"),
        ("Research/com\u200bpleted/a.md", "invisible characters (U+200B)"),
        ("Research/completed/a.txt", "not markdown"),
    ],
)
def test_explain_miss_says_what_differs(path: str, says: str) -> None:
    reason = explain_miss(path, PATHS)
    assert reason.startswith(f"not matched by paths glob {PATHS!r}: ")
    assert says in reason


def test_explain_miss_names_the_line_that_excluded_a_path() -> None:
    pattern = f"{PATHS}\n!Research/completed/drafts/**"
    assert explain_miss("Research/completed/drafts/a.md", pattern) == (
        "excluded by paths line '!Research/completed/drafts/**'"
    )
    assert explain_miss("elsewhere/a.md", "docs/*.md\nnotes/*.md") == (
        "not matched by paths glob 'docs/*.md' or 'notes/*.md'"
    )


def test_explain_miss_tells_a_space_from_other_white_space() -> None:
    assert explain_miss("Research/completed/a.md\t", PATHS).endswith(
        "the name 'a.md\\t' ends with white space"
    )
