"""`evalgate fix` never damages text (issue #25): it leaves for the author, with the reason, an edit inside a
parenthesis, a `/` or `-` compound, a link's text, a heading, a quotation or italic title, a line that
talks about the acronyms, one that would write an expansion twice, and any on a line holding an
invisible format character (U+200B, U+00AD, ...); it sets "a"/"an" before what it
inserts. Each refusal is in the account `fix` prints and in `--diff` mode's. Examples written here."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from evalgate.cli import main
from evalgate.fix.articles import article_for
from evalgate.fix.command import fix_bytes

INTRO = "Intro prose here.\n\n"


def fixed(body: str) -> tuple[str, list[tuple[str, str]]]:
    """The fixed text (after INTRO) and what was left for the author: (acronym, why)."""
    new, result = fix_bytes((INTRO + body).encode("utf-8"), None, [])
    return new.decode("utf-8")[len(INTRO) :], [(p.acronym, why) for p, why in result.left]


@pytest.mark.parametrize(
    ("body", "acronym", "why"),
    [
        ("Options range from (JSON files, a GPU cache) to more.\n", "JSON", "inside a parenthesis"),
        ("Options range from (JSON files, a GPU cache) to more.\n", "GPU", "inside a parenthesis"),
        ("Adopted by Regulation (EU) 2017/565 in full.\n", "EU", "inside a parenthesis"),
        ("Tools speak JSON-RPC over stdio; JSON is text.\n", "JSON", 'part of the name "JSON-RPC"'),
        ("It runs on a GPU/TPU pair today.\n", "GPU", 'part of the name "GPU/TPU"'),
        ("- Q-D3: what is the escalation path? D3 charts help.\n", "D3", 'part of the name "Q-D3"'),
        ("Read [the GPU guide](https://x.org/g) first.\n", "GPU", "inside a link's text"),
        ("Read [the GPU guide][g] first.\n\n[g]: https://x.org/g\n", "GPU", "inside a link's text"),
        ("The paper \u2018Locating Facts in GPU Models\u2019 says so.\n", "GPU", "inside a quotation"),
        ("Published in *Advances in GPU Design* in 2020.\n", "GPU", "inside italics"),
        ("- GPU: not expanded in this document; readers know it.\n\nThe GPU runs.\n", "GPU", None),
        ("The market expands as the GPU matures.\n", "GPU", "the line talks about acronyms"),
        ("The GPU and a Graphics Processing Unit (GPU) differ.\n", "GPU", "already spells out"),
        ("The prompt goes to an\nLLM agent.\n", "LLM", 'the article before it ("an") is on the line above'),
        ("Offline methods use Implicit Q-Learning — IQL on logs.\n", "IQL", "written in another form"),
        ("The GPU\u200b runs fast.\n", "GPU", "invisible character (U+200B ZERO WIDTH SPACE)"),
        ("A co\u00adoperative GPU design.\n", "GPU", "invisible character (U+00AD SOFT HYPHEN)"),
        ("The GPU runs well\u2060.\n", "GPU", "invisible character (U+2060 WORD JOINER)"),
        ("Its GPU is \u202eoff\u202c.\n", "GPU", "invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"),
    ],
)
def test_a_damaging_edit_is_left_for_the_author_with_the_reason(
    body: str, acronym: str, why: str | None
) -> None:
    text, left = fixed(body)
    if why is None:  # the audit note is not even a use; the real use after it is fixed
        assert text == body.replace("The GPU runs", "The Graphics Processing Unit (GPU) runs")
        return
    assert text == body
    assert any(a == acronym and why in w for a, w in left), left


@pytest.mark.parametrize("quote", ['"{}"', "\u201c{}\u201d"])
def test_a_quoted_name_is_no_first_use_and_is_never_edited(quote: str) -> None:
    body = "The paper " + quote.format("Locating Facts in GPU Models") + " says so.\n\nThe GPU runs.\n"
    text, left = fixed(body)
    assert text == body.replace("The GPU runs", "The Graphics Processing Unit (GPU) runs")
    assert left == []


def test_a_heading_or_title_is_never_edited() -> None:
    body = "# The GPU book\n\n## Why a TPU\n\nThe TPU runs.\n"
    text, left = fixed(body)
    assert text.startswith("# The GPU book\n\n## Why a TPU\n")
    assert ("TPU", "first used in a heading (its anchor would change): expand it there by hand") in left


def test_the_list_form_is_rewritten_once_never_duplicated() -> None:
    body = "Simple CRUD (Create, Read, Update, Delete) screens.\n\nThe CRUD layer.\n"
    text, left = fixed(body)
    assert text == "Simple Create, Read, Update, Delete (CRUD) screens.\n\nThe CRUD layer.\n"
    assert left == []
    assert fix_bytes((INTRO + text).encode(), None, [])[0].decode()[len(INTRO) :] == text  # idempotent


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "It sends the prompt to an LLM agent.\n",
            "It sends the prompt to a Large Language Model (LLM) agent.\n",
        ),
        ("An LLM reads it.\n", "A Large Language Model (LLM) reads it.\n"),
        ("It calls a API.\n", "It calls an Application Programming Interface (API).\n"),
        ("- An LLM judge.\n", "- A Large Language Model (LLM) judge.\n"),
        ("It is an (LLM, Large Language Model) here.\n", "It is a Large Language Model (LLM) here.\n"),
        ("It is an LLM (Large Language Model) here.\n", "It is a Large Language Model (LLM) here.\n"),
        ("It is a GPU here.\n", "It is a Graphics Processing Unit (GPU) here.\n"),  # already right
        ("Plan A GPU runs.\n", "Plan A Graphics Processing Unit (GPU) runs.\n"),  # a letter, no article
    ],
)
def test_the_article_before_an_insertion_follows_its_sound(body: str, expected: str) -> None:
    assert fixed(body)[0] == expected


@pytest.mark.parametrize(
    ("phrase", "article"),
    [
        ("Large Language Model", "a"),
        ("Application Programming Interface", "an"),
        ("Unified Modeling Language", "a"),
        ("European Union", "a"),
        ("One-Time Password", "a"),
        ("Hour Meter", "an"),
        ("HTTP Archive", "an"),
        ("URL Shortener", "a"),
        ("eXtensible Markup Language", "an"),
    ],
)
def test_article_for_goes_by_sound(phrase: str, article: str) -> None:
    assert article_for(phrase) == article


def test_every_refusal_is_in_the_account_and_in_diff_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("r.md").write_text("Tools speak JSON-RPC. The JSON (and a GPU/TPU) text.\n", "utf-8")
    outputs = []
    for argv in (["fix", "r.md", "--diff"], ["fix", "r.md"]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(argv)
        outputs.append(err.getvalue() if "--diff" in argv else out.getvalue())
    for account in outputs:
        assert 'r.md:1: left for the author: JSON: part of the name "JSON-RPC"' in account
        assert "r.md:1: left for the author: GPU: inside a parenthesis" in account
    assert Path("r.md").read_text("utf-8") == "Tools speak JSON-RPC. The JSON (and a GPU/TPU) text.\n"


def test_a_line_with_an_invisible_character_is_kept_byte_for_byte_and_the_others_are_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = "The GPU\u200c\u00ad runs.\n\nThe CPU waits.\n"
    Path("r.md").write_text(body, "utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["fix", "r.md"])
    assert Path("r.md").read_text("utf-8") == body.replace("The CPU", "The Central Processing Unit (CPU)")
    assert (
        "r.md:1: left for the author: GPU: the line holds an invisible character (U+200C ZERO WIDTH"
        " NON-JOINER): remove it, then run fix again" in out.getvalue()
    )
