"""acronym_expansion: Full Name (ABBR) at the first use in the whole document, on small corpus-like items."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate.checks import acronym_expansion, run_check
from evalgate.checks.acronym_expansion import check, find_problems, load_table, score_for
from evalgate.document import parse_document
from evalgate.results import Status

FRONT = """---
title: "LLM judges for CI gates"
themes: [LLM, API]
status: completed
---

# LLM judges for CI gates

"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line containing `needle`."""
    return next(i for i, t in enumerate(text.split("\n"), 1) if needle in t)


def item(body: str) -> str:
    """A small research item: front matter and title that mention acronyms, then `body`."""
    return FRONT + body


EXPANDED = item(
    """## Research Question

Can a Large Language Model (LLM) judge gate continuous integration (CI) runs?

## Context

The LLM reads the item. An Application Programming Interface (API) serves it; the API is local.

## Findings

1. LLM judges agree with reviewers on the CI gate.
"""
)


def test_expanded_first_use_scores_five() -> None:
    outcome = check(parse_document(EXPANDED))
    assert outcome.score == 5
    assert outcome.findings == ()


def test_unexpanded_first_use_fails_on_that_line() -> None:
    text = EXPANDED.replace("a Large Language Model (LLM) judge", "an LLM judge")
    doc = parse_document(text)
    outcome = check(doc)
    line = next(i for i, t in enumerate(doc.lines, 1) if "an LLM judge" in t)
    assert outcome.score == 4
    assert [f.line for f in outcome.findings] == [line]
    assert outcome.findings[0].message == (
        'LLM used without expansion; write "Large Language Model (LLM)" at first use'
    )


def test_later_expansion_does_not_excuse_an_earlier_bare_use() -> None:
    text = item("## Context\n\nThe LLM reads it.\n\n## Findings\n\nA Large Language Model (LLM) reads it.\n")
    doc = parse_document(text)
    (finding,) = check(doc).findings
    assert doc.lines[finding.line - 1] == "The LLM reads it."
    assert "used before its expansion" in finding.message and f"line {finding.line + 4}" in finding.message


def test_first_use_is_document_wide_not_per_section() -> None:
    text = item("## Context\n\nA Large Language Model (LLM) reads it.\n\n## Findings\n\nThe LLM agrees.\n")
    assert check(parse_document(text)).score == 5


def test_reversed_expansion_fails_and_caps_the_score_at_two() -> None:
    text = item("## Context\n\nThe judge is an (LLM, Large Language Model) in a loop.\n")
    outcome = check(parse_document(text))
    assert outcome.score == 2
    (finding,) = outcome.findings
    assert finding.line == line_of(text, "(LLM, Large")
    assert 'write "Large Language Model (LLM)"' in finding.message


def test_benign_list_in_parentheses_is_not_reversed() -> None:
    text = item("## Context\n\nTools (API, Python 3.11) exist; see Command Line Interface (CLI).\n")
    kinds = {p.acronym: p.kind for p in find_problems(parse_document(text))}
    assert kinds == {"API": "unexpanded"}


def test_abbr_then_full_name_is_not_the_protocol_form() -> None:
    text = item("## Context\n\nAn LLM (Large Language Model) reads it.\n")
    (problem,) = find_problems(parse_document(text))
    assert problem.kind == "defined_after"
    assert problem.line == line_of(text, "An LLM (")
    assert score_for((problem,)) == 4


def test_table_entry_needs_the_required_expansion() -> None:
    text = item("## Context\n\nMostly Basic Programming Problems (MBPP) is a benchmark.\n")
    (problem,) = find_problems(parse_document(text))
    assert problem.kind == "wrong_expansion"
    assert '"Mostly Basic Python Problems (MBPP)"' in problem.message


def test_required_expansion_tolerates_case_hyphens_plurals_and_spelled_out_it() -> None:
    text = item(
        "## Context\n\nWe used command-line interfaces (CLIs), chain of thought (CoT), pull requests (PRs)\n"
        "and Information Technology Service Management (ITSM).\n"
    )
    assert find_problems(parse_document(text)) == ()


@pytest.mark.parametrize(
    "body",
    [
        "Run `LLM --help` first.\n",
        "```bash\nexport API=1\nLLM run\n```\n",
        "    SDK indented code\n",
        "See https://example.com/LLM/API and <https://x.org/SDK>.\n",
        "See [the docs](https://example.com/API) and [ref].\n\n[ref]: https://example.com/SDK\n",
        "<!-- LLM note\nspanning API lines -->\nPlain text.\n",
        "Files README.md and a $PATH, env GITHUB_TOKEN, handle @MCP.\n",
        "Roman II and XIV, ids RQ1 and KF3, 16 GB, MUST NOT, OK.\n",
    ],
)
def test_non_prose_and_non_acronyms_are_ignored(body: str) -> None:
    assert find_problems(parse_document(item(body))) == ()


def test_link_text_is_prose() -> None:
    text = item("See [the LLM guide](https://example.com/guide).\n")
    assert [p.acronym for p in find_problems(parse_document(text))] == ["LLM"]


def test_title_is_a_label_but_an_expansion_there_counts() -> None:
    bare_title = item("The LLM reads it.\n")  # FRONT's title says LLM, but the body's first use is bare
    assert [p.line for p in find_problems(parse_document(bare_title))] == [line_of(bare_title, "The LLM")]
    expanded_title = "# Large Language Model (LLM) judges\n\nThe LLM reads it.\n"
    assert find_problems(parse_document(expanded_title)) == ()


