"""Rubrics are data: a YAML file loaded into pydantic models that forbid unknown keys.

A rubric names its dimensions (deterministic checks or judged), the 1-5 anchors a judge or a reader
uses to interpret a score, which dimensions are hard fails, and the policy the gate applies. Its
version is a hash of its canonical content, so every recorded result says which rubric produced it.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evalgate.yamlsafe import safe_load

PACKS_PACKAGE = "evalgate.rubrics"


class RubricError(Exception):
    """A rubric could not be found or does not validate; the message names the file and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Scale(_Strict):
    min: int = 1
    max: int = 5

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if self.min >= self.max:
            raise ValueError(f"scale min ({self.min}) must be below max ({self.max})")
        return self


class Example(_Strict):
    """A worked example for a binary criterion: an input excerpt and whether it meets the criterion."""

    text: str
    meets: bool
    why: str


class Dimension(_Strict):
    """One thing the rubric measures."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: Literal["deterministic", "judge"]
    title: str
    description: str
    hard_fail: bool = False
    anchors: dict[int, str] = Field(default_factory=dict)
    # binary criteria (score 1 = not met, scale max = met) carry worked examples
    examples: tuple[Example, ...] = ()
    # a judged dimension may also be computed mechanically by this deterministic check id
    mechanical: str | None = None


class Bands(_Strict):
    """Named bands over the (ensemble) mean, checked from the top: the first whose floor is met."""

    floors: dict[str, float]


class Ensemble(_Strict):
    """How several judges' scores combine (used only when more than one judge is configured)."""

    aggregation: Literal["mean", "median"] = "mean"
    strict_pass_judges: int | None = None  # at least this many judges' means ...
    strict_pass_mean: float | None = None  # ... are >= this
    critical_fail_below: float | None = None  # a majority of judges' means below this is critical
    fail_judges: int | None = Field(default=None, ge=1)  # trio FAIL: at least this many judges' means ...
    fail_below: float | None = None  # ... are below this
    on_judge_error: Literal["fail", "exclude"] = "fail"
    quorum: int = 1

    @model_validator(mode="after")
    def _fail_rule_whole(self) -> Ensemble:
        if (self.fail_judges is None) != (self.fail_below is None):
            raise ValueError("fail_judges and fail_below go together: give both or neither")
        return self


class Policy(_Strict):
    """The gate's rules. A judge's own OVERALL claim is never part of them."""

    fail_on_score: int | None = 1  # any dimension at or below this fails the file
    min_each: int | None = 3  # every scored dimension must reach this
    min_mean: float | None = 4.0  # the mean over scored dimensions must reach this
    hard_fail_below: int = 3  # a hard-fail dimension scoring below this fails the file outright
    bands: Bands | None = None
    ensemble: Ensemble = Ensemble()


class Judging(_Strict):
    """How judged dimensions are asked for."""

    template: str = "likert-table.md.j2"
    reply: Literal["table", "json"] = "table"
    instructions: str = ""


class InputPart(_Strict):
    """One named part of a structured input item (e.g. `persona`, `materials`, `response`)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = ""
    required: bool = True


class Inputs(_Strict):
    """Rubrics whose inputs are not research markdown: each input file is a YAML mapping with these
    named parts. Only these parts reach the judge, so any other key in the file (labels, the model or
    configuration that produced the response) stays hidden from it."""

    format: Literal["yaml"] = "yaml"
    parts: tuple[InputPart, ...]


class Rubric(_Strict):
    """A loaded, validated rubric."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    description: str = ""
    scale: Scale = Scale()
    dimensions: tuple[Dimension, ...]
    policy: Policy = Policy()
    judging: Judging = Judging()
    inputs: Inputs | None = None

    @field_validator("dimensions")
    @classmethod
    def _unique_ids(cls, dims: tuple[Dimension, ...]) -> tuple[Dimension, ...]:
        seen: set[str] = set()
        for d in dims:
            if d.id in seen:
                raise ValueError(f"duplicate dimension id {d.id!r}")
            seen.add(d.id)
        if not dims:
            raise ValueError("a rubric needs at least one dimension")
        return dims

    @model_validator(mode="after")
    def _anchors_on_scale(self) -> Rubric:
        for d in self.dimensions:
            bad = [k for k in d.anchors if not self.scale.min <= k <= self.scale.max]
            if bad:
                raise ValueError(f"dimension {d.id!r}: anchor keys {bad} are outside the scale")
        return self

    @property
    def version(self) -> str:
        """A short hash of the canonical content: any change to the rubric changes it."""
        # `inputs` is left out when absent so rubrics written before it existed keep their version.
        exclude = {"inputs"} if self.inputs is None else None
        dumped = self.model_dump(mode="json", exclude=exclude)
        canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    def dimension(self, dimension_id: str) -> Dimension:
        for d in self.dimensions:
            if d.id == dimension_id:
                return d
        raise KeyError(dimension_id)

    @property
    def judged(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if d.kind == "judge")

    @property
    def deterministic(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if d.kind == "deterministic")


def pack_names() -> list[str]:
    """The rubric packs shipped with evalgate."""
    return sorted(
        p.name.removesuffix(".yml")
        for p in resources.files(PACKS_PACKAGE).iterdir()
        if p.name.endswith(".yml")
    )


def _format_validation(err: ValidationError, source: str) -> str:
    lines = [f"{source}: invalid rubric"]
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        lines.append(f"  {where}: {e['msg']}")
    return "\n".join(lines)


def parse_rubric(text: str, source: str) -> Rubric:
    """Validate rubric YAML text; `source` names it in error messages."""
    try:
        raw = safe_load(text)
    except yaml.YAMLError as exc:
        raise RubricError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise RubricError(f"{source}: a rubric must be a mapping at the top level")
    try:
        return Rubric.model_validate(raw)
    except ValidationError as exc:
        raise RubricError(_format_validation(exc, source)) from None


def load_rubric(name_or_path: str) -> Rubric:
    """Load a shipped pack by name (e.g. ``research-loop``) or any rubric YAML by path."""
    path = Path(name_or_path)
    if name_or_path.endswith((".yml", ".yaml")) or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RubricError(f"{name_or_path}: cannot read rubric: {exc.strerror}") from None
        return parse_rubric(text, str(path))
    if name_or_path not in pack_names():
        raise RubricError(
            f"unknown rubric {name_or_path!r}: give a YAML path or one of {', '.join(pack_names())}"
        )
    text = (resources.files(PACKS_PACKAGE) / f"{name_or_path}.yml").read_text(encoding="utf-8")
    return parse_rubric(text, f"rubric pack {name_or_path}")


def rubric_json_schema() -> dict[str, object]:
    """The JSON schema users can validate their own rubric files against."""
    return Rubric.model_json_schema()
