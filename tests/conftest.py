"""Shared test fixtures. Tests that need ../shared skip with a reason when it is absent."""

from __future__ import annotations

import os
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
