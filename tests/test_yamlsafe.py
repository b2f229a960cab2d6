"""The C-backed safe loader gives yaml.safe_load's data for every bundled YAML file and refuses what
safe_load refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evalgate.yamlsafe import safe_load

BUNDLED = sorted(p for p in (Path(__file__).resolve().parent.parent / "evalgate").rglob("*.yml"))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_same_data_as_safe_load(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert safe_load(text) == yaml.safe_load(text)


def test_python_tags_are_refused() -> None:
    with pytest.raises(yaml.YAMLError):
        safe_load("!!python/object/apply:os.system ['true']")


def test_broken_yaml_raises_with_its_line() -> None:
    with pytest.raises(yaml.MarkedYAMLError) as caught:
        safe_load("a: 1\nb: [2\nc: 3\n")
    assert caught.value.problem_mark is not None and caught.value.problem_mark.line >= 1
