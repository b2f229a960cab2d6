"""Shared test fixtures. Tests that need ../shared skip with a reason when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

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
