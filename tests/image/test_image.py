"""The action image itself (bench/image.py): built with docker or podman and run for push,
pull_request and workflow_dispatch against a loopback GitHub API, with a workspace another user owns.

Building takes minutes, so the default suite never builds: this runs when EVALGATE_IMAGE_TEST=1
(build, then run), or when an engine works and the image `localhost/evalgate-action:test` is already
built (run only); EVALGATE_IMAGE_ENGINE picks docker or podman. Otherwise it is skipped with the
reason, so `make test` stays as fast as before. CI's `image` job runs bench/image.py directly on
GitHub's runners. Engine options for unusual machines: see bench/image.py."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "image.py"


def _image_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_image", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_history_sizes_are_read_in_both_engines_formats() -> None:
    image = _image_module()
    # podman prints "197 MB", docker "197MB"; both SI units
    assert [image._bytes(s) for s in ("197 MB", "197MB", "2.56 kB", "0 B", "1.2GB", "12")] == [
        197_000_000, 197_000_000, 2_560, 0, 1_200_000_000, 12,
    ]  # fmt: skip


def test_a_missing_engine_is_a_reason_not_an_error() -> None:
    reason = _image_module().find_engine("no-such-container-engine")
    assert reason == "no container engine works: no-such-container-engine: not installed"


def test_the_image_serves_the_three_uses_and_leaves_the_workspace_to_its_owner() -> None:
    image = _image_module()
    contract = Path(os.environ.get("EVALGATE_GITHUB_CONTRACT") or image.SHARED_CONTRACT)
    if not contract.exists():
        pytest.skip(f"needs GitHub's OpenAPI description at {contract} (or $EVALGATE_GITHUB_CONTRACT)")
    engine = image.find_engine(os.environ.get("EVALGATE_IMAGE_ENGINE") or None)
    if isinstance(engine, str):
        pytest.skip(engine)
    build = os.environ.get("EVALGATE_IMAGE_TEST") == "1"
    if not build and not image.image_exists(engine, image.TAG):
        pytest.skip(f"{image.TAG} is not built; EVALGATE_IMAGE_TEST=1 builds it (minutes) and runs this")
    argv = [
        sys.executable,
        str(SCRIPT),
        "--engine",
        engine.name,
        "--rounds",
        "1",
        "--contract",
        str(contract),
    ]
    proc = subprocess.run(
        [*argv, *([] if build else ["--no-build"])], capture_output=True, text=True, timeout=3600, check=False
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    report = proc.stdout.splitlines()
    assert {"push: ok", "pull_request: ok", "workflow_dispatch: ok"} <= set(report)
    assert any(line.startswith("import evalgate.github.action: median") for line in report)
