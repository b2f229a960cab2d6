"""Fuzzing the structural pass with generated markdown: every document yields a result (scores, or an
error that names it), and none reaches the per-document time bound. Each example runs the real CLI in
a fresh interpreter with `--document-timeout 20`: a document the pass cannot finish in 20 s would be
an ERROR saying so (the bound is held by the run itself, not by timing here), and a hang of the run
as a whole is the 120 s timeout of the subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LINE_PIECES = [
    "#",
    "## ",
    "### Key Findings",
    "## Findings",
    "### Evidence Map",
    "## Sources",
    "- ",
    "1. ",
    "> ",
    "|",
    " |",
    "---",
    ":-:",
    "```",
    "~~~",
    "<!--",
    "-->",
    "`",
    "[",
    "](",
    ")",
    "**",
    "_",
    "\\",
    "    ",
    "\t",
    " " * 40,
    "[fact]",
    "(high confidence; source: https://x.org)",
    "LLM",
    "L\u200bLM",
    "\u0410PI",
    "Source:",
    "word",
    "a b c d e f g h",
    "\u00ad",
    "<details>",
    "[a]: https://x.org 't'",
    "=",
    "*(",
]
LINES = st.lists(st.sampled_from(LINE_PIECES), max_size=12).map("".join)
DOCUMENTS = st.lists(LINES, min_size=1, max_size=40).map(lambda lines: "\n".join(lines) + "\n")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(DOCUMENTS, min_size=1, max_size=4))
def test_every_generated_document_gets_a_result_within_the_bound(
    tmp_path: Path, documents: list[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for i, text in enumerate(documents):
        # a long version of each line too: the patterns' worst cases need long lines
        long = "\n".join(line * 200 for line in text.split("\n"))
        (folder / f"{i}.md").write_text(text, encoding="utf-8")
        (folder / f"{i}-long.md").write_text(long, encoding="utf-8")
    argv = [
        sys.executable,
        "-m",
        "evalgate",
        "check",
        str(folder),
        "--format",
        "json",
        "--document-timeout",
        "20",
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    results = {Path(r["path"]).name: r for r in json.loads(proc.stdout)["results"]}
    assert len(results) == 2 * len(documents)
    for name, result in results.items():
        assert result["error"] is None, (name, result["error"])  # neither a parse error nor the bound
        assert all(d["status"] != "error" for d in result["dimensions"]), (name, result["dimensions"])