def test_source_titles_are_quotations() -> None:
    text = item(
        "## Sources\n\n- [x] [SDK release notes](https://example.com/sdk)\n\n"
        "## Findings\n\nThe Software Development Kit (SDK) ships daily.\n"
    )
    assert find_problems(parse_document(text)) == ()


def test_reference_id_rule_keeps_table_entry_d3_unless_siblings_exist() -> None:
    assert [p.acronym for p in find_problems(parse_document(item("Charts use D3.\n")))] == ["D3"]
    assert find_problems(parse_document(item("Dimensions D1, D2 and D3 are scored.\n"))) == ()


def test_version_suffix_and_plural_name_the_base_acronym() -> None:
    (problem,) = find_problems(parse_document(item("GPT-4o and GPTs answer.\n")))
    assert problem.acronym == "GPT"
    assert problem.message.startswith("GPT-4o used without expansion")
    assert "Generative Pre-trained Transformer (GPT)" in problem.message


def test_multi_acronym_parenthesis_counts_as_an_expansion() -> None:
    text = item(
        "The National Institute of Standards and Technology (NIST) AI Risk Management Framework (AI RMF).\n"
    )
    assert [p.acronym for p in find_problems(parse_document(text))] == ["AI"]


def test_a_b_needs_test_or_plain_language() -> None:
    assert find_problems(parse_document(item("We ran an A/B test, then more A/B runs.\n"))) == ()
    (problem,) = find_problems(parse_document(item("An A/B comparison.\n")))
    assert problem.kind == "shorthand" and "head-to-head comparison" in problem.message


@pytest.mark.parametrize(("count", "score"), [(0, 5), (1, 4), (2, 3), (3, 2), (4, 2), (5, 1), (9, 1)])
def test_score_follows_the_rubric_anchors(count: int, score: int) -> None:
    names = ["SDK", "PAT", "MCP", "RAG", "SRE", "ITSM", "MECE", "MBPP", "CVE"][:count]
    body = "## Context\n\n" + "".join(f"Uses {n} here.\n" for n in names)
    assert check(parse_document(item(body))).score == score


def test_crlf_trailing_spaces_and_reflow_do_not_change_the_result() -> None:
    text = item("## Context\n\nWe asked a Large Language Model (LLM) and an SDK.\nThe LLM agreed.\n")
    base = check(parse_document(text))
    crlf = check(parse_document(text.replace("\n", "  \r\n")))
    reflowed = check(
        parse_document(text.replace("a Large Language Model (LLM)", "a Large\nLanguage Model\n(LLM)"))
    )
    assert base.score == crlf.score == reflowed.score == 4
    assert (
        [f.message for f in base.findings]
        == [f.message for f in crlf.findings]
        == [f.message for f in reflowed.findings]
    )


def test_rubric_anchors_describe_this_check() -> None:
    from evalgate.rubric import load_rubric

    dim = load_rubric("research-loop").dimension("acronym_expansion")
    assert dim.kind == "deterministic" and dim.hard_fail
    assert "reversed" in dim.anchors[2] and "Five or more" in dim.anchors[1]


def test_registry_runs_the_check() -> None:
    result = run_check("acronym_expansion", parse_document(EXPANDED), hard_fail=True)
    assert result.status is Status.SCORED and result.score == 5


def test_shipped_table_has_the_protocol_entries() -> None:
    table = load_table()
    assert table.required["LLM"] == "Large Language Model"
    assert table.required["CoT"] == "chain-of-thought"
    assert {"PDF", "GPT", "CVE", "OWASP", "PINT"} <= set(table.checked)
    assert "A/B" in table.shorthand


def test_every_corpus_item_runs(corpus_dir: Path) -> None:
    scores = []
    for path in sorted(corpus_dir.glob("*.md")):
        doc = parse_document(path.read_text(encoding="utf-8"), path=str(path))
        outcome = acronym_expansion.check(doc)
        assert 1 <= outcome.score <= 5, path
        assert all(1 <= f.line <= len(doc.lines) for f in outcome.findings), path
        scores.append(outcome.score)
    assert len(scores) > 400
    assert len(set(scores)) == 5  # the corpus spans the whole scale


@pytest.mark.parametrize(
    ("later", "reversed_"),
    [
        ("It is an (LLM, Large Language Model) in a loop.", True),
        ("Two (Open Tools LLM, Large Language Model) loops.", True),  # a group opened up to 40 before
        ("It is an LLM (LLM, not ours) in a loop.", False),
        ("It is an LLM, Large Language Model, in a loop.", False),
    ],
)
def test_later_uses_of_a_settled_acronym_are_still_checked_for_reversal(later: str, reversed_: bool) -> None:
    """Once an acronym is expanded, its later uses are skipped unless a `(` and a capital come in the
    40 characters before one: those may still be a reversed expansion."""
    text = item(
        "## Context\n\nA Large Language Model (LLM) reads it. The LLM agrees; the LLM reads more.\n\n"
        f"## Findings\n\n{'Filler words here. ' * 5}{later}\n"
    )
    problems = find_problems(parse_document(text))
    assert [p.kind for p in problems] == (["reversed"] if reversed_ else [])
    if reversed_:
        assert problems[0].line == line_of(text, later[:12])
