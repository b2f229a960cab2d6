"""Run-level judge wiring: backends from config, repeated judges stay distinct raters."""

from __future__ import annotations

from evalgate.config import Config
from evalgate.judging.setup import make_judges, unique_labels


def test_repeated_judges_are_numbered():
    assert unique_labels(["a:m", "b:m", "a:m", "a:m"]) == ["a:m", "b:m", "a:m#2", "a:m#3"]


def test_make_judges_builds_one_backend_per_spec(tmp_path):
    config = Config(judges=("replay:" + str(tmp_path), "command:echo hi"))
    judges = make_judges(config)
    assert [j.name for j in judges] == ["replay", "command"]
