"""Shared test fixtures. Tests that need ../shared skip with a reason when it is absent."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from evalgate.judging.backends.copilot import find_copilot_binary

if TYPE_CHECKING:
    from tests.support.github_api import FakeGitHub

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "research-completed"
PROTOCOL = SHARED / "reference" / "research-protocol"
EVENTS = SHARED / "fixtures" / "github-events"
CONTRACT = SHARED / "contracts" / "github-rest" / "api.github.com.subset.json"


_SESSION_DIR = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """As root, the tests' temporary directories live in a directory of this session's own.

    The action runs its judges as `nobody` when it is root (tests/support/judge_user.py), so a test's
    judge program under tmp_path must be reachable by other users. pytest keeps its directories in
    /tmp/pytest-of-root, and every pytest session that starts as root (another checkout's, say) sets
    that directory back to 0700, which would cut a running test's judge off at any moment. A session
    directory nobody else touches, which other users may pass through but not list, does not move.
    The xdist workers get their directories under it from the controller; it is removed at the end."""
    if (
        not hasattr(os, "geteuid")
        or os.geteuid() != 0
        or config.option.basetemp
        or hasattr(config, "workerinput")
    ):
        return
    session = Path(tempfile.mkdtemp(prefix="evalgate-tests-"))
    session.chmod(0o711)
    config.option.basetemp = str(session / "tmp")
    config.stash[_SESSION_DIR] = session


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION_DIR, None)
    if session is not None:
        shutil.rmtree(session, ignore_errors=True)


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"needs {path} (the project's ../shared), which is absent here")
    return path


@pytest.fixture
def corpus_dir() -> Path:
    return _need(CORPUS)


@pytest.fixture
def events_dir() -> Path:
    return _need(EVENTS)


@pytest.fixture
def github_contract() -> Path:
    return _need(CONTRACT)


@pytest.fixture
def protocol_dir() -> Path:
    return _need(PROTOCOL)


@pytest.fixture
def copilot_bin() -> str:
    """The pinned Copilot CLI (or $EVALGATE_COPILOT_BIN); skip when it is not installed."""
    binary = os.environ.get("EVALGATE_COPILOT_BIN") or find_copilot_binary({"PATH": ""})
    if not binary:
        pytest.skip("Copilot CLI not installed: run `npm ci` in the project root")
    return binary


@pytest.fixture
def fake_github(github_contract: Path) -> Iterator[FakeGitHub]:
    """A loopback GitHub API that validates every request against the shared schemas."""
    from tests.support.github_api import FakeGitHub

    with FakeGitHub(github_contract) as fake:
        yield fake


@pytest.fixture
def github(github_contract: Path) -> Iterator[FakeGitHub]:
    """The contract-checked fake GitHub for a whole action run: the test fails if any request the run
    made broke GitHub's OpenAPI description (or lacked its headers)."""
    from tests.support.github_api import FakeGitHub

    with FakeGitHub(github_contract) as server:
        yield server
        assert server.violations == []
