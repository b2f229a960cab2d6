"""`evalgate fix`: only mechanical acronym fixes with a known answer, every other byte kept, atomic,
idempotent, never moving another dimension; `--diff` writes nothing and exits 1 when fixes are pending."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from evalgate.cli import main
from evalgate.fix import command
from evalgate.rubrics.params import AcronymExpansionParams
from tests.checks.research_item import FINDINGS, research_item


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _write(name: str, data: str | bytes) -> Path:
    path = Path(name)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _run(argv: list[str]) -> tuple[str, str]:
    """(stdout, stderr) of one CLI run."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(argv)
    return out.getvalue(), err.getvalue()


def _others(report: Path) -> list[dict[str, object]]:
    """Every dimension but acronym_expansion of a one-file JSON report."""
    (result,) = json.loads(report.read_text("utf-8"))["results"]
    return [d for d in result["dimensions"] if d["id"] != "acronym_expansion"]


def _acronym_findings(path: Path) -> list[str]:
    main(["check", str(path), "--format", "json", "--output", "out.json"])
    (result,) = json.loads(Path("out.json").read_text("utf-8"))["results"]
    (dim,) = [d for d in result["dimensions"] if d["id"] == "acronym_expansion"]
    return [f["message"] for f in dim["findings"]]


def test_first_uses_reversed_and_defined_after_are_fixed(capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(
        "a.md",
        "The LLMs run on a GPU.\n\n"
        "A chip (TPU, Tensor Processing Unit) and an NPU (Neural Processing Unit).\n"
        "Later the GPU and the LLM again; a QZE stays.\n",
    )
    assert main(["fix", "a.md"]) == 0
    assert path.read_text("utf-8") == (
        "The Large Language Models (LLMs) run on a Graphics Processing Unit (GPU).\n\n"
        "A chip Tensor Processing Unit (TPU) and a Neural Processing Unit (NPU).\n"
        "Later the GPU and the LLM again; a QZE stays.\n"
    )
    out = capsys.readouterr().out
    assert "a.md: fixed 4: LLM (line 1), GPU (line 1), TPU (line 3), NPU (line 3)" in out
    assert "a.md:4: left for the author: QZE: its expansion is unknown" in out
    assert [m.split(" ")[0] for m in _acronym_findings(path)] == ["QZE"]  # only the unknown one is left


def test_code_urls_link_targets_front_matter_and_headings_are_never_touched() -> None:
    text = (
        "---\ntitle: GPU notes\n---\n\n# The TPU title\n\n## Why the CPU\n\n"
        "Use `GPU` code, https://x.org/GPU and [a link](https://x.org/TPU) in [CPU docs](https://x.org/CPU).\n\n"
        "```\nGPU in a fence\n```\n\n    GPU indented code\n"
    )
    path = _write("b.md", text)
    main(["fix", "b.md"])
    fixed = path.read_text("utf-8")
    assert fixed.count("\n") == text.count("\n")
    before, after = text.split("\n"), fixed.split("\n")
    changed = [i for i, (x, y) in enumerate(zip(before, after, strict=True)) if x != y]
    # the first CPU is in a heading: left alone; the link text is prose, its target is not
    assert changed == []
    assert "CPU: first used in a heading" in _run(["fix", "b.md", "--diff"])[1]


def test_a_link_text_is_left_for_the_author_with_the_reason() -> None:
    text = "Read [the GPU guide](https://x.org/GPU-guide) first.\n"
    path = _write("c.md", text)
    out, _ = _run(["fix", "c.md"])
    assert path.read_text("utf-8") == text
    assert "c.md:1: left for the author: GPU: inside a link's text (a cited title or a name)" in out


def test_bom_crlf_no_final_newline_and_permissions_are_kept() -> None:
    raw = b"\xef\xbb\xbf# T\r\n\r\nThe GPU runs.\r\nPlain LF line\nend without newline"
    path = _write("d.md", raw)
    os.chmod(path, 0o640)
    main(["fix", "d.md"])
    fixed = path.read_bytes()
    assert fixed == raw.replace(b"The GPU", b"The Graphics Processing Unit (GPU)")
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert [p.name for p in Path().iterdir() if "evalgate-fix" in p.name] == []  # no temporary left


def test_a_second_run_changes_nothing_and_diff_exits_by_pending(capsys: pytest.CaptureFixture[str]) -> None:
    path = _write("e.md", "The GPU runs a JWT check.\n")
    assert main(["fix", "e.md", "--diff"]) == 1
    captured = capsys.readouterr()
    diff = captured.out
    assert diff.startswith("--- a/e.md\n+++ b/e.md\n")
    assert "+The Graphics Processing Unit (GPU) runs a JWT check.\n" in diff
    # "JSON Web Token" holds JSON, an acronym whose first use it would then be: left for the author
    assert "JWT: its expansion holds another acronym (JSON): write both by hand" in captured.err
    assert path.read_text("utf-8") == "The GPU runs a JWT check.\n"  # --diff writes nothing
    assert main(["fix", "e.md"]) == 0
    once = path.read_bytes()
    assert once == b"The Graphics Processing Unit (GPU) runs a JWT check.\n"
    assert main(["fix", "e.md"]) == 0
    assert path.read_bytes() == once
    assert main(["fix", "e.md", "--diff"]) == 0
    assert [m.split(" ")[0] for m in _acronym_findings(path)] == ["JWT"]


def test_no_other_dimension_moves() -> None:
    # a Key Finding of 19 words whose first GPU would bring it to the 20-word floor is left alone
    short = "The GPU " + " ".join(["word"] * 16) + " end."
    findings = [short, *[f"{f} It uses a TPU." for f in FINDINGS[1:]]]
    path = _write("item.md", research_item(findings=findings))
    main(["check", "item.md", "--format", "json", "--output", "before.json"])
    out = _run(["fix", "item.md"])[0]
    main(["check", "item.md", "--format", "json", "--output", "after.json"])
    before, after = (_others(Path(f)) for f in ("before.json", "after.json"))
    assert before == after
    assert "GPU: fixing it would change another dimension's result" in out
    assert "a Tensor Processing Unit (TPU)." in path.read_text("utf-8")


def test_an_unwritable_file_is_an_error_naming_it_and_is_unchanged(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write("f.md", "The GPU runs.\n")
    bad = _write("g.md", "The TPU runs.\n")

    def fail_on_g(src: str, dst: str | os.PathLike[str]) -> None:
        if Path(dst).name == "g.md":
            raise PermissionError(13, "Permission denied")
        os.rename(src, dst)

    monkeypatch.setattr(command.os, "replace", fail_on_g)
    assert main(["fix", "f.md", "g.md"]) == 2
    err = capsys.readouterr().err
    assert "g.md: cannot write the fixed file (Permission denied); it is unchanged" in err
    assert bad.read_text("utf-8") == "The TPU runs.\n"
    assert "Graphics Processing Unit (GPU)" in good.read_text("utf-8")  # the other file went on
    assert [p.name for p in Path().iterdir() if "evalgate-fix" in p.name] == []


def test_unreadable_inputs_and_a_bad_glossary_are_clear_errors(capsys: pytest.CaptureFixture[str]) -> None:
    _write("h.md", b"The GPU \xff\n")
    assert main(["fix", "h.md", "nowhere.md"]) == 2
    err = capsys.readouterr().err
    assert "h.md: not UTF-8" in err and "nowhere.md" in err
    _write(".evalgate.yml", "acronyms:\n  expansions:\n    GPU: Giant Unit\n")
    assert main(["fix", "h.md"]) == 2
    assert "acronyms.expansions.GPU" in capsys.readouterr().err


def test_a_symlinked_file_is_fixed_through_its_link(tmp_path: Path) -> None:
    real = _write("real.md", "The GPU runs.\n")
    Path("link.md").symlink_to(real.resolve())
    main(["fix", "link.md"])
    assert Path("link.md").is_symlink()
    assert "Graphics Processing Unit (GPU)" in real.read_text("utf-8")


def test_a_read_only_file_is_an_error_naming_it_and_the_others_go_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    locked, free = Path("locked.md"), Path("free.md")
    locked.write_text("The GPU runs.\n", "utf-8")
    free.write_text("The TPU runs.\n", "utf-8")
    os.chmod(locked, 0o444)
    assert main(["fix", "locked.md", "free.md"]) == 2
    assert "locked.md: the file is read-only; it is unchanged" in capsys.readouterr().err
    assert locked.read_text("utf-8") == "The GPU runs.\n"
    assert free.read_text("utf-8") == "The Tensor Processing Unit (TPU) runs.\n"


def test_the_diff_applies_with_git_apply_and_gives_the_fixed_file(capsys: pytest.CaptureFixture[str]) -> None:
    # a form feed and U+2028 are line breaks to str.splitlines, not to patch; the last line has no LF
    raw = "\ufeffPage\x0cone.\r\n\r\nA TPU\u2028here.\r\nThe GPU runs.".encode()
    _write("p.md", raw)
    assert main(["fix", "p.md", "--diff"]) == 1
    Path("p.patch").write_text(capsys.readouterr().out, "utf-8", newline="")
    main(["fix", "p.md"])
    fixed = Path("p.md").read_bytes()
    _write("p.md", raw)
    subprocess.run(["git", "apply", "p.patch"], check=True, capture_output=True)
    assert Path("p.md").read_bytes() == fixed != raw


def test_an_expansion_with_a_line_break_is_refused_before_fix_could_write_it() -> None:
    # it spells GPU by its initials; inserted, it would add a line (fix_bytes asserted, a traceback)
    params = {"expansions": {"GPU": "Graphics\nProcessing Unit"}}
    with pytest.raises(ValueError, match="must be one line of text"):
        command.fix_bytes(b"The GPU runs.\n", AcronymExpansionParams(**params), [])


def test_a_glossary_expansion_the_check_would_not_read_is_left_not_inserted_again_and_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # both spell their acronym by initials, but `Zany` is a code span and `|` splits the table cell:
    # inserted, the check still reports the acronym and every run inserted it once more
    _write(
        ".evalgate.yml",
        'acronyms:\n  expansions:\n    QZX: "Quick `Zany` Xylophone"\n    QZY: "Quick | Zany Yak"\n',
    )
    text = "The QZX runs.\n\n| a | b |\n|---|---|\n| QZY | x |\n"
    path = _write("q.md", text)
    assert main(["fix", "q.md"]) == 0
    assert main(["fix", "q.md"]) == 0
    assert path.read_text("utf-8") == text
    out = capsys.readouterr().out
    assert "q.md:1: left for the author: QZX: its expansion would not read as one there" in out
    assert "q.md:5: left for the author: QZY: its expansion would not read as one there" in out


def test_the_fixed_file_keeps_its_owner_and_group() -> None:
    path = _write("owned.md", "The GPU runs.\n")
    try:
        os.chown(path, 65534, 65534)
    except PermissionError:
        pytest.skip("giving a file another owner needs root (as the image's container runs)")
    assert main(["fix", "owned.md"]) == 0
    st = os.stat(path)
    assert (st.st_uid, st.st_gid) == (65534, 65534)
    assert "Graphics Processing Unit (GPU)" in path.read_text("utf-8")


def test_a_file_name_with_a_line_break_is_quoted_in_the_diff(capsys: pytest.CaptureFixture[str]) -> None:
    name = 'we\nird "x".md'
    raw = b"The GPU runs.\n"
    _write(name, raw)
    assert main(["fix", name, "--diff"]) == 1
    diff = capsys.readouterr().out
    assert diff.startswith('--- "a/we\\nird \\"x\\".md"\n+++ "b/we\\nird \\"x\\".md"\n')
    Path("w.patch").write_text(diff, "utf-8")
    subprocess.run(["git", "apply", "w.patch"], check=True, capture_output=True)
    assert Path(name).read_bytes() == b"The Graphics Processing Unit (GPU) runs.\n"
