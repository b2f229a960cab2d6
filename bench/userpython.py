"""The interpreter the speed bench runs evalgate with: one set up like a user's install, or this one.

A user who ran `pip install evalgate` starts an interpreter whose site-packages holds evalgate's
dependencies and nothing of this sandbox's. This interpreter's global site-packages has `.pth` files
that `site` runs at every start: here an editable-install finder for evalgate (~22 ms: it imports
`importlib.util` and more) and a hook that imports `certifi` (~16 ms, `importlib.resources`), plus
`distutils-precedence.pth`. So the bench makes a scratch virtual environment (`python -m venv
--without-pip`, from the real interpreter binary) whose site-packages has one `.pth` file listing the
directories that hold the dependencies as plain path lines: a path line adds its directory to
`sys.path`, and `site` does not run the `.pth` files inside a directory added that way. The tree under
test goes first on `PYTHONPATH`, as before. Before it is used, the set-up is checked: `import yaml,
pydantic` works under it, and `python -X importtime` shows none of those start-up modules loading.
And as pip would, the environment gets an `evalgate` console script (pyproject.toml's
`[project.scripts]` entry, pip's wrapper text): that is what a user or a pre-commit hook runs, and
it skips `runpy`, which `python -m evalgate` imports.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

# Modules this sandbox's .pth files import at start-up, which a user's install does not.
SANDBOX_START = ("certifi", "_distutils_hack", "__editable__")


# pip's console-script wrapper (distlib's template), with the entry point filled in.
SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from {module} import {function}
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit({function}())
"""


@dataclass(frozen=True)
class Interpreter:
    python: str
    command: tuple[str, ...]  # what runs evalgate: the console script, or `python -m evalgate`
    setup: tuple[str, ...]  # how it runs evalgate and how its site is set up, printed with the figures


def real_python() -> Path:
    """This interpreter's binary; refuses a launcher script such as pyenv's shim (`python` on PATH
    here is one, ~60 ms a start), which a user's console script does not go through."""
    exe = Path(sys.executable)
    with exe.resolve().open("rb") as binary:
        if binary.read(2) == b"#!":
            raise SystemExit(f"{exe} is a script (a shim?): run the bench with the interpreter binary")
    return exe


def dependency_dirs() -> list[str]:
    """The directories this interpreter installs packages into, where evalgate's dependencies are."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(p for p in (paths["purelib"], paths["platlib"]) if Path(p).is_dir()))


def start_modules(python: str, env: dict[str, str], cwd: Path) -> list[str]:
    """Which of SANDBOX_START's modules `python` loads when it starts and imports yaml and pydantic;
    exits with the error if that import fails."""
    probe = [python, "-X", "importtime", "-c", "import yaml, pydantic"]
    done = subprocess.run(probe, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{python} cannot import yaml and pydantic: {done.stderr[-800:]}")
    names = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    return [n for n in names if n.split(".")[0].startswith(SANDBOX_START)]


def _entry_point(root: Path) -> str:
    with (root / "pyproject.toml").open("rb") as project:
        return str(tomllib.load(project)["project"]["scripts"]["evalgate"])


def console_script(python: str, script: Path, module: str, function: str) -> Path:
    """pip's wrapper for `module:function` under `python`, written to `script`."""
    script.write_text(SCRIPT.format(python=python, module=module, function=function), encoding="utf-8")
    script.chmod(0o755)
    return script


def before_script(interpreter: Interpreter, tree: Path) -> Interpreter:
    """The same venv running an older tree's own entry point (its pyproject.toml's, which may differ
    from this tree's: stop 33 moved it from evalgate.cli:main to evalgate.__main__:main)."""
    if interpreter.command[0] == interpreter.python:  # `python -m evalgate`: the same for any tree
        return interpreter
    module, _, function = _entry_point(tree).partition(":")
    script = Path(interpreter.command[0]).with_name("evalgate-before")
    console_script(interpreter.python, script, module, function)
    return Interpreter(interpreter.python, (str(script),), interpreter.setup)


def user_venv(scratch: Path, env: dict[str, str], root: Path) -> Interpreter:
    """A virtual environment in `scratch` that sees the dependencies but not this site's .pth files."""
    venv = scratch / "venv"
    base = real_python()
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = str(venv / "bin" / "python")
    ask = [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    site = Path(subprocess.run(ask, check=True, capture_output=True, text=True).stdout.strip())
    dirs = dependency_dirs()
    (site / "evalgate-bench-dependencies.pth").write_text("".join(f"{d}\n" for d in dirs), encoding="utf-8")
    loaded = start_modules(python, env, scratch)
    if loaded:
        raise SystemExit(f"the bench's virtual environment still loads {', '.join(loaded)} at start")
    module, _, function = _entry_point(root).partition(":")
    script = console_script(python, venv / "bin" / "evalgate", module, function)
    return Interpreter(
        python,
        (str(script),),
        (
            f"runs the console script {script} ({module}:{function}, pip's wrapper)",
            f"a venv (--without-pip) of {base.resolve()}",
            f"dependencies from {', '.join(dirs)}, added by a .pth path line (its .pth files not run)",
            f"checked with -X importtime: yaml and pydantic import; none of {', '.join(SANDBOX_START)} loads",
        ),
    )


def system_python(scratch: Path, env: dict[str, str], _root: Path) -> Interpreter:
    """This interpreter as it is, its site-packages' .pth files run at every start (the old way)."""
    python = str(real_python())
    pth = sorted(p.name for d in dependency_dirs() for p in Path(d).glob("*.pth"))
    loaded = start_modules(python, env, scratch)
    return Interpreter(
        python,
        (python, "-m", "evalgate"),
        (
            f"runs {python} -m evalgate, this interpreter with its own site",
            f"{len(pth)} .pth files run at every start: {', '.join(pth) or 'none'}",
            f"checked with -X importtime: loads {', '.join(loaded) or 'none of ' + ', '.join(SANDBOX_START)}",
        ),
    )
