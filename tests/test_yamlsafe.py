"""The C-backed safe loader gives yaml.safe_load's data for every bundled YAML file and refuses what
safe_load refuses."""

from __future__ import annotations

import copy
import dataclasses
import functools
import operator
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.rubric import Rubric
from evalgate.yamlsafe import (
    Constraint,
    Invalid,
    NotPlain,
    Refused,
    SafeLoader,
    TextDatesLoader,
    built,
    guarded_load,
    nests_deeper,
    read_regular_file,
    safe_load,
    validated,
)

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


# ---------------------------------------------------------------------------------------------
# TextDatesLoader's faster hooks against the plain loader they stand for

_PLAIN_SCALARS = [
    "title",
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "~",
    "null",
    "Null",
    "",
    "true",
    "False",
    "1_000",
    "0x1F",
    "0o17",
    "0b101",
    "-12",
    "+3",
    "1e3",
    "1.5",
    ".inf",
    "-.Inf",
    ".NaN",
    "190:20:30",
    "2026-02-28",
    "2026-02-30",
    "2026-02-28T09:06:25+00:00",
    "=",
    "<<",
    "medium",
    "a b",
    "é",
    "0",
    "00",
    "1.",
]
_TAGGED = [
    "!!str 3",
    "!!int '7'",
    "!!float 1",
    "!!bool yes",
    "!!null ''",
    "!!timestamp 2026-02-28",
    "!!binary aGk=",
    "!!str [a]",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "!!python/name:os.system",
]


def _scalar() -> st.SearchStrategy[str]:
    plain = st.sampled_from(_PLAIN_SCALARS)
    return st.one_of(
        plain,
        plain.map(lambda s: f"'{s}'"),
        plain.map(lambda s: f'"{s}"'),
        st.sampled_from(_TAGGED),
        st.text(st.sampled_from("ab1-.:#&*!|>{}[],'\" \ne"), max_size=8),
    )


def _value(depth: int) -> st.SearchStrategy[str]:
    scalar = _scalar()
    if depth == 0:
        return scalar
    inner = _value(depth - 1)
    return st.one_of(
        scalar,
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(_scalar(), inner), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        ),
    )


_front_matter = st.lists(
    st.tuples(
        st.sampled_from(["", "&a ", "&b "]),
        _scalar(),
        st.one_of(_value(2), st.sampled_from(["*a", "*b", "&a x", "&a [*a]", "<<: *a"])),
    ),
    max_size=6,
).map(lambda rows: "\n".join(f"{anchor}{key}: {value}" for anchor, key, value in rows))


class _PlainTextDates(SafeLoader):  # type: ignore[misc,valid-type]
    """TextDatesLoader without its faster hooks: the form it must equal."""

    yaml_implicit_resolvers = TextDatesLoader.yaml_implicit_resolvers


def _outcome(loader: type, text: str) -> tuple[str, str]:
    try:
        return "data", repr(yaml.load(text, Loader=loader))  # repr tells 1, 1.0 and True apart
    except yaml.YAMLError as exc:
        return type(exc).__name__, str(exc)
    except (ValueError, OverflowError, RecursionError, TypeError) as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_front_matter, st.text(max_size=40)), min_size=1, max_size=3))
def test_text_dates_loader_gives_the_plain_loaders_data_and_errors(texts: list[str]) -> None:
    # several loads in a row: a tag remembered from one text answers the next
    for text in texts:
        assert _outcome(TextDatesLoader, text) == _outcome(_PlainTextDates, text)


def test_text_dates_loaders_hooks_stand_for_safe_loaders() -> None:
    # the shortcuts are exact only while these hold
    assert TextDatesLoader.yaml_path_resolvers == {}
    assert TextDatesLoader.yaml_constructors["tag:yaml.org,2002:str"] is yaml.SafeLoader.construct_yaml_str
    loaded = safe_load("a: 2026-02-28\nb: yes\nc: '1'\n", dates=False)
    assert loaded == {"a": "2026-02-28", "b": True, "c": "1"}


# ---------------------------------------------------------------------------------------------
# The nesting cap and the file reader for YAML a user controls


def _exact_depth(text: str) -> int:
    """Collections' nesting, counted from the pure-Python parser's events."""
    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            depth -= 1
    return deepest


_nested = st.recursive(
    st.one_of(st.integers(0, 9), st.sampled_from(["a", "b c", "[x]", "- y", "k: v", "{z}"])),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c-d", "? e"]), inner, min_size=1, max_size=3)
    ),
    max_leaves=60,
)


@settings(max_examples=300, deadline=None)
@given(
    data=_nested,
    flow=st.sampled_from([True, False, None]),
    indent=st.integers(2, 9),
    compact=st.integers(0, 30),
    limit=st.integers(0, 40),
)
def test_nests_deeper_equals_the_exact_depth_past_the_limit(
    data: object, flow: bool | None, indent: int, compact: int, limit: int
) -> None:
    text = yaml.safe_dump({"root": data}, default_flow_style=flow, indent=indent)
    if compact and not text.startswith("{"):  # compact block sequences: a level per `- ` on one line
        text += "more:\n" + "  " + "- " * compact + "leaf\n"
    assert nests_deeper(text, limit) == (_exact_depth(text) > limit)


