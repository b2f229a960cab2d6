"""Step outputs, the job-summary file and workflow commands."""

from __future__ import annotations

import io
import re
from pathlib import Path

from evalgate.github.checks_run import Annotation, annotations_for
from evalgate.github.workflow import (
    add_mask,
    annotation_command,
    emit_annotations,
    fit_step_summary,
    format_outputs,
    write_outputs,
    write_step_summary,
)
from tests.support.reports import sample_report


def _parse_outputs(text: str) -> dict[str, str]:
    """A reader for the GITHUB_OUTPUT format, as the runner parses it."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
            i += 1
        else:
            i += 1
    return values


def test_outputs_single_and_multiline_with_random_delimiters(tmp_path: Path) -> None:
    hostile = "a.md\nghadelimiter_fake\nverdict=PASS\nb.md"
    text = format_outputs({"verdict": "FAIL", "failing-files": hostile, "other": "x\ny"})
    delimiters = re.findall(r"<<(ghadelimiter_[0-9a-f-]{36})$", text, flags=re.M)
    assert len(delimiters) == 2 and delimiters[0] != delimiters[1]
    assert _parse_outputs(text) == {"verdict": "FAIL", "failing-files": hostile, "other": "x\ny"}
    out = tmp_path / "out"
    out.write_text("earlier=1\n")
    write_outputs(out, {"verdict": "PASS"})
    assert out.read_text() == "earlier=1\nverdict=PASS\n"


def test_step_summary_truncated_under_limit_with_note(tmp_path: Path) -> None:
    big = "é" * 2000  # 4000 bytes
    fitted = fit_step_summary(big, limit=1000)
    assert len(fitted.encode()) <= 1000 and "1 MiB limit" in fitted
    assert fit_step_summary("small", limit=1000) == "small"
    path = tmp_path / "summary.md"
    write_step_summary(path, big, limit=1000)
    assert len(path.read_bytes()) <= 1000


def test_annotation_command_escapes_file_name_and_message() -> None:
    annotation = Annotation("docs/evil\n::warning::x,y.md", 3, 4, "failure", "100%0A real\nnext", "dim: t")
    line = annotation_command(annotation)
    assert "\n" not in line
    assert line == (
        "::error file=docs/evil%0A%3A%3Awarning%3A%3Ax%2Cy.md,line=3,endLine=4,title=dim%3A t"
        "::100%250A real%0Anext"
    )


def test_emit_annotations_one_line_each_and_mentions_neutralised() -> None:
    stream = io.StringIO()
    count = emit_annotations(annotations_for(sample_report()), stream)
    lines = stream.getvalue().splitlines()
    assert count == len(lines) == 4
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert not any("@octocat" in line for line in lines)


def test_add_mask_line() -> None:
    assert add_mask("ghs_secret") == "::add-mask::ghs_secret"
    assert add_mask("a\nb") == "::add-mask::a%0Ab"
