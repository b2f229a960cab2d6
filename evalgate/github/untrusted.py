"""What a pull request may not supply to its own gate: a program a judge runs, or the judge cache.

Programs: with the base's policy, a `command:` judge comes from the base configuration or the
workflow's inputs, but the program it names can still be a file in the checkout. When the pull request
added or changed that file (or, for `replay:DIR`, anything under the directory; for `python -m PKG`,
the package; for a Python script, a module, package, submodule, bytecode or extension module it could
import from beside itself), the judge is refused before anything runs: the pull request would be
judging itself.

Cache: judge replies are keyed by the document's bytes and the judge spec, both of which a pull
request knows, so entries it commits would be read as the judge's answers. The action therefore
keeps its cache outside the workspace (`RUNNER_TEMP/evalgate-cache`) unless `cache-dir` names
another directory, and on a pull request a named directory is not read at all: inside the workspace
the pull request can commit entries, and a directory kept with actions/cache is restored from the
pull request's own cache scope, which an earlier run of its own workflow could have filled.
"""

from __future__ import annotations

import posixpath
import shlex
import tempfile
from collections.abc import Iterable, Mapping
from importlib import machinery
from pathlib import Path

from evalgate.config import Config
from evalgate.github.policy import PolicyError, repository_path, touched

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


def _shadowing(folder: str, changed: Iterable[str]) -> list[str]:
    """Changed files Python could import from `folder` (a script's own directory, or the working
    directory for `-m` and `-c`: sys.path[0]) before the standard library or a package beside it: a
    module, a package's `__init__.py` or any submodule of it at any depth, compiled bytecode (sourceless
    or an unchecked-hash `__pycache__` entry) and extension modules, under directories that are package
    names."""
    suffixes = tuple(machinery.all_suffixes())  # .py, .pyc, .so and the interpreter's ABI-tagged .so
    found = []
    for path in changed:
        inside = path if folder == "" else path[len(folder) + 1 :] if path.startswith(folder + "/") else ""
        *dirs, name = inside.split("/")
        if name.endswith(suffixes) and all(d.isidentifier() for d in dirs):
            found.append(path)
    return sorted(found)


def _program_file(spec: str, workspace: Path) -> str | None:
    """The workspace file a command judge's process runs: the program when it is a path
    (`tools/judge`), else an interpreter's script, its first argument that is not an option
    (`python3 tools/judge`, with or without `.py`). None for `-m`/`-c`, or no file in the workspace."""
    name, _, arg = spec.strip().partition(":")
    try:
        tokens = shlex.split(arg) if name == "command" else []
    except ValueError:
        return None
    if not tokens:
        return None
    script = tokens[0] if "/" in tokens[0] else next((t for t in tokens[1:] if not t.startswith("-")), None)
    if script is None or any(t in ("-m", "-c") for t in tokens[1 : tokens.index(script)]):
        return None
    rel = repository_path(workspace, script)
    return None if rel in (None, ".") else rel


def _imports_from_workspace(spec: str) -> bool:
    """Whether a command judge puts its working directory, the workspace, first on Python's path."""
    name, _, arg = spec.strip().partition(":")
    try:
        return name == "command" and any(t in ("-m", "-c") for t in shlex.split(arg))
    except ValueError:
        return False


def refuse_changed_programs(judges: Iterable[str], workspace: Path, changed: frozenset[str]) -> None:
    """Raise PolicyError when a judge would run (or replay) files the pull request added or changed."""
    for spec in judges:
        culprits = _shadowing("", changed) if _imports_from_workspace(spec) else []
        for rel in judge_paths(spec, workspace):
            culprits += touched(changed, rel)
            if rel.endswith(".py"):
                culprits += _shadowing(posixpath.dirname(rel), changed)
        if (program := _program_file(spec, workspace)) is not None:
            culprits += _shadowing(posixpath.dirname(program), changed)  # a script without `.py`
        if culprits:
            listed = ", ".join(dict.fromkeys(culprits))
            raise PolicyError(
                f"judge {spec!r} would run or read {listed}, which this pull request adds or changes: "
                "a pull request's own program never judges it (policy-from: base). The change applies "
                "once merged; to run it before, use a judge the base commit already has"
            )


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