@pytest.mark.parametrize(
    "text",
    [
        "- " * 100_000 + "x\n",  # block: no bracket at all
        "[" * 100_000 + "]" * 100_000 + "\n",
        "a:\n" + "".join(" " * i + "- \n" for i in range(1, 30_000, 3)),
    ],
    ids=["compact-block", "flow", "indented-block"],
)
def test_deep_yaml_is_refused_before_libyaml_composes_it(text: str) -> None:
    with pytest.raises(Refused, match="nests deeper than 64 levels"):
        guarded_load(text)


def test_block_nesting_in_front_matter_is_refused_not_a_crash(tmp_path: Path) -> None:
    # 30,000 levels of `- ` fit the 64 KB front-matter cap and overflow libyaml's composer; a
    # subprocess, so the old crash shows as a failed test instead of killing the test run
    item = tmp_path / "item.md"
    item.write_text("---\ntags:\n  " + "- " * 30_000 + "x\n---\n# Title\n", encoding="utf-8")
    code = (
        "import sys\nfrom evalgate.document import read_document, front_matter_warning\n"
        "print(front_matter_warning(read_document(sys.argv[1])))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(item)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    assert "front matter nests deeper than 64 levels" in proc.stdout


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: Path("/dev/zero"), "not a regular file (a character device)"),
        (lambda p: (os.mkfifo(p / "fifo"), p / "fifo")[1], "not a regular file (a FIFO)"),
        (lambda p: p, "not a regular file (a directory)"),
        (lambda p: (p / "big.yml").write_bytes(b"#" * 2049) and p / "big.yml", "larger than 2048 bytes"),
    ],
    ids=["device", "fifo", "directory", "too-large"],
)
def test_read_regular_file_refuses_before_reading(
    tmp_path: Path, make: Callable[[Path], Path], reason: str
) -> None:
    with pytest.raises(Refused) as refused:
        read_regular_file(make(tmp_path), limit=2048)
    assert str(refused.value) == reason


def test_read_regular_file_caps_a_file_whose_size_stat_does_not_tell() -> None:
    # /proc files report st_size 0: the cap is also applied to what is read
    assert len(read_regular_file("/proc/self/status", limit=1 << 16)) > 0
    with pytest.raises(Refused, match="larger than 16 bytes"):
        read_regular_file("/proc/self/status", limit=16)


# ---------------------------------------------------------------------------------------------
# Building evalgate's types without pydantic (`built`): the shipped packs load this way

_PACKS = sorted((Path(__file__).resolve().parent.parent / "evalgate" / "rubrics").glob("*.yml"))
# What a mutation puts in place of a value: other types, numbers a bound refuses, texts a pattern
# refuses, a line break that only Python's `$` lets through, NaN, empty collections.
_ODD_VALUES = st.sampled_from(
    [None, True, False, 0, 1, -1, 3, 4, 5, 6, 2.5, 4.0, float("nan"), float("inf"), "", "x", "5", "4.0",
     "Bad Id", "ok_id", "ok_id\n", "mean", "judge", "deterministic", "table", "yes", [], ["x"], {},
     {"title": "T"}, {"min": 1, "max": 5}]
)  # fmt: skip


def _paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*path, index))
    return found


def _mutated(data: Any, draw: Any) -> Any:
    data = copy.deepcopy(data)
    path = draw(st.sampled_from(_paths(data)))
    if not path:
        return data
    parent = functools.reduce(operator.getitem, path[:-1], data)
    how = draw(st.sampled_from(["replace", "drop", "add key", "copy"]))
    if how == "replace":
        parent[path[-1]] = draw(_ODD_VALUES)
    elif how == "drop":
        del parent[path[-1]]
    elif how == "add key" and isinstance(parent, dict):
        parent[draw(st.sampled_from(["extra", "id", "kind", "params", "min_words", "title"]))] = draw(
            _ODD_VALUES
        )
    elif how == "copy" and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[path[-1]]))
    return data


@settings(max_examples=400, deadline=None)
@given(pack=st.sampled_from(_PACKS), mutations=st.integers(0, 3), draw=st.data())
def test_built_gives_what_pydantic_gives_or_leaves_it_to_pydantic(
    pack: Path, mutations: int, draw: st.DataObject
) -> None:
    # Never accepted where pydantic refuses, never a different object (repr tells 4 from 4.0); a pack
    # as shipped is always built.
    data = yaml.safe_load(pack.read_text(encoding="utf-8"))
    for _ in range(mutations):
        data = _mutated(data, draw.draw)
    try:
        expected = repr(validated(Rubric, copy.deepcopy(data)))
    except Invalid:
        expected = "refused"
    try:
        got = repr(built(Rubric, copy.deepcopy(data)))
    except NotPlain:
        assert mutations, f"{pack.name} as shipped is not built plainly"
        return
    assert got == expected


def test_built_refuses_what_it_cannot_decide() -> None:
    with pytest.raises(NotPlain, match="no plain step"):
        built(_WithField, {"n": 3})
    assert built(_Bounded, {"n": 3, "name": "ab"}) == _Bounded(n=3, name="ab")
    for data in ({"n": 0}, {"n": True}, {"n": 3.0}, {"name": "AB"}, {"name": "ab\n"}, {"m": 1}):
        with pytest.raises(NotPlain):
            built(_Bounded, data)


@dataclasses.dataclass(frozen=True)
class _Bounded:
    n: Annotated[int, Constraint(ge=1)] = 1
    name: Annotated[str, Constraint(pattern=r"^[a-z]+$")] = "a"


@dataclasses.dataclass(frozen=True)
class _WithField:
    n: Annotated[int, object()] = 1
