"""The README's two commands as make runs them: a project virtual environment (.venv, never the system
interpreter), a demo that reports the gate's exit code in a sentence and ends with 0, and a clear
message when `python3 -m venv` cannot work (Debian's python3 without python3-venv).

The real first run (a fresh Debian with only python3 python3-venv make git, `make demo` in a clone) is
recorded in docs/action.md; here make runs against a stand-in venv, so nothing is installed."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    # run from `make test`, the outer make's flags and variables must not leak into this one
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _stand_in_venv(tmp_path: Path, evalgate_exit: int) -> Path:
    """A venv as `make install` leaves it (stamp newer than pyproject.toml) whose evalgate prints a
    report line and exits with `evalgate_exit`."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    _script(venv / "bin" / "evalgate", f'#!/bin/sh\necho "report for $*"\nexit {evalgate_exit}\n')
    (venv / ".demo").touch()
    return venv


def test_demo_reports_a_failing_gate_in_a_sentence_and_exits_0(tmp_path: Path) -> None:
    proc = _make("demo", f"VENV={_stand_in_venv(tmp_path, 1)}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "report for check gold/research-loop/"
    assert lines[-1].startswith("The gate's exit code was 1: in CI this run would fail")
    assert "Error" not in proc.stderr


def test_demo_says_when_the_gate_passes(tmp_path: Path) -> None:
    proc = _make("demo", f"VENV={_stand_in_venv(tmp_path, 0)}")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "The gate's exit code was 0: every file passed, so CI would pass."


def test_demo_still_fails_on_a_usage_or_configuration_error(tmp_path: Path) -> None:
    proc = _make("demo", f"VENV={_stand_in_venv(tmp_path, 2)}")
    assert proc.returncode != 0
    assert "evalgate exited 2: a usage or configuration error" in proc.stderr


def test_without_venv_support_make_says_what_to_install_and_leaves_no_broken_venv(tmp_path: Path) -> None:
    # Debian's python3 without python3-venv: `-m venv` makes the directory, then fails on ensurepip
    python = _script(
        tmp_path / "python3",
        "#!/bin/sh\n"
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin"; '
        'echo "The virtual environment was not created successfully: no ensurepip" >&2; '
        "exit 1; fi\n"
        f'exec {sys.executable} "$@"\n',
    )
    venv = tmp_path / "venv"
    proc = _make("install", f"PYTHON={python}", f"VENV={venv}")
    assert proc.returncode != 0
    assert "apt-get install python3-venv" in proc.stderr
    assert not venv.exists()  # the next make starts over instead of using a venv with no pip


def test_too_old_a_python_is_named(tmp_path: Path) -> None:
    python = _script(
        tmp_path / "python3", "#!/bin/sh\n[ \"$1\" = -V ] && echo 'Python 3.9.2' && exit 0\nexit 1\n"
    )
    proc = _make("install", f"PYTHON={python}", f"VENV={tmp_path / 'venv'}")
    assert proc.returncode != 0
    assert "needs Python 3.11 or newer" in proc.stderr and "Python 3.9.2" in proc.stderr


def test_every_install_goes_into_the_project_venv() -> None:
    # a dry run of a fresh checkout: nothing is pip-installed with the system interpreter
    plan = _make("-n", "-B", "demo", "test", "VENV=.venv-dry-run").stdout
    installs = [line for line in plan.splitlines() if "pip" in line and "install" in line]
    assert len(installs) == 2  # the package (demo) and it with its test extras (test)
    assert all(line.startswith(".venv-dry-run/bin/python -m pip") for line in installs), installs
    assert "python3 -m venv .venv-dry-run" in plan
    assert not (ROOT / ".venv-dry-run").exists()
