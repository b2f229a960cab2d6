"""Rubrics are data: a YAML file validated into frozen dataclasses that forbid unknown keys.

A rubric names its dimensions (deterministic checks or judged), the 1-5 anchors a judge or a reader
uses to interpret a score, which dimensions are hard fails, and the policy the gate applies. Its
version is a hash of its canonical content, so every recorded result says which rubric produced it.

pydantic validates a rubric file a user wrote (`parse_rubric`). The packs shipped with evalgate load
from their YAML into the same types without pydantic (`yamlsafe.built`, which gives what pydantic's
validation gives and leaves anything it cannot decide to pydantic): importing pydantic and building
its validators would cost every run ~75 ms. A pack added to evalgate/rubrics/ needs no other step;
tests/test_rubric_packs.py validates every pack with pydantic as well.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import yaml

from evalgate.rubrics.params import CheckParams, ParamsOfTheCheck
from evalgate.yamlsafe import (
    STRICT,
    Checked,
    Constraint,
    Invalid,
    NotPlain,
    Refused,
    built,
    error_words,
    field_rule,
    guarded_load,
    json_schema,
    read_text_file,
    refusal_reason,
    safe_load,
    validated,
)

PACKS_DIR = Path(__file__).with_name("rubrics")


class RubricError(Exception):
    """A rubric could not be found or does not validate; the message names the file and the key."""


@dataclass(frozen=True, kw_only=True)
class Scale:
    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    min: int = 1
    max: int = 5

    def __post_init__(self) -> None:
        if self.min >= self.max:
            raise ValueError(f"scale min ({self.min}) must be below max ({self.max})")


@dataclass(frozen=True, kw_only=True)
class Example:
    """A worked example for a binary criterion: an input excerpt and whether it meets the criterion."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    text: str
    meets: bool
    why: str


@dataclass(frozen=True, kw_only=True)
class Dimension:
    """One thing the rubric measures."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    id: Annotated[str, Constraint(pattern=r"^[a-z][a-z0-9_]*$")]
    kind: Literal["deterministic", "judge"]
    title: str
    description: str
    hard_fail: bool = False
    anchors: dict[int, str] = field(default_factory=dict)
    # binary criteria (score 1 = not met, scale max = met) carry worked examples
    examples: tuple[Example, ...] = ()
    # a judged dimension may also be computed mechanically by this deterministic check id
    mechanical: str | None = None
    # a deterministic check's parameters, of its own check's type (rubrics.params.params_type); absent:
    # the check's defaults
    params: Annotated[CheckParams | None, ParamsOfTheCheck()] = None
    # what reports list the dimension under (a review skill: `remove-ai-slop`); `a/b` is part b of a
    # (`peer-reviewer/alternative-explanations`); absent: the dimension stands on its own
    group: Annotated[str, Constraint(pattern=r"^[a-z0-9][a-z0-9-]*(?:/[a-z0-9][a-z0-9-]*)?$")] | None = None


@dataclass(frozen=True, kw_only=True)
class Bands:
    """Named bands over the (ensemble) mean, checked from the top: the first whose floor is met."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    floors: dict[str, float]


@dataclass(frozen=True, kw_only=True)
class Ensemble:
    """How several judges' scores combine (used only when more than one judge is configured)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    aggregation: Literal["mean", "median"] = "mean"
    strict_pass_judges: int | None = None  # at least this many judges' means ...
    strict_pass_mean: float | None = None  # ... are >= this
    critical_fail_below: float | None = None  # a majority of judges' means below this is critical
    # trio FAIL: at least this many judges' means ...
    fail_judges: Annotated[int, Constraint(ge=1)] | None = None
    fail_below: float | None = None  # ... are below this
    on_judge_error: Literal["fail", "exclude"] = "fail"
    quorum: int = 1

    def __post_init__(self) -> None:
        if (self.fail_judges is None) != (self.fail_below is None):
            raise ValueError("fail_judges and fail_below go together: give both or neither")


@dataclass(frozen=True, kw_only=True)
class Policy:
    """The gate's rules. A judge's own OVERALL claim is never part of them."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    fail_on_score: int | None = 1  # any dimension at or below this fails the file
    min_each: int | None = 3  # every scored dimension must reach this
    min_mean: float | None = 4.0  # the mean over scored dimensions must reach this
    hard_fail_below: int = 3  # a hard-fail dimension scoring below this fails the file outright
    bands: Bands | None = None
    ensemble: Ensemble = Ensemble()


