"""One Config for a run: `.evalgate.yml` merged with command-line options or action inputs.

Unknown keys are errors that name the key and the file (extra="forbid"), so a typo in `.evalgate.yml`
never silently falls back to a default. Keys may be written with hyphens or underscores. Config is a
frozen dataclass that pydantic validates whenever a file or an option needs it; a run with no
configuration file and only options of the right type validates nothing, so it never imports pydantic.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import yaml

from evalgate.rubric import CalibrationFloors
from evalgate.yamlsafe import (
    Constraint,
    Invalid,
    Refused,
    error_words,
    guarded_load,
    json_schema,
    read_text_file,
    refusal_reason,
    validated,
)

DEFAULT_CONFIG_FILE = ".evalgate.yml"
DEFAULT_PATHS = "Research/completed/**/*.md"


JOBS = Constraint(ge=1, le=64)
POSITIVE = Constraint(gt=0)


class ConfigError(Exception):
    """The configuration is unusable; the message says which file and key."""


def yaml_key(name: str) -> str:
    """How a field is written in `.evalgate.yml` (`cache_dir` as `cache-dir`; both are read)."""
    return name.replace("_", "-")


# pydantic's configuration of every configuration type: `cache-dir` and `cache_dir` both name cache_dir
_STRICT: dict[str, Any] = {"extra": "forbid", "alias_generator": yaml_key, "populate_by_name": True}


@dataclass(frozen=True, kw_only=True)
class Price:
    """US dollars per million tokens, for cost accounting."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    input: Annotated[float, Constraint(ge=0)]
    output: Annotated[float, Constraint(ge=0)]


@dataclass(frozen=True, kw_only=True)
class Acronyms:
    """The repository's acronym glossary for the acronym_expansion check (docs/checks.md)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    understood: tuple[str, ...] = ()  # accepted unexpanded (GPU, if every reader knows it)
    expansions: dict[str, str] = field(default_factory=dict)  # ABBR: Expansion, suggested in findings
    glossary: str | None = None  # a YAML file with expansions: and understood: (relative to the cwd)


FrontMatterValue = str | tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Select:
    """Which documents a run evaluates among those it finds (docs/action.md, "The review workflow"):
    `front-matter` maps a key to the value (or values) it must have, `status: reviewing`. A document
    whose front matter says otherwise is reported as not evaluated, with the reason; a file named on
    its own (a command-line file, the action's `files` input) is evaluated whatever it says."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    front_matter: dict[str, FrontMatterValue] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class RunBudgetLimits:
    """`budget:` judging stops when the run has made this many judge calls or spent these dollars
    (docs/action.md, "Cost and time"); `on-budget` says whether the documents left unjudged fail it."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    calls: Annotated[int, Constraint(ge=1)] | None = None
    usd: Annotated[float, POSITIVE] | None = None

    def __post_init__(self) -> None:
        if self.calls is None and self.usd is None:
            raise ValueError("budget: give `calls`, `usd` or both")


@dataclass(frozen=True, kw_only=True)
class DocumentBudgets:
    """`budgets:` what one document may take: seconds (its structural pass and judge calls) and
    dollars (its judge calls at `prices:`, plus its seconds at `runner-usd-per-minute` when given).
    A document over either is flagged; with `over-budget: fail` it also fails."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    seconds_per_document: Annotated[float, POSITIVE] | None = None
    usd_per_document: Annotated[float, POSITIVE] | None = None
    runner_usd_per_minute: Annotated[float, Constraint(ge=0)] | None = None
    over_budget: Literal["warn", "fail"] = "warn"


@dataclass(frozen=True, kw_only=True)
class Config:
    """Everything a run needs to know, from any source."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    rubric: str = "research-loop"
    paths: str = DEFAULT_PATHS
    judges: tuple[str, ...] = ()
    seed: int = 0
    jobs: Annotated[int, JOBS] = 4
    cache: bool = True
    cache_dir: str = ".evalgate-cache"
    record_dir: str | None = None
    on_judge_error: Literal["fail", "skip"] = "fail"
    # which findings a verdict counts: `new`, those the change makes (against the base commit); `all`.
    # Unset: `new` on pull_request and merge_group, `all` elsewhere (docs/action.md, "Gate on what
    # the change makes worse")
    gate_on: Literal["new", "all"] | None = None
    judge_timeout: Annotated[float, POSITIVE] = 600.0
    max_file_mb: Annotated[float, Constraint(gt=0)] = 5.0
    # seconds the structural pass may spend on one document before it is stopped and reported as an
    # ERROR naming it (docs/checks.md, "A time budget per document")
    document_timeout: Annotated[float, POSITIVE] = 10.0
    prices: dict[str, Price] = field(default_factory=dict)
    root: str | None = None  # files must resolve inside this directory (default: the git top level or cwd)
    shard: Annotated[str, Constraint(pattern=r"^\d+/\d+$")] | None = None
    history: str | None = None
    # records the action keeps on its history branch (< 1 MB)
    history_keep: Annotated[int, Constraint(ge=1)] = 1000
    generator_model: str | None = None  # the model that wrote the documents, if known (judge != generator)
    acronyms: Acronyms = Acronyms()
    budget: RunBudgetLimits | None = None  # judge calls or dollars per run, then "not judged"
    on_budget: Literal["fail", "skip"] = "fail"  # do documents left unjudged by `budget:` fail the run
    budgets: DocumentBudgets | None = None  # seconds and dollars per document, flagged when passed
    calibration: str | None = None  # a record `evalgate calibrate --record FILE` wrote (relative to the cwd)
    # judged failures fail a file only when `calibration:` is current for the run's rubric, prompt and judges
    require_calibration: bool = False
    calibration_floors: CalibrationFloors | None = None  # replaces the rubric's `calibration:` floors

    def for_measurement(self) -> Config:
        """The configuration a measurement of the judges runs with (calibrate, the canary): every item
        judged, whatever `budget:` says, and no calibration required or cited, no budgets per document."""
        return dataclasses.replace(
            self, budget=None, budgets=None, calibration=None, require_calibration=False
        )

    select: Select = Select()

    def with_overrides(self, **overrides: Any) -> Config:
        """A copy with the given (non-None) options replacing file values; validated again unless
        every one is already of its field's type (argparse typed it) and certainly within its bounds."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if all(_plain(k, v) for k, v in given.items()):
            return dataclasses.replace(self, **given)
        data = dataclasses.asdict(self)
        data.update(given)
        try:
            return validated(Config, data)
        except Invalid as exc:
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
    "calibration": str,
    "require_calibration": bool,
}


