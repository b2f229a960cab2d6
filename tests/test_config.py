"""`.evalgate.yml` is one strict model: typos are errors naming the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.config import Config, ConfigError, config_json_schema, load_config
from evalgate.yamlsafe import Invalid, validated


def test_defaults_without_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    c = load_config(None)
    assert c == Config()
    assert c.paths == "Research/completed/**/*.md"


def test_reads_default_file_with_hyphen_keys(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".evalgate.yml").write_text(
        "rubric: research-loop\njudges: [copilot]\ncache-dir: .c\njobs: 8\n"
    )
    c = load_config(None)
    assert c.judges == ("copilot",) and c.cache_dir == ".c" and c.jobs == 8


def test_typo_is_an_error_naming_key_and_file(tmp_path):
    p = tmp_path / "cfg.yml"
    p.write_text("rubrc: research-loop\n")
    with pytest.raises(ConfigError) as err:
        load_config(p)
    assert "cfg.yml" in str(err.value) and "rubrc: unknown key" in str(err.value)


def test_bad_value_is_an_error(tmp_path):
    p = tmp_path / "cfg.yml"
    p.write_text("jobs: 0\n")
    with pytest.raises(ConfigError, match="jobs"):
        load_config(p)


def test_named_file_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yml", required=True)


def test_overrides_win_and_are_validated():
    c = Config().with_overrides(seed=7, jobs=None)
    assert c.seed == 7 and c.jobs == 4
    with pytest.raises(ConfigError):
        Config().with_overrides(shard="x")


def test_schema_uses_hyphenated_keys():
    assert "cache-dir" in config_json_schema()["properties"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("acronyms:\n  understood: GPU\n", "acronyms.understood: Input should be a list"),
        ("acronyms: null\n", "acronyms: Input should be a mapping"),
        ("acronyms: [GPU]\n", "acronyms: Input should be a mapping"),
    ],
)
def test_type_errors_speak_yaml_not_python(tmp_path, text, expected):
    # pydantic says "a valid tuple" and "a valid dictionary or instance of Acronyms": a YAML author
    # wrote neither a tuple nor knows the class
    cfg = tmp_path / ".evalgate.yml"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(cfg)
    assert expected in str(caught.value) and str(cfg) in str(caught.value)
    assert "tuple" not in str(caught.value) and "instance of" not in str(caught.value)


# Options argparse already typed skip pydantic when they are certainly valid; the pre-screen must never
# let through what pydantic would refuse (and what it refuses still gets pydantic's own words).
@settings(max_examples=300, deadline=None)
@given(
    jobs=st.integers(min_value=-(2**70), max_value=2**70),
    timeout=st.floats(allow_nan=True, allow_infinity=True),
)
def test_options_skip_the_validator_only_when_it_would_accept_them(jobs: int, timeout: float) -> None:
    for key, value in (("jobs", jobs), ("judge_timeout", timeout)):
        try:
            expected: Config | str = validated(Config, {key: value})
        except Invalid:
            expected = "refused"
        try:
            got: Config | str = Config().with_overrides(**{key: value})
        except ConfigError:
            got = "refused"
        assert repr(got) == repr(expected), (key, value)


def test_an_option_in_bounds_does_not_import_pydantic(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from evalgate.config import Config\n"
        "c = Config().with_overrides(jobs=8, judge_timeout=30.0, seed=3)\n"
        "print(c.jobs, c.judge_timeout, 'pydantic' in sys.modules)\n"
        "try:\n"
        "    Config().with_overrides(jobs=65)\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, 'pydantic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.split("\n")[:2] == ["8 30.0 False", "ConfigError True"]
