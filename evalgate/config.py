"""One pydantic Config for a run: `.evalgate.yml` merged with command-line options or action inputs.

Unknown keys are errors that name the key and the file (extra="forbid"), so a typo in `.evalgate.yml`
never silently falls back to a default. Keys may be written with hyphens or underscores.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalgate.yamlsafe import safe_load, yaml_words

DEFAULT_CONFIG_FILE = ".evalgate.yml"
DEFAULT_PATHS = "Research/completed/**/*.md"


class ConfigError(Exception):
    """The configuration is unusable; the message says which file and key."""


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class _Strict(BaseModel):
    # defer_build: the validator is built at the first validation, not at import. A run with no
    # configuration file and only options of the right type never validates (see `with_overrides`).
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=_kebab, populate_by_name=True, defer_build=True
    )


class Price(_Strict):
    """US dollars per million tokens, for cost accounting."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


class Acronyms(_Strict):
    """The repository's acronym glossary for the acronym_expansion check (docs/checks.md)."""

    understood: tuple[str, ...] = ()  # accepted unexpanded (GPU, if every reader knows it)
    expansions: dict[str, str] = Field(default_factory=dict)  # ABBR: Expansion, suggested in findings
    glossary: str | None = None  # a YAML file with expansions: and understood: (relative to the cwd)


class Config(_Strict):
    """Everything a run needs to know, from any source."""

    rubric: str = "research-loop"
    paths: str = DEFAULT_PATHS
    judges: tuple[str, ...] = ()
    seed: int = 0
    jobs: int = Field(default=4, ge=1, le=64)
    cache: bool = True
    cache_dir: str = ".evalgate-cache"
    record_dir: str | None = None
    on_judge_error: Literal["fail", "skip"] = "fail"
    judge_timeout: float = Field(default=600.0, gt=0)
    max_file_mb: float = Field(default=5.0, gt=0)
    prices: dict[str, Price] = Field(default_factory=dict)
    root: str | None = None  # files must resolve inside this directory (default: the git top level or cwd)
    shard: str | None = Field(default=None, pattern=r"^\d+/\d+$")
    history: str | None = None
    history_keep: int = Field(default=1000, ge=1)  # records the action keeps on its history branch (< 1 MB)
    generator_model: str | None = None  # the model that wrote the documents, if known (judge != generator)
    acronyms: Acronyms = Acronyms()

    def with_overrides(self, **overrides: Any) -> Config:
        """A copy with the given (non-None) options replacing file values; validated again unless
        every one is of a field without constraints and already of its type (argparse typed it)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if all(_plain(k, v) for k, v in given.items()):
            return self.model_copy(update=given)
        data = self.model_dump()
        data.update(given)
        try:
            return Config.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_format(exc, "options")) from None


# Fields without constraints and the one type each takes: a value of that exact type needs no validator.
_PLAIN_FIELDS: dict[str, type] = {
    "rubric": str,
    "paths": str,
    "judges": tuple,
    "seed": int,
    "cache": bool,
    "cache_dir": str,
    "record_dir": str,
    "root": str,
    "history": str,
}


def _plain(key: str, value: Any) -> bool:
    kind = _PLAIN_FIELDS.get(key)
    if isinstance(value, tuple):
        return kind is tuple and all(type(v) is str for v in value)
    return kind is not None and type(value) is kind


def default_config() -> Config:
    """`Config()` without building its validator: the defaults are valid by construction."""
    return Config.model_construct()


def _format(err: ValidationError, source: str) -> str:
    lines = [f"{source}: invalid configuration"]
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = "unknown key" if e["type"] == "extra_forbidden" else yaml_words(e["msg"])
        lines.append(f"  {where}: {msg}")
    return "\n".join(lines)


def load_config(path: str | Path | None, *, required: bool = False) -> Config:
    """Load `path` (or `.evalgate.yml` in the working directory if present); defaults otherwise."""
    if path is None:
        candidate = Path(DEFAULT_CONFIG_FILE)
        if not candidate.is_file():
            return default_config()
        path = candidate
        required = True
    p = Path(path)
    if not p.is_file():
        if required:
            raise ConfigError(f"{p}: configuration file not found")
        return Config()
    return parse_config(_read_text(p, "configuration"), str(p))


def parse_config(text: str, source: str) -> Config:
    """Validate configuration YAML text (from a file, or from a commit's objects); `source` names it
    in error messages."""
    raw = _load_yaml(text, source)
    if raw is None:
        return Config()
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the configuration must be a mapping of keys to values")
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_format(exc, source)) from None


def read_yaml(p: Path, what: str) -> Any:
    """A YAML file's data, or a ConfigError naming the file (`what` says what it is)."""
    return _load_yaml(_read_text(p, what), str(p))


def _read_text(p: Path, what: str) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError(f"{p}: cannot read {what}: {reason}") from None


def _load_yaml(text: str, source: str) -> Any:
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None


def config_json_schema() -> dict[str, Any]:
    """The published JSON schema of `.evalgate.yml`."""
    return Config.model_json_schema(by_alias=True)


# ---------------------------------------------------------------------------------------------
# The command line's face of the configuration


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The options every command that runs an evaluation takes (check, calibrate, canary)."""
    from evalgate.rubric import pack_names

    p.add_argument("--rubric", help=f"rubric pack name ({', '.join(pack_names())}) or a YAML path")
    p.add_argument(
        "--judge",
        action="append",
        metavar="SPEC",
        help="judge backend: none, copilot[:MODEL], openai:MODEL, command:CMD, replay:DIR (repeatable)",
    )
    p.add_argument("--config", help="configuration file (default: .evalgate.yml if present)")
    p.add_argument("--seed", type=int, help="seed for the judge prompt's dimension order (recorded)")
    p.add_argument("--jobs", type=int, help="judge calls kept in flight (default 4)")
    p.add_argument("--cache-dir", help="judge reply cache directory (default .evalgate-cache/)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the judge reply cache")
    p.add_argument("--record", metavar="DIR", help="record every judge reply into DIR for replay:DIR")
    p.add_argument("--on-judge-error", choices=("fail", "skip"), help="a judge that errored fails the file")
    p.add_argument("--judge-timeout", type=float, help="seconds per judge call (default 600)")
    p.add_argument("--shard", metavar="I/N", help="evaluate only shard I of N (stable partition by path)")
    p.add_argument("--root", help="files reached through symlinks must stay inside this directory")
    p.add_argument("--history", metavar="FILE", help="append per-file records to this JSONL history")


def config_from_args(args: argparse.Namespace, loaded: Config | None = None) -> Config:
    """The configuration file (or `loaded`, a configuration already read from elsewhere, such as a
    base commit), then command-line options over it."""
    if loaded is None:
        loaded = load_config(
            getattr(args, "config", None), required=getattr(args, "config", None) is not None
        )
    config = loaded
    judges = None
    if getattr(args, "judge", None):
        specs = [j for j in args.judge if j.strip().lower() != "none"]
        judges = tuple(specs)
    return config.with_overrides(
        rubric=getattr(args, "rubric", None),
        judges=judges,
        seed=getattr(args, "seed", None),
        jobs=getattr(args, "jobs", None),
        cache_dir=getattr(args, "cache_dir", None),
        cache=False if getattr(args, "no_cache", False) else None,
        record_dir=getattr(args, "record", None),
        on_judge_error=getattr(args, "on_judge_error", None),
        judge_timeout=getattr(args, "judge_timeout", None),
        shard=getattr(args, "shard", None),
        root=getattr(args, "root", None),
        history=getattr(args, "history", None),
    )
