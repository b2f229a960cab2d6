"""Running the command line as a user would, from a directory of the test's own."""

from __future__ import annotations

import os
from pathlib import Path

from evalgate.cli import main


def run_in(workdir: Path, argv: list[str]) -> int:
    """`evalgate ARGV` with `workdir` as the working directory (restored after); the exit code."""
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        return main(argv)
    finally:
        os.chdir(cwd)
