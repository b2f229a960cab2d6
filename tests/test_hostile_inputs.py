"""Hostile inputs through `evalgate check` (in process and as a subprocess) and through the action's
entrypoint: every hostile file gets a clear, specific message of its own, the good file beside it is
still evaluated, nothing prints a traceback, and nothing hangs.

Inputs are sized so a regression would show as a run that takes minutes (a quadratic section builder
took ~10 s on the 50,000 headings here; the YAML bomb expands to 9**7 values if walked unbounded),
without any timed assertion.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evalgate.cli import main
from evalgate.document import front_matter_warning, read_document
from tests.checks.research_item import research_item
from tests.github.test_entrypoint import ActionRun, Workspace, _run_action
from tests.support.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parent.parent
ITEMS = "Research/completed"
PWNED = "evalgate-hostile-yaml-ran"  # the !!python tag would create this file if it were honoured

_BOMB_LEVELS = "abcdefg"
YAML_BOMB = "---\nroot: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("a" + _BOMB_LEVELS, _BOMB_LEVELS[1:] + "h", strict=False)
)


def _deep_nesting() -> str:
    """Quotes, lists and both mixed, 10,000 levels deep, inside the regions markdown-it-py parses."""
    deep = ">" * 10_000 + " quoted\n\n" + "- " * 10_000 + "listed\n\n" + "> - " * 5_000 + "mixed\n"
    return f"# Deep\n\n## Sources\n\n{deep}\n## Findings\n\n### Key Findings\n\n{deep}"


def _evidence_table(rows: int) -> str:
    body = "".join(f"| claim {i} | https://example.org/{i} | high | n |\n" for i in range(rows))
    header = "| Claim | Source | Confidence | Notes |\n|---|---|---|---|\n"
    return f"# Table\n\n## Findings\n\n### Evidence Map\n\n{header}{body}"


@dataclass(frozen=True)
class Case:
    """One hostile file: its content, the verdict it must get, and what its message must say."""

    content: Callable[[], bytes]
    verdict: str
    message: str = ""  # in the ERROR message, or in a finding of an evaluated file


def _text(make: Callable[[], str]) -> Callable[[], bytes]:
    return lambda: make().encode("utf-8")


GOOD = _text(research_item)
PYTHON_TAG = f"---\nx: !!python/object/apply:os.system ['touch {PWNED}']\n---\n# T\n"
CASES: dict[str, Case] = {
    "non-utf8.md": Case(lambda: "# Caf\xe9\n".encode("latin-1"), "ERROR", "not UTF-8 (invalid byte 0xe9"),
    "binary.md": Case(lambda: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 50, "ERROR", "binary file (NUL byte"),
    "nul-byte.md": Case(lambda: b"# Title\n\nfine text\x00more\n", "ERROR", "NUL byte at offset 18"),
    "ten-mb.md": Case(lambda: b"# big\n" + b"word " * (2 * 1024 * 1024), "ERROR", "larger than the"),
    "empty.md": Case(lambda: b"", "FAIL", "missing required section"),
    "headings.md": Case(
        _text(lambda: "".join(f"## Heading {i}\n\ntext\n\n" for i in range(50_000))), "FAIL", "missing"
    ),
    "deep-nesting.md": Case(_text(_deep_nesting), "FAIL", "Key Finding 1 has 0 words"),
    "table-10k-rows.md": Case(_text(lambda: _evidence_table(10_000)), "FAIL", "Evidence Map"),
    "one-mb-line.md": Case(_text(lambda: "# Long\n\n" + "a" * (1024 * 1024) + "\n"), "FAIL", "missing"),
    "yaml-bomb.md": Case(_text(lambda: YAML_BOMB + "---\n# Bomb\n"), "FAIL", "missing"),
    "yaml-python-tag.md": Case(_text(lambda: PYTHON_TAG), "FAIL", "missing"),
    "yaml-deep-flow.md": Case(_text(lambda: "---\nx: " + "[" * 50_000 + "\n---\n# T\n"), "FAIL", "missing"),
    "yaml-huge-flow.md": Case(_text(lambda: "---\nx: " + "[" * 100_000 + "\n---\n# T\n"), "FAIL", "missing"),
    "with space.md": Case(GOOD, "PASS"),
    "ünïcødé ✓ 名前.md": Case(GOOD, "PASS"),
    "new\nline.md": Case(GOOD, "PASS"),
    "-rf.md": Case(GOOD, "PASS"),
    "--help.md": Case(GOOD, "PASS"),
}
# What the front matter of each hostile-YAML file must be reported as.
FRONT_MATTER = {
    "yaml-bomb.md": "expands to more than 20000 values",
    "yaml-python-tag.md": "could not determine a constructor for the tag 'tag:yaml.org,2002:python/",
    "yaml-deep-flow.md": "nests deeper than 64 levels",
    "yaml-huge-flow.md": "larger than 65536 bytes",
}
CliReport = tuple[int, dict[str, Any]]  # exit code, JSON report
ESCAPE = "escape.md"  # a symlink to a file outside the repository
DOTDOT = "dotdot"  # a symlinked directory leading outside


def _write_tree(root: Path, outside: Path) -> Path:
    """The hostile files and one good file under root/Research/completed; returns that folder."""
    items = root / ITEMS
    items.mkdir(parents=True)
    (items / "good.md").write_text(research_item())
    for name, case in CASES.items():
        (items / name).write_bytes(case.content())
    outside.mkdir()
    (outside / "secret.md").write_text(research_item())
    os.symlink(outside / "secret.md", items / ESCAPE)
    os.symlink(outside, items / DOTDOT)
    return items


def _by_path(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["path"].removeprefix(f"{ITEMS}/"): r for r in report["results"]}


def _messages(result: dict[str, Any]) -> str:
    texts = [result.get("error") or "", *result.get("warnings", []), *result.get("reasons", [])]
    texts += [f["message"] for d in result["dimensions"] for f in d["findings"]]
    return "\n".join(texts)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "repo"
    _write_tree(root, root.parent / "outside")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture(scope="module")
def cli_report(repo: Path) -> Iterator[CliReport]:
    """`evalgate check Research/completed` in process, once for the module."""
    output = repo.parent / "report.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo)
        code = main(["check", ITEMS, "--format", "json", "--output", str(output)])
    yield code, json.loads(output.read_text())


@pytest.mark.parametrize("name", list(CASES))
def test_each_hostile_file_gets_its_own_clear_result(name: str, cli_report: CliReport) -> None:
    code, report = cli_report
    result = _by_path(report)[name]
    case = CASES[name]
    assert result["verdict"] == case.verdict, _messages(result)
    assert case.message in _messages(result)
    if case.verdict == "ERROR":  # refused with a reason that names the file
        assert result["error"].startswith(str(Path(ITEMS, name))) or name in result["error"]
    else:  # evaluated: every dimension has a result, none is a tool error
        assert len(result["dimensions"]) == 9 and result["error"] is None
        assert all(d["status"] != "error" for d in result["dimensions"]), result["dimensions"]
    assert code == 1


def test_the_good_file_beside_them_passes(cli_report: CliReport) -> None:
    _, report = cli_report
    good = _by_path(report)["good.md"]
    assert good["verdict"] == "PASS" and good["error"] is None


def test_symlinks_out_of_the_repository_are_refused(cli_report: CliReport) -> None:
    _, report = cli_report
    by_path = _by_path(report)
    assert "outside the repository root" in by_path[ESCAPE]["error"]
    assert by_path[ESCAPE]["verdict"] == "ERROR"
    # a directory symlink is not followed by the walk: nothing from outside shows up
    assert not any(path.startswith(DOTDOT) for path in by_path), sorted(by_path)
    assert "secret" not in json.dumps(report)


@pytest.mark.parametrize("name", list(FRONT_MATTER))
def test_hostile_front_matter_is_refused_with_the_reason(name: str, repo: Path) -> None:
    document = read_document(repo / ITEMS / name)
    assert document.front_matter.data is None
    warning = front_matter_warning(document)
    assert warning is not None and FRONT_MATTER[name] in warning
    assert not (repo / PWNED).exists() and not Path(PWNED).exists()


@pytest.mark.parametrize("name", list(FRONT_MATTER))
def test_hostile_front_matter_reason_reaches_the_report(name: str, cli_report: CliReport) -> None:
    _, report = cli_report
    assert FRONT_MATTER[name] in "\n".join(_by_path(report)[name]["warnings"])


def test_subprocess_cli_names_that_look_like_options_and_no_traceback(repo: Path) -> None:
    names = ["-rf.md", "--help.md", "with space.md", "new\nline.md", "ünïcødé ✓ 名前.md", "binary.md"]
    argv = [sys.executable, "-m", "evalgate", "check", "--format", "json", "--"]
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "PYTHONPATH": str(ROOT)}
    paths = [f"{ITEMS}/{n}" for n in names]
    proc = subprocess.run([*argv, *paths], cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    by_path = _by_path(json.loads(proc.stdout))
    assert sorted(by_path) == sorted(names)
    assert {n: r["verdict"] for n, r in by_path.items()} == {n: CASES[n].verdict for n in names}
    # without `--` a leading dash is an option: argparse refuses it, it never becomes a file or a flag
    refused = subprocess.run([*argv[:-1], "-rf.md"], cwd=repo, capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr


# ------------------------------------------------------------------ through the action's entrypoint


def _action(tmp_path: Path, files: str = "") -> tuple[ActionRun, Path]:
    workspace = tmp_path / "workspace"
    _write_tree(workspace, tmp_path / "outside")
    repo = GitRepo.init(workspace)
    repo.run("add", "-A")
    repo.run("commit", "-q", "-m", "hostile items")
    head = repo.head()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {"files": files}, "ref": "refs/heads/main", "workflow": "w.yml"}))
    inputs = {"github-token": "", "files": files}
    ws = Workspace(repo, head, head)
    return _run_action(tmp_path, ws, "workflow_dispatch", event, "http://127.0.0.1:9", inputs), workspace


def test_action_evaluates_every_hostile_file_with_its_own_message(tmp_path: Path) -> None:
    run, workspace = _action(tmp_path)
    assert run.results is not None, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and run.returncode == 1
    by_path = _by_path(run.results)
    for name, case in CASES.items():
        assert by_path[name]["verdict"] == case.verdict, (name, _messages(by_path[name]))
        assert case.message in _messages(by_path[name]), name
    assert by_path["good.md"]["verdict"] == "PASS"
    assert by_path[ESCAPE]["verdict"] == "ERROR" and "outside" in by_path[ESCAPE]["error"]
    assert "secret" not in json.dumps(run.results)
    assert not (workspace / PWNED).exists()
    # names with a newline or a leading dash reach the step outputs as data, one per line
    failing = run.outputs.split("failing-files<<", 1)[1]
    assert f"{ITEMS}/-rf.md" not in failing and f"{ITEMS}/binary.md" in failing


def test_action_dispatch_files_with_dotdot_absolute_and_symlinks_are_refused(tmp_path: Path) -> None:
    listed = "\n".join(
        [
            f"{ITEMS}/../../outside/secret.md",
            "../outside/secret.md",
            str(tmp_path / "outside" / "secret.md"),
            f"{ITEMS}/{ESCAPE}",
            f"{ITEMS}/{DOTDOT}/secret.md",
            f"{ITEMS}/-rf.md",
            f"{ITEMS}/with space.md",
        ]
    )
    run, _ = _action(tmp_path, listed)
    assert run.results is not None, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and run.returncode == 1
    results = {r["path"]: r for r in run.results["results"]}
    assert results[f"{ITEMS}/-rf.md"]["verdict"] == "PASS"
    assert results[f"{ITEMS}/with space.md"]["verdict"] == "PASS"
    refused = {p: r["error"] for p, r in results.items() if r["verdict"] == "ERROR"}
    assert len(refused) == 5, results
    assert all(message.startswith("refused:") for message in refused.values())
    assert "'..'" in refused["../outside/secret.md"]
    assert "absolute" in refused[str(tmp_path / "outside" / "secret.md")]
    assert "secret" not in json.dumps([r["dimensions"] for r in run.results["results"]])
