"""The per-document time budget: a document the structural pass cannot finish in `document-timeout`
seconds is an ERROR naming it and the budget, and the run goes on with the others and reports
normally. The patterns are linear now, so the test puts back the exponential pattern that made an
88-byte table row hang (a deliberately broken build, as a pattern not yet found would be) and runs the
real CLI in a fresh interpreter, where the run forks its worker: a hang would be this test's 120 s
timeout, and the 1 s budget is what ends it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalgate.config import Config, ConfigError, parse_config
from tests.checks.research_item import research_item

ROOT = Path(__file__).resolve().parent.parent
HANGING_ROW = "|" + " |" * 40 + "x"
BROKEN = (
    "import re, sys\n"
    "import evalgate.checks.section_presence as sp\n"
    "sp._EMPTY_MAP_ROW = re.compile("
    "r'^\\s*\\|(?:\\s*(?:high\\s*/\\s*medium\\s*/\\s*low)?\\s*\\|)+\\s*$', re.I)\n"
    "from evalgate.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _items(folder: Path) -> None:
    folder.mkdir()
    (folder / "a-good.md").write_text(research_item())
    (folder / "b-hangs.md").write_text(
        research_item().replace("## Scope\n", f"## Scope\n\n{HANGING_ROW}\n", 1)
    )
    (folder / "c-good.md").write_text(research_item())


def _checked(tmp_path: Path, script: str, *args: str) -> dict[str, dict]:
    """`evalgate check ARGS --format json` on the items, run by `script` in a fresh interpreter (where
    the run may fork): its results by path, once it has exited 1 without a traceback. A hang would be
    this call's 120 s timeout."""
    _items(tmp_path / "items")
    argv = [sys.executable, "-c", script, "check", *args, "--format", "json"]
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    return {r["path"]: r for r in json.loads(proc.stdout)["results"]}


@pytest.mark.skipif(sys.platform != "linux", reason="the worker is forked on Linux only")
def test_a_document_over_the_budget_is_an_error_naming_it_and_the_run_goes_on(tmp_path: Path) -> None:
    results = _checked(tmp_path, BROKEN, "items", "--document-timeout", "1")
    assert [results[p]["verdict"] for p in sorted(results)] == ["PASS", "ERROR", "PASS"]
    error = results["items/b-hangs.md"]["error"]
    assert error.startswith("items/b-hangs.md: not evaluated: took longer than 1 s")
    assert "document-timeout: 1 s" in error


def test_one_document_over_the_budget_is_an_error_naming_it_without_a_worker_process(tmp_path: Path) -> None:
    # One file (a pre-commit hook) is read in the process itself, under an interval timer
    # (evalgate.run.timer): the regex engine looks at signals as it matches, so the timer stops it.
    no_fork = "import os\ndef _no(*a, **k):\n    raise AssertionError('forked')\nos.fork = _no\n"
    results = _checked(tmp_path, no_fork + BROKEN, "items/b-hangs.md", "--document-timeout", "1")
    assert results["items/b-hangs.md"]["verdict"] == "ERROR"
    assert results["items/b-hangs.md"]["error"].startswith(
        "items/b-hangs.md: not evaluated: took longer than 1 s"
    )


# A command judge that gives every judged dimension of research-loop a 4 (its evidence quoting nothing).
TABLE_JUDGE = (
    "import sys\n"
    "sys.stdin.read()\n"
    "dims = ['executive_summary_first_sentence', 'claim_source_accuracy', 'epistemic_labeling',"
    " 'key_finding_specificity']\n"
    "print('| dimension | score | evidence | reasoning |\\n|---|---|---|---|')\n"
    "print('\\n'.join(f'| {d} | 4 | - | fine |' for d in dims))\n"
)


def test_a_judged_run_of_few_files_keeps_the_budget_in_its_own_process(tmp_path: Path) -> None:
    # A judged run of fewer files than a pool pays for reads them in the process, every document's
    # calls submitted before the checks (evalgate.run._submitted_first), each document within the
    # budget by the interval timer: no worker process.
    (tmp_path / "judge.py").write_text(TABLE_JUDGE)
    judge = f"command:{sys.executable} {tmp_path / 'judge.py'}"
    no_fork = "import os\ndef _no(*a, **k):\n    raise AssertionError('forked')\nos.fork = _no\n"
    results = _checked(tmp_path, no_fork + BROKEN, "items", "--judge", judge, "--document-timeout", "1")
    assert [results[p]["verdict"] for p in sorted(results)] == ["PASS", "ERROR", "PASS"]
    assert results["items/b-hangs.md"]["error"].startswith(
        "items/b-hangs.md: not evaluated: took longer than 1 s"
    )
    judged = [d["score"] for d in results["items/a-good.md"]["dimensions"] if d["kind"] == "judge"]
    assert judged == [4, 4, 4, 4]


CRASHES = (
    "import os, signal, sys\n"
    "import evalgate.checks.section_presence as sp\n"
    "real = sp.check\n"
    "def check(document, *args, **kwargs):\n"
    "    if document.path.endswith('b-hangs.md'):\n"
    "        os.kill(os.getpid(), signal.SIGSEGV)\n"
    "    return real(document, *args, **kwargs)\n"
    "sp.check = check\n"
    "from evalgate.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@pytest.mark.skipif(sys.platform != "linux", reason="the worker is forked on Linux only")
def test_a_worker_that_dies_costs_its_document_alone(tmp_path: Path) -> None:
    results = _checked(tmp_path, CRASHES, "items")
    assert [results[p]["verdict"] for p in sorted(results)] == ["PASS", "ERROR", "PASS"]
    error = results["items/b-hangs.md"]["error"]
    assert error.startswith("items/b-hangs.md: not evaluated: its worker process died (exit code -11)")


def test_the_same_document_is_evaluated_when_the_pattern_is_linear(tmp_path: Path) -> None:
    _items(tmp_path / "items")
    argv = [
        sys.executable,
        "-m",
        "evalgate",
        "check",
        "items",
        "--format",
        "json",
        "--document-timeout",
        "30",
    ]
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    verdicts = {r["path"]: r["verdict"] for r in json.loads(proc.stdout)["results"]}
    assert verdicts == {"items/a-good.md": "PASS", "items/b-hangs.md": "PASS", "items/c-good.md": "PASS"}


def test_the_budget_is_a_config_key_and_an_option() -> None:
    assert Config().document_timeout == 10.0
    assert parse_config("document-timeout: 2.5\n", "x.yml").document_timeout == 2.5
    with pytest.raises(ConfigError, match="document-timeout: Input should be greater than 0"):
        parse_config("document-timeout: 0\n", "x.yml")