@dataclass(frozen=True, kw_only=True)
class Judging:
    """How judged dimensions are asked for."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    template: str = "likert-table.md.j2"
    reply: Literal["table", "json"] = "table"
    instructions: str = ""


@dataclass(frozen=True, kw_only=True)
class InputPart:
    """One named part of a structured input item (e.g. `persona`, `materials`, `response`)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    name: Annotated[str, Constraint(pattern=r"^[a-z][a-z0-9_]*$")]
    description: str = ""
    required: bool = True


@dataclass(frozen=True, kw_only=True)
class Inputs:
    """Rubrics whose inputs are not research markdown: each input file is a YAML mapping with these
    named parts. Only these parts reach the judge, so any other key in the file (labels, the model or
    configuration that produced the response) stays hidden from it."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    format: Literal["yaml"] = "yaml"
    parts: tuple[InputPart, ...]


KappaKind = Literal["cohen", "linear", "quadratic"]


@dataclass(frozen=True, kw_only=True)
class CalibrationFloors:
    """What `evalgate calibrate` holds the judges to, against the human labels where the humans
    agree: pooled over every judged (item, dimension) pair, the share scored exactly as labelled
    (`exact`) and within one point (`within_one`); on each judged dimension, kappa (`kappa`). Raw
    agreement alone flatters a judge on a skewed scale (a constant judge agrees on 75% of the gold
    set's pairs with a kappa of 0), so all three must be met. `kappa_kind`: Cohen's unweighted kappa,
    or weighted kappa with linear or quadratic disagreement weights; default quadratic on an ordinal
    scale of more than two points (a 4 for a 5 costs less than a 1 for a 5), Cohen's on a binary one."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    exact: Annotated[float, Constraint(ge=0, le=1)] = 0.6
    within_one: Annotated[float, Constraint(ge=0, le=1)] = 0.9
    kappa: Annotated[float, Constraint(ge=-1, le=1)] = 0.4
    kappa_kind: KappaKind | None = None

    def kind_for(self, scale: Scale) -> KappaKind:
        """The kappa used on `scale`: the one given, else quadratic (ordinal) or Cohen's (binary)."""
        if self.kappa_kind is not None:
            return self.kappa_kind
        return "cohen" if scale.max - scale.min == 1 else "quadratic"


@dataclass(frozen=True)
class CalibrationStatus:
    """What the configured calibration record (`calibration:`) says about the judges of a run: whether
    they were calibrated for its rubric version, prompt version and judges, and passed (`current`).

    `text` is the sentence every report prints: "calibrated on DATE: kappa ..." or "not calibrated for
    this rubric and prompt version: scores are a signal, not a measurement". With `required`
    (`require-calibration`) and no current calibration, judged failures do not fail a file."""

    current: bool
    text: str
    record: str | None = None
    date: str | None = None
    required: bool = False
    kappa: tuple[tuple[str, float | None], ...] = ()  # per judged dimension, from the record

    def to_json(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "text": self.text,
            "record": self.record,
            "date": self.date,
            "required": self.required,
            "kappa": {dimension: value for dimension, value in self.kappa},
        }


def _unique_ids(dimensions: tuple[Dimension, ...]) -> None:
    seen: set[str] = set()
    for d in dimensions:
        if d.id in seen:
            raise ValueError(f"duplicate dimension id {d.id!r}")
        seen.add(d.id)
    if not dimensions:
        raise ValueError("a rubric needs at least one dimension")


@dataclass(frozen=True, kw_only=True)
class Rubric:
    """A loaded, validated rubric."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
    id: Annotated[str, Constraint(pattern=r"^[a-z][a-z0-9-]*$")]
    title: str
    description: str = ""
    scale: Scale = Scale()
    dimensions: Annotated[tuple[Dimension, ...], Checked(_unique_ids)]
    policy: Policy = Policy()
    judging: Judging = Judging()
    inputs: Inputs | None = None
    calibration: CalibrationFloors = CalibrationFloors()

    def __post_init__(self) -> None:
        field_rule("dimensions", _unique_ids, self.dimensions)
        for d in self.dimensions:
            bad = [k for k in d.anchors if not self.scale.min <= k <= self.scale.max]
            if bad:
                raise ValueError(f"dimension {d.id!r}: anchor keys {bad} are outside the scale")

    @cached_property
    def version(self) -> str:
        """A short hash of the canonical content: any change to the rubric changes it."""
        # `inputs` is left out when absent so rubrics written before it existed keep their version.
        # Likewise a dimension's `params` and `group` when absent. Keys are strings, as in JSON
        # (anchors' too).
        dumped = self.as_data()
        if self.inputs is None:
            del dumped["inputs"]
        # The calibration floors decide whether a calibration passes, not what a score means: a
        # stricter floor starts no new history series and leaves a calibration record current.
        del dumped["calibration"]
        for dimension in dumped["dimensions"]:
            for optional in ("params", "group"):
                if dimension.get(optional) is None:
                    dimension.pop(optional, None)
        canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    def as_data(self) -> dict[str, Any]:
        """The rubric as plain JSON data: what a YAML file of it holds, every default written out."""
        return json.loads(json.dumps(dataclasses.asdict(self)))  # type: ignore[no-any-return]

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
    return sorted(p.stem for p in PACKS_DIR.glob("*.yml"))


def _format_validation(errors: list[dict[str, Any]], source: str, raw: dict[str, Any]) -> str:
    lines = [f"{source}: invalid rubric"]
    dimensions = raw.get("dimensions")
    for e in errors:
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        loc = e["loc"]
        if (
            len(loc) > 1
            and loc[0] == "dimensions"
            and isinstance(loc[1], int)
            and isinstance(dimensions, list)
        ):
            named = dimensions[loc[1]] if loc[1] < len(dimensions) else None
            if isinstance(named, dict) and isinstance(named.get("id"), str):
                where += f" (dimension {named['id']})"
        lines.append(f"  {where}: {error_words(e)}")
    return "\n".join(lines)


def parse_rubric(text: str, source: str) -> Rubric:
    """Validate rubric YAML text; `source` names it in error messages."""
    try:
        raw = guarded_load(text)
    except Refused as exc:
        raise RubricError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise RubricError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise RubricError(f"{source}: a rubric must be a mapping at the top level")
    try:
        return validated(Rubric, raw)
    except Invalid as exc:
        raise RubricError(_format_validation(exc.errors, source, raw)) from None


# The shipped packs built so far in this process, with the YAML each was built from: a run loads its
# rubric again to render the report, and an unchanged pack is then the same object.
_PACKS: dict[str, tuple[bytes, Rubric]] = {}


def load_rubric(name_or_path: str) -> Rubric:
    """Load a shipped pack by name (e.g. ``research-loop``) or any rubric YAML by path."""
    path = Path(name_or_path)
    if name_or_path.endswith((".yml", ".yaml")) or path.exists():
        try:
            text = read_text_file(path)
        except (OSError, Refused) as exc:
            raise RubricError(f"{name_or_path}: cannot read rubric: {refusal_reason(exc)}") from None
        return parse_rubric(text, str(path))
    if name_or_path not in pack_names():
        raise RubricError(
            f"unknown rubric {name_or_path!r}: give a YAML path or one of {', '.join(pack_names())}"
        )
    data = (PACKS_DIR / f"{name_or_path}.yml").read_bytes()
    known = _PACKS.get(name_or_path)
    if known is not None and known[0] == data:
        return known[1]
    text = data.decode("utf-8")
    try:
        rubric = built(Rubric, safe_load(text))
    except (NotPlain, yaml.YAMLError):  # not plainly valid: pydantic decides, and names what is wrong
        rubric = parse_rubric(text, f"rubric pack {name_or_path}")
    _PACKS[name_or_path] = (data, rubric)
    return rubric


def rubric_json_schema() -> dict[str, object]:
    """The JSON schema users can validate their own rubric files against."""
    return json_schema(Rubric)
