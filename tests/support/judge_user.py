"""What the action's judges can reach in a test.

The action runs its judges as `nobody` when it is root, as in its container and as these tests run
on a root CI machine. A judge's program, the interpreter that runs it and every directory on their way
must then be open to other users, and whatever a judge writes must go to a directory it may write:
pytest makes its temporary directories 0700, and pyenv keeps its interpreters under /root (0700).
Where the tests are not root the action runs its judges as itself, and these helpers change nothing.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

DROPS_PRIVILEGES = hasattr(os, "geteuid") and os.geteuid() == 0


def open_to_judges(path: Path) -> None:
    """Let other users pass through `path` and each directory above it that this user owns (search
    permission only: nobody can list them)."""
    if not DROPS_PRIVILEGES:
        return
    for folder in (path, *path.parents):
        info = folder.stat()
        if info.st_uid == os.geteuid() and not info.st_mode & stat.S_IXOTH:
            folder.chmod(stat.S_IMODE(info.st_mode) | stat.S_IXOTH)


def writable_by_judges(path: Path) -> Path:
    """A directory at `path` any judge may write in (where a judge leaves what a test reads)."""
    path.mkdir(parents=True, exist_ok=True)
    open_to_judges(path)
    if DROPS_PRIVILEGES:
        path.chmod(0o777)
    return path


def _others_can_run(program: Path) -> bool:
    real = program.resolve()
    others = real.stat().st_mode & stat.S_IXOTH
    return bool(others) and all(folder.stat().st_mode & stat.S_IXOTH for folder in real.parents)


def judge_python() -> str:
    """A Python interpreter a judge can run: this one, unless judges run as nobody and it lies where
    nobody may not go; then the first `python3` on PATH that nobody can run."""
    if not DROPS_PRIVILEGES or _others_can_run(Path(sys.executable)):
        return sys.executable
    for folder in os.get_exec_path():
        candidate = shutil.which("python3", path=folder)
        if candidate and _others_can_run(Path(candidate)):
            return candidate
    raise AssertionError("no python3 the judges' user (nobody) can run")
