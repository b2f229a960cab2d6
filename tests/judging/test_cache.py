"""The reply cache: keyed on everything a reply depends on, atomic, and a corrupt entry is a miss."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evalgate.judgement import Reply
from evalgate.judging.cache import DEFAULT_CACHE_DIR, CacheKey, JudgeCache, document_sha256, open_cache

KEY = CacheKey(
    document_sha256=document_sha256("# Doc\n"),
    rubric_version="abc123",
    template_sha256="t" * 64,
    prompt_sha256="p" * 64,
    backend="command",
    model="stub",
    seed=7,
    reply_format="table",
)
REPLY = Reply(
    text="| dimension | score |\nOVERALL: PASS\n",
    model="stub-1",
    latency_ms=12.5,
    tokens_in=10,
    cost_usd=0.01,
)


def test_round_trip(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    assert cache.get(KEY) is None
    assert cache.put(KEY, REPLY)
    assert cache.get(KEY) == REPLY
    assert cache.path_for(KEY).parent.parent == tmp_path
    assert [p.name for p in cache.path_for(KEY).parent.iterdir()] == [f"{KEY.digest}.json"]  # no temp left


@pytest.mark.parametrize(
    "field, value",
    [
        ("document_sha256", document_sha256("# Doc changed\n")),
        ("rubric_version", "def456"),
        ("template_sha256", "u" * 64),
        ("prompt_sha256", "q" * 64),
        ("backend", "openai"),
        ("model", "other"),
        ("seed", 8),
        ("reply_format", "json"),
    ],
)
def test_every_input_changes_the_key(tmp_path: Path, field: str, value: Any) -> None:
    cache = JudgeCache(tmp_path)
    cache.put(KEY, REPLY)
    other = replace(KEY, **{field: value})
    assert other.digest != KEY.digest
    assert cache.get(other) is None


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "",
        "[]",
        json.dumps({"format": 1, "key": {}, "reply": {}}),
        b"\xff\xfe".decode("latin-1"),
    ],
)
def test_corrupt_entry_is_a_miss(tmp_path: Path, content: str) -> None:
    cache = JudgeCache(tmp_path)
    cache.put(KEY, REPLY)
    cache.path_for(KEY).write_text(content, encoding="latin-1")
    assert cache.get(KEY) is None
    assert cache.put(KEY, REPLY) and cache.get(KEY) == REPLY  # and is overwritten cleanly


def test_entry_with_wrong_field_types_is_a_miss(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    cache.put(KEY, REPLY)
    entry = json.loads(cache.path_for(KEY).read_text(encoding="utf-8"))
    entry["reply"]["tokens_in"] = "ten"
    cache.path_for(KEY).write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(KEY) is None


def test_unwritable_directory_is_not_a_crash(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    cache = JudgeCache(blocker / "cache")  # a path under a regular file can never be created
    assert cache.put(KEY, REPLY) is False
    assert cache.get(KEY) is None


def test_default_directory() -> None:
    assert JudgeCache().directory == DEFAULT_CACHE_DIR == Path(".evalgate-cache")


def test_open_cache_honours_no_cache(tmp_path: Path) -> None:
    assert open_cache(tmp_path, enabled=False) is None
    cache = open_cache(tmp_path / "c")
    assert cache is not None and cache.directory == tmp_path / "c"
    assert not (tmp_path / "c").exists()  # nothing is created until a reply is stored
    assert open_cache() is not None and open_cache().directory == DEFAULT_CACHE_DIR  # type: ignore[union-attr]
