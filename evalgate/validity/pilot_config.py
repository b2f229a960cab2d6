"""The pilot's configuration: tasks, cells, labelled judges and named hypotheses, as one pydantic model.

A config that cannot run (unknown keys, a hypothesis naming a cell that does not exist, no
hypotheses and cells not named A-D, two judges with one label) is a `PilotError` naming the file and
key: the only case where `evalgate pilot` exits 2. Everything a run finds later (a missing response,
an errored judge, fewer tasks than the hypotheses need) is recorded in the outputs instead.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evalgate.yamlsafe import safe_load, yaml_words

LABEL = r"^[a-z0-9][a-z0-9_]*$"
IDENT = r"^[A-Za-z0-9_-]+$"


class PilotError(Exception):
    """A pilot configuration is unusable; the message names the file (and key)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Cell(_Strict):
    """One arm of the experiment: a model under a configuration."""

    id: str = Field(pattern=IDENT)
    model: str
    configuration: str


class Task(_Strict):
    """One task: a YAML item with the rubric's parts except the response."""

    id: str = Field(pattern=IDENT)
    item: str  # path, relative to the config file


class ModelPrice(_Strict):
    """US dollars per million tokens, as `prices:` in .evalgate.yml."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


class JudgeRef(_Strict):
    """A judge backend and the label its record key is made of (`judge_<label>`)."""

    spec: str
    label: str | None = Field(default=None, pattern=LABEL)


class Hypothesis(_Strict):
    """`higher` is expected to beat `lower` in a task's trio means.

    The directional pass is `delta > 0` without `min_delta`, and `delta >= min_delta` with one, so
    the protocol's H4 ("D >= A") is `min_delta: 0.0`. The summary's keys are `<id>_delta_<name>` and
    `<id>_directional_pass`, per task, and `<id>_pass_count` in the aggregate.
    """

    id: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    higher: str
    lower: str
    min_delta: float | None = None


# The protocol's hypotheses over cells A (model 1 solo), B (model 1 + harness), C (model 2 solo),
# D (model 2 + harness); used when cells are named A-D and the config lists none.
PROTOCOL_HYPOTHESES = (
    Hypothesis(id="h2", name="opus", higher="B", lower="A", min_delta=0.30),
    Hypothesis(id="h3", name="qwen", higher="D", lower="C", min_delta=0.30),
    Hypothesis(id="h4", name="sovereignty", higher="D", lower="A", min_delta=0.0),
)


class PilotConfig(_Strict):
    """The pilot's shape; file paths are relative to the config file."""

    pilot_id: str | None = None  # default: the config file's name without its suffix
    rubric: str = "knowledge-work"
    judges: tuple[str | JudgeRef, ...] = ()
    seed: int = 0
    jobs: int = Field(default=4, ge=1)
    tasks: tuple[Task, ...] = Field(min_length=1)
    cells: tuple[Cell, ...] = Field(min_length=2)
    responses: str = "responses/{task_id}/{cell_id}.md"
    metrics: str | None = "responses/{task_id}/{cell_id}.json"  # optional per-file latency/tokens/cost
    hypotheses: tuple[Hypothesis, ...] | None = None  # default: PROTOCOL_HYPOTHESES for cells A-D
    min_tasks: int = Field(default=2, ge=1)  # a hypothesis passes when right in this many tasks
    output: str = "pilot-out"
    manifest_anchor: str | None = None  # default: sha256 over the config and every response
    # judge models' prices, dollars per million tokens: judge calls then have a cost (else unknown)
    prices: dict[str, ModelPrice] = Field(default_factory=dict)

    @field_validator("responses", "metrics")
    @classmethod
    def _path_template(cls, value: str | None) -> str | None:
        """Only `{task_id}` and `{cell_id}` may be filled in: anything else (`{task}`, `{0}`, an
        unclosed brace, `{task_id.__class__}`, a format spec) is refused here, not at run time."""
        try:
            fields = [(n, s, c) for _, n, s, c in string.Formatter().parse(value or "") if n is not None]
        except ValueError as exc:
            raise ValueError(f"not a path template ({exc})") from None
        for name, spec, conversion in fields:
            if name not in ("task_id", "cell_id") or spec or conversion:
                shown = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
                raise ValueError(f"{{{shown}}}: the only placeholders are {{task_id}} and {{cell_id}}")
        return value

    @property
    def hypothesis_set(self) -> tuple[Hypothesis, ...]:
        return PROTOCOL_HYPOTHESES if self.hypotheses is None else self.hypotheses


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {yaml_words(e['msg'])}" for e in exc.errors())


def _duplicates(values: list[str]) -> list[str]:
    return sorted({v for v in values if values.count(v) > 1})


def load_pilot_config(path: Path) -> PilotConfig:
    """Load and validate a pilot config (PilotError with the file and key on any problem)."""
    try:
        raw = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PilotError(f"{path}: cannot load pilot config: {exc}") from None
    if not isinstance(raw, dict):
        raise PilotError(f"{path}: a pilot config must be a mapping at the top level")
    try:
        config = PilotConfig.model_validate(raw)
    except ValidationError as exc:
        raise PilotError(f"{path}: invalid pilot config: {_problems(exc)}") from None
    cell_ids = [c.id for c in config.cells]
    for key, values in (
        ("tasks", [t.id for t in config.tasks]),
        ("cells", cell_ids),
        ("hypotheses", [h.id for h in config.hypothesis_set]),
    ):
        if _duplicates(values):
            raise PilotError(f"{path}: {key}: duplicate id {', '.join(_duplicates(values))}")
    if config.hypotheses is None and sorted(cell_ids) != ["A", "B", "C", "D"]:
        raise PilotError(
            f"{path}: hypotheses: none given, and the protocol's defaults (h2 B-A, h3 D-C, h4 D-A) "
            f"need cells named A-D (cells are {', '.join(cell_ids)})"
        )
    if not config.hypothesis_set:
        raise PilotError(f"{path}: hypotheses: at least one is needed for a verdict")
    for h in config.hypothesis_set:
        if not {h.higher, h.lower} <= set(cell_ids):
            raise PilotError(
                f"{path}: hypotheses: {h.id} names a cell not in cells ({', '.join(sorted(cell_ids))})"
            )
    return config


def derived_label(model: str) -> str:
    """A record label from a model name: `claude-opus-4.7` -> `claude_opus_4_7`, a path's last part."""
    stem = model.rstrip("/").rsplit("/", 1)[-1].lower()
    return re.sub(r"[^a-z0-9]+", "_", stem).strip("_") or "judge"


def judge_labels(refs: list[JudgeRef], models: list[str], source: Path) -> list[str]:
    """Each judge's label: its own, else derived from its model and made unique with `_2`, `_3`...

    Two judges given the same label are a config error (their records would overwrite each other).
    """
    given = [r.label for r in refs if r.label]
    if _duplicates(given):
        raise PilotError(f"{source}: judges: duplicate label {', '.join(_duplicates(given))}")
    taken = set(given)
    labels = []
    for ref, model in zip(refs, models, strict=True):
        if ref.label:
            labels.append(ref.label)
            continue
        base = label = derived_label(model)
        n = 1
        while label in taken:
            n += 1
            label = f"{base}_{n}"
        taken.add(label)
        labels.append(label)
    return labels


def judge_refs(config: PilotConfig, overrides: list[str] | None) -> list[JudgeRef]:
    """The judges to run: `--judge` specs (labels derived) when given, else the config's `judges:`."""
    if overrides:
        return [JudgeRef(spec=s) for s in overrides]
    return [j if isinstance(j, JudgeRef) else JudgeRef(spec=j) for j in config.judges]
