"""The action's path imports nothing it does not use: entrypoint.py run as the container runs it on a
push that changed one item, with no judge and no history, loads no judging stack, no worker pool, no
validation, no history and no other command's modules (tests/test_cli.py holds the same for the
command line's one-file paths)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tests.github.test_entrypoint as entrypoint
from tests.support.github_api import FakeGitHub

NOT_FOR_THE_ACTION = (
    "pydantic",  # no .evalgate.yml, the shipped pack: nothing to validate
    "jinja2",  # no judge: no prompt
    "rich",
    "markdown_it",
    "multiprocessing",  # one file: timed in the process itself
    "evalgate.run.workers",
    "concurrent.futures",  # no judge pool
    "evalgate.judging.setup",
    "evalgate.judging.judge",
    "evalgate.judging.prompt",
    "evalgate.judging.backends.registry",
    "evalgate.validity.history",  # no history file
    "evalgate.github.history_store",  # no history branch
    "evalgate.fix",
    "evalgate.checks.amount_matches_tools",
    "statistics",
    "decimal",
)


def test_a_push_without_judges_imports_nothing_it_does_not_use(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The entrypoint runs as itself (it starts itself again without the tokens); a wrapper records
    # the modules the second start had loaded when it exits.
    wrapper = tmp_path / "entrypoint_recording.py"
    wrapper.write_text(
        "import atexit, json, os, runpy, sys\n"
        "def record():\n"
        "    with open(os.environ['MODULES_FILE'], 'w') as out:\n"
        "        json.dump(sorted(sys.modules), out)\n"
        "atexit.register(record)\n"
        f"sys.path.insert(0, {str(entrypoint.ENTRYPOINT.parent)!r})\n"
        f"runpy.run_path({str(entrypoint.ENTRYPOINT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(entrypoint, "ENTRYPOINT", wrapper)
    ws = entrypoint._workspace(tmp_path)
    event = entrypoint._event(events_dir, "push.4.json", ws, tmp_path)
    modules = tmp_path / "modules.json"
    run = entrypoint._run_action(
        tmp_path, ws, "push", event, github.url, runner_env={"MODULES_FILE": str(modules)}
    )
    assert run.results is not None, run.stdout + run.stderr
    assert [r["path"] for r in run.results["results"]] == [entrypoint.NEW_ITEM]
    assert len(github.check_runs) == 1  # posted: the path ran to its end
    loaded = json.loads(modules.read_text(encoding="utf-8"))
    assert "evalgate.github.api" in loaded
    assert [m for m in NOT_FOR_THE_ACTION if m in loaded] == []