# Options with numeric bounds: a value of the exact type within them needs no validator either (a value
# outside goes to pydantic, which rejects it in its words). `--jobs 8` cost every judged run ~0.1 s.
_BOUNDED_FIELDS: dict[str, tuple[type, Constraint]] = {
    "jobs": (int, JOBS),
    "judge_timeout": (float, POSITIVE),
    "document_timeout": (float, POSITIVE),
}


def _plain(key: str, value: Any) -> bool:
    if key in _BOUNDED_FIELDS:
        number, bounds = _BOUNDED_FIELDS[key]
        return type(value) is number and bounds.admits(value)
    kind = _PLAIN_FIELDS.get(key)
    if isinstance(value, tuple):
        return kind is tuple and all(type(v) is str for v in value)
    return kind is not None and type(value) is kind


def default_config() -> Config:
    """`Config()`: the defaults are valid by construction."""
    return Config()


def _format(err: Invalid, source: str) -> str:
    lines = [f"{source}: invalid configuration"]
    for e in err.errors:
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        lines.append(f"  {where}: {error_words(e)}")
    return "\n".join(lines)


def load_config(path: str | Path | None, *, required: bool = False) -> Config:
    """Load `path` (or `.evalgate.yml` in the working directory if present); defaults otherwise."""
    if path is None:
        candidate = Path(DEFAULT_CONFIG_FILE)
        if not candidate.exists():
            return default_config()
        path = candidate
        required = True
    p = Path(path)
    if not p.exists():  # anything else that exists (a directory, a FIFO) is refused by name below
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
        return validated(Config, raw)
    except Invalid as exc:
        raise ConfigError(_format(exc, source)) from None


def read_yaml(p: Path, what: str) -> Any:
    """A YAML file's data, or a ConfigError naming the file (`what` says what it is)."""
    return _load_yaml(_read_text(p, what), str(p))


def _read_text(p: Path, what: str) -> str:
    """A regular file's text, capped in size before it is read (yamlsafe.read_regular_file)."""
    try:
        return read_text_file(p)
    except (OSError, Refused) as exc:
        raise ConfigError(f"{p}: cannot read {what}: {refusal_reason(exc)}") from None


def _load_yaml(text: str, source: str) -> Any:
    try:
        return guarded_load(text)
    except Refused as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None


def config_json_schema() -> dict[str, Any]:
    """The published JSON schema of `.evalgate.yml`."""
    return json_schema(Config, by_alias=True)


# ---------------------------------------------------------------------------------------------
# The command line's face of the configuration


def add_run_options(p: argparse.ArgumentParser, *, record_replies: str = "--record") -> None:
    """The options every command that runs an evaluation takes (check, calibrate, canary);
    `record_replies` names the option that records judge replies (calibrate's `--record` writes its
    calibration record)."""
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
    p.add_argument(
        record_replies, dest="record", metavar="DIR", help="record every judge reply into DIR for replay:DIR"
    )
    p.add_argument("--on-judge-error", choices=("fail", "skip"), help="a judge that errored fails the file")
    p.add_argument("--judge-timeout", type=float, help="seconds per judge call (default 600)")
    p.add_argument(
        "--document-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds the structural pass may spend on one document before it is an ERROR (default 10)",
    )
    p.add_argument("--shard", metavar="I/N", help="evaluate only shard I of N (stable partition by path)")
    p.add_argument("--root", help="files reached through symlinks must stay inside this directory")
    p.add_argument("--history", metavar="FILE", help="append per-file records to this JSONL history")
    p.add_argument(
        "--calibration",
        metavar="FILE",
        help="a calibration record (calibrate --record): reports say whether the judges are calibrated",
    )
    p.add_argument(
        "--require-calibration",
        action="store_true",
        default=None,
        help="judged failures fail a file only when the calibration record is current",
    )


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
        document_timeout=getattr(args, "document_timeout", None),
        shard=getattr(args, "shard", None),
        root=getattr(args, "root", None),
        history=getattr(args, "history", None),
        calibration=getattr(args, "calibration", None),
        require_calibration=getattr(args, "require_calibration", None),
    )
