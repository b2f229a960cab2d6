"""`evalgate fix --rubric research-review` learns the em-dash rule: a comma, a colon or parentheses
where the sentence decides which, everything else left for the author with the reason, and never in
code, URLs, headings, front matter, quoted or cited titles."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from evalgate.cli import main
from evalgate.fix.em_dashes import fix_em_dashes
from evalgate.rubrics.params import EmDashesParams
from tests.checks.review_item import review_item


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _fix(text: str, params: EmDashesParams | None = None) -> tuple[str, list[tuple[int, str]]]:
    result = fix_em_dashes(text, params, [])
    return result.text, [(p.line, why) for p, why in result.left]


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        # two around a phrase: parentheses
        (
            "The two concerns — state and metadata — should stay apart.",
            "The two concerns (state and metadata) should stay apart.",
        ),
        ("It needs no server—only a prompt—and works.", "It needs no server (only a prompt) and works."),
        # a list item's label: a colon
        ("- [Cache guide](https://example.org/guide) — the vendor's rules", None),
        ("1. **GitHub wiki** — already live.", "1. **GitHub wiki**: already live."),
        ("- `src/state.py` — URL-based dedup", "- `src/state.py`: URL-based dedup"),
        ("- https://arxiv.org/abs/2309.04269 — the paper", "- https://arxiv.org/abs/2309.04269: the paper"),
        ("**Q4b — Model selection for cost**", "**Q4b: Model selection for cost**"),
        (
            "| Context rot — recall falls with length | high |",
            "| Context rot: recall falls with length | high |",
        ),
        # the corpus's `— -` separator is one separator
        (
            "- [Guide](https://example.org/g) — - official summary",
            "- [Guide](https://example.org/g): official summary",
        ),
        # a connecting word or an -ing word: a comma
        (
            "It manages many item types — which is not our case.",
            "It manages many item types, which is not our case.",
        ),
        (
            "Facts sit in structured stores — supporting direct edits.",
            "Facts sit in structured stores, supporting direct edits.",
        ),
        # after a clause, before the rest of its sentence: a colon
        (
            "Zotero is not a model to emulate — it serves other needs.",
            "Zotero is not a model to emulate: it serves other needs.",
        ),
    ],
)
def test_the_sentence_decides_the_replacement(line: str, fixed: str | None) -> None:
    text, left = _fix(f"# T\n\n{line}\n")
    expected = fixed if fixed is not None else line.replace(" — ", ": ")
    assert (text.split("\n")[2], left) == (expected, [])


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\ntitle: A — B\n---\n\n# T\n", "in the front matter"),
        ("# Cache — eviction\n", "in a heading (its anchor would change)"),
        ("```\nlog — 3 files\n```\n", "inside a code block"),
        ("Run `a — b` now.\n", "inside code, a URL or markup"),
        ("See https://example.org/a—b for it.\n", "inside code, a URL or markup"),
        ("> Caches evict — silently — every week.\n", "in a block quote"),
        ("- [x] [Carlini — Black-hat LLMs](https://example.org/t) talk\n", "inside a link's text"),
        ('The guide says "evict — then pin" twice.\n', "inside a quotation"),
        ("Read *Caches — a survey* first.\n", "inside italics"),
        ("| Claim | — | high |\n", "alone in a table cell (a placeholder)"),
        ("It ran 2020—2024 in full.\n", "between digits (a range)"),
        ("One — two — three — four words here.\n", "3 em-dashes in one sentence"),
        ("The rule — and its (rare) exception — holds.\n", "hold a parenthesis, colon or quotation"),
        ("The rule (with one — small — exception) holds.\n", "inside a parenthesis: parentheses would nest"),
        ("Pinning costs storage &mdash; a small share.\n", "an HTML entity"),
        ("It stops here —.\n", "next to other punctuation"),
        ("We know. It: — maybe.\n", "does not say whether a comma, a colon or parentheses fits"),
        ("The L\u200bLM cache — it works.\n", "invisible character (U+200B ZERO WIDTH SPACE)"),
        ("Caches evict — <!-- note --> silently.\n", "on a line the readers' view changes"),
    ],
)
def test_what_the_sentence_does_not_decide_is_left_for_the_author_with_the_reason(
    text: str, why: str
) -> None:
    fixed, left = _fix(text)
    assert fixed == text
    assert left and all(why in reason for _, reason in left), left


def test_an_edit_that_would_move_another_dimension_is_left() -> None:
    # parentheses around an acronym make `Large Language Models (LLMs)` an expansion the acronym
    # check reads: acronym_expansion's result would change, so the dash is left as it is
    text = "# T\n\nLarge Language Models — LLMs — answer. Then LLMs run.\n"
    result = fix_em_dashes(text, None, [("acronym_expansion", None)])
    assert result.text == text
    why = "fixing it would change another dimension's result: rewrite it by hand"
    assert [(p.line, reason) for p, reason in result.left] == [(3, why), (3, why)]
    assert (
        fix_em_dashes(text, None, []).text == "# T\n\nLarge Language Models (LLMs) answer. Then LLMs run.\n"
    )


def test_sections_in_the_params_narrow_the_fix() -> None:
    text = (
        "# T\n\n## Context\n\nA clause of words — it fits.\n\n## Findings\n\nA clause of words — it fits.\n"
    )
    fixed, _ = _fix(text, EmDashesParams(sections=("Findings",)))
    assert fixed.count("—") == 1 and fixed.split("\n")[4].endswith("— it fits.")


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_fix_with_the_review_pack_reports_fixed_and_left_and_runs_once(tmp_path: Path) -> None:
    item = review_item(
        Analysis="Pinning costs storage — a small share.\n\nThe rule — and its (rare) exception — holds.",
    ).replace("\n", "\r\n")
    path = tmp_path / "item.md"
    path.write_bytes(item.encode("utf-8"))
    line = item.split("\r\n").index("Pinning costs storage — a small share.") + 1
    code, out, _ = _cli(["fix", "item.md", "--rubric", "research-review"])
    assert code == 0
    assert f"item.md: fixed 1: em-dash (line {line})" in out
    assert (
        out.count(f"item.md:{line + 2}: left for the author: em-dash: the words between the two em-dashes")
        == 2
    )
    written = path.read_bytes().decode("utf-8")
    assert "Pinning costs storage: a small share.\r\n" in written and written.count("\r\n") == item.count(
        "\r\n"
    )
    assert _cli(["fix", "item.md", "--rubric", "research-review"])[0] == 0
    assert path.read_bytes().decode("utf-8") == written  # a second run changes nothing
    # the check agrees: one em-dash line is left, the one the author must rewrite
    _cli(["check", "item.md", "--rubric", "research-review", "--format", "json", "--output", "r.json"])
    (result,) = json.loads(Path("r.json").read_text("utf-8"))["results"]
    (dashes,) = [d for d in result["dimensions"] if d["id"] == "em_dashes"]
    assert [f["line"] for f in dashes["findings"]] == [line + 2]


def test_a_rubric_without_the_em_dash_rule_leaves_em_dashes_alone(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# T\n\nPinning costs storage — a small share.\n", encoding="utf-8")
    code, out, err = _cli(["fix", "a.md", "--diff"])
    assert (code, out) == (0, "") and "em-dash" not in err
    code, out, _ = _cli(["fix", "a.md", "--diff", "--rubric", "research-review"])
    assert code == 1 and "+Pinning costs storage: a small share." in out
