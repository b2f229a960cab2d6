"""`select: front-matter:` in .evalgate.yml: a run evaluates the documents whose front matter holds the
selected values, names every other one with what its front matter says, and evaluates a file named
on its own whatever it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate.config import ConfigError, parse_config
from tests.support.cli import run_in

ITEMS = {
    "ready.md": "---\nstatus: reviewing\n---\n# Ready\n",
    "draft.md": "---\nstatus: in-progress\n---\n# Draft\n",
    "tagged.md": "---\nstatus: [draft, reviewing]\n---\n# Listed\n",
    "bare.md": "# No front matter\n",
    "broken.md": "---\nstatus: [reviewing\n---\n# Broken\n",
    "binary.md": "---\nstatus: reviewing\n---\n\x00",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    items = tmp_path / "items"
    items.mkdir()
    for name, text in ITEMS.items():
        (items / name).write_text(text, encoding="utf-8")
    config = "select:\n  front-matter: {status: reviewing}\n"
    (tmp_path / ".evalgate.yml").write_text(config, encoding="utf-8")
    return tmp_path


def _check(repo: Path, capsys: pytest.CaptureFixture[str], *targets: str) -> tuple[int, dict]:
    code = run_in(repo, ["check", *targets, "--format", "json", "--root", str(repo)])
    return code, json.loads(capsys.readouterr().out)


def test_a_directory_is_narrowed_to_the_selected_items_and_the_rest_named(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _check(repo, capsys, "items")
    evaluated = sorted(r["path"] for r in report["results"])
    # binary.md is kept (its front matter cannot be read from its first bytes as text), and its read
    # then says why it is not evaluated: nothing is left out without a reason
    # broken.md too: front matter that cannot be read cannot say the item is not ready, so a gate
    # evaluates it (its warning says why the front matter was ignored)
    assert evaluated == ["items/binary.md", "items/broken.md", "items/ready.md", "items/tagged.md"]
    by_path = {r["path"]: r for r in report["results"]}
    assert by_path["items/binary.md"]["verdict"] == "ERROR"
    assert any(w.startswith("front matter ignored") for w in by_path["items/broken.md"]["warnings"])
    reasons = {e["path"]: e["reason"] for e in report["not_evaluated"]}
    assert reasons == {
        "items/draft.md": "its front matter says status: in-progress; this run evaluates status: reviewing",
        "items/bare.md": "its front matter has no status; this run evaluates status: reviewing",
    }


def test_a_file_named_on_its_own_is_evaluated_whatever_it_says(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _check(repo, capsys, "items/draft.md", "items/*.md")
    paths = [r["path"] for r in report["results"]]
    assert "items/draft.md" in paths and "items/bare.md" not in paths  # the glob is narrowed
    assert "items/bare.md" in {e["path"] for e in report["not_evaluated"]}


def test_a_run_without_select_is_unchanged(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".evalgate.yml").write_text("rubric: research-loop\n", encoding="utf-8")
    _, report = _check(repo, capsys, "items")
    assert len(report["results"]) == len(ITEMS) and "not_evaluated" not in report


def test_select_is_validated() -> None:
    config = parse_config("select:\n  front-matter:\n    status: [reviewing, draft]\n", "c.yml")
    assert config.select.front_matter == {"status": ("reviewing", "draft")}
    with pytest.raises(ConfigError, match=r"select\.front_matter|select\.front-matter|frontmatter"):
        parse_config("select:\n  frontmatter: {status: reviewing}\n", "c.yml")
    with pytest.raises(ConfigError, match=r"c\.yml"):
        parse_config("select:\n  front-matter: {status: {a: b}}\n", "c.yml")


def test_a_front_matter_value_cannot_write_a_line_of_the_report(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in the independent review after wave 2: the reason quoted the value as written, so a value
    with a line break wrote its own line into the text report, e.g. a workflow command where a workflow
    runs `evalgate check` itself. The value is shown quoted with escapes instead."""
    forged = 'status: "draft\\n::error file=README.md,line=1::forged\\nOVERALL: PASS"'
    (repo / "items" / "forged.md").write_text(f"---\n{forged}\n---\n# Forged\n", encoding="utf-8")
    run_in(repo, ["check", "items", "--root", str(repo)])
    out = capsys.readouterr().out
    assert not any(line.startswith(("::", "OVERALL")) for line in out.splitlines()), out
    shown = "'draft\\n::error file=README.md,line=1::forged\\nOVERALL: PASS'"
    assert f"its front matter says status: {shown}" in out
