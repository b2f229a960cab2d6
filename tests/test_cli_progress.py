"""The progress bar goes to stderr when it is a terminal, and never into the report on stdout."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pty = pytest.importorskip("pty")


def _run_with_terminal_stderr(args: list[str], stdout_path) -> tuple[int, str, bytes]:
    master, slave = pty.openpty()
    # stdout to a file, not a pipe: nobody reads a pipe while the terminal is drained, and a full
    # pipe would block the child
    with open(stdout_path, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "evalgate", *args], stdout=out, stderr=slave)
    os.close(slave)
    terminal = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        terminal += chunk
    proc.wait()
    os.close(master)
    return proc.returncode, stdout_path.read_text(), terminal


def test_progress_on_a_terminal_stderr_only(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(80):
        (docs / f"item-{i:02}.md").write_text("# T\n\n## Research Question\n\nDoes it?\n")
    code, stdout, terminal = _run_with_terminal_stderr(["check", str(docs)], tmp_path / "out.txt")
    assert code == 1
    assert b"evaluating" in terminal
    assert "\x1b[" not in stdout and "evaluating" not in stdout
    assert stdout.rstrip().splitlines()[-2].startswith("80 file(s)")


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path):
    (tmp_path / "a.md").write_text("# T\n")
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "evaluating" not in proc.stderr and "\x1b[" not in proc.stderr
