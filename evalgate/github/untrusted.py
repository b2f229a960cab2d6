"""What a pull request may not supply to its own gate: a program a judge runs, or the judge cache.

Programs: with the base's policy, a `command:` judge comes from the base configuration or the
workflow's inputs, but the program it names can still be a file in the checkout, and so can anything
that program runs or reads by a relative path. The action therefore runs such judges in a copy of the
base commit's whole tree (`isolation.base_tree`, `process.JudgeSandbox`), and `judge_paths` here only
names the files a judge spec points at, for the report of what the pull request changes.

Cache: judge replies are keyed by the document's bytes and the judge spec, both of which a pull
request knows, so entries it commits would be read as the judge's answers. The action therefore
keeps its cache outside the workspace (`RUNNER_TEMP/evalgate-cache`) unless `cache-dir` names
another directory, and on a pull request a named directory is not read at all: inside the workspace
the pull request can commit entries, and a directory kept with actions/cache is restored from the
pull request's own cache scope, which an earlier run of its own workflow could have filled.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path

from evalgate.config import Config
from evalgate.github.policy import repository_path

ACTION_CACHE_NAME = "evalgate-cache"


def judge_paths(spec: str, workspace: Path) -> list[str]:
    """Workspace-relative paths a `command:` or `replay:` judge spec runs or reads (others: none).

    Every argument of a command counts (the program, a script it is handed, the value of `--opt=PATH`),
    and so does the module of `-m MODULE` (its top-level package). Arguments that are not paths in the
    workspace cost nothing: they only matter if the pull request changed a file by that name."""
    name, _, arg = spec.strip().partition(":")
    if name == "replay":
        candidates = [arg.strip()]
    elif name == "command":
        try:
            tokens = shlex.split(arg)
        except ValueError:
            return []  # the backend reports the broken spec itself, before anything runs
        candidates = []
        for before, token in zip(["", *tokens], tokens, strict=False):
            if before == "-m":
                top = token.split(".")[0]
                candidates += [top, f"{top}.py"]
            candidates.append(token.split("=", 1)[1] if token.startswith("-") and "=" in token else token)
    else:
        return []
    paths = (repository_path(workspace, c) for c in candidates if c and not c.startswith("-"))
    return [p for p in dict.fromkeys(paths) if p is not None and p != "."]


def action_cache_dir(env: Mapping[str, str]) -> Path:
    """The action's judge cache: outside the workspace, in the runner's temporary directory."""
    return Path(env.get("RUNNER_TEMP") or tempfile.gettempdir()) / ACTION_CACHE_NAME


def place_cache(
    config: Config, *, env: Mapping[str, str], workspace: Path, changed: frozenset[str] | None
) -> tuple[Config, tuple[str, ...]]:
    """The run's cache directory and a notice when a configured one is not used.

    The default (`.evalgate-cache`) becomes `action_cache_dir`; another directory is kept, except on
    a pull request or merge group (`changed` is not None), where the run caches in `action_cache_dir`
    instead. Inside the workspace the pull request can commit entries (or a symlink leading to them);
    outside it, a directory kept between runs with actions/cache is restored from the pull request's
    own cache scope first, where an earlier run of a workflow the pull request changed, and changed
    back before the run that counts, could have saved forged entries."""
    if not config.cache:
        return config, ()
    outside = str(action_cache_dir(env))
    if config.cache_dir == Config().cache_dir:
        return config.with_overrides(cache_dir=outside), ()
    if changed is None:
        return config, ()
    notice = (
        f"cache-dir {config.cache_dir} is not read on a pull request (its entries could be the pull "
        "request's: committed, or saved by an earlier run of a workflow it changed and changed back); "
        f"judge replies are cached in {outside} for this run"
    )
    return config.with_overrides(cache_dir=outside), (notice,)
