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
from typing import Annotated, Any, Literal, Union

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from evalgate.yamlsafe import safe_load, yaml_words

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


class CheckParams(_Strict):
    """A deterministic check's parameters (`params:` under its dimension). Hashable by content, so a
    check can compile what it derives from them once per process (functools.lru_cache), not per file."""

    _key: str = PrivateAttr(default="")

    def model_post_init(self, context: Any, /) -> None:
        self._key = type(self).__name__ + self.model_dump_json()

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CheckParams) and self._key == other._key


class KeyFindingWordCountParams(CheckParams):
    """key_finding_word_count: the claim's word floor and the list's length."""

    min_words: int = Field(default=20, ge=1)
    min_findings: int = Field(default=6, ge=1)
    max_findings: int = Field(default=12, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> KeyFindingWordCountParams:
        if self.min_findings > self.max_findings:
            raise ValueError(
                f"min_findings ({self.min_findings}) must not exceed max_findings ({self.max_findings})"
            )
        return self


class RequiredSectionSpec(_Strict):
    """One heading the template requires, matched at any level by normalised title or an alias."""

    title: str = Field(min_length=1)
    level: int = Field(default=2, ge=1, le=6)  # only how a finding writes it (`## Title`)
    aliases: tuple[str, ...] = ()
    core: bool = False  # one of the Findings' core parts, which weigh more in the anchors
    container: bool = False  # holds only subsections, so no own text is needed
    within: str | None = None  # the title of the required section it belongs to


def _title_alone(data: Any) -> Any:
    return {"title": data} if isinstance(data, str) else data


# An entry of `required:` is a spec, or just its title.
RequiredEntry = Annotated[
    RequiredSectionSpec,
    BeforeValidator(_title_alone, json_schema_input_type=Union[str, RequiredSectionSpec]),  # noqa: UP007
]


class SectionPresenceParams(CheckParams):
    """section_presence: the required sections (in order) and the template's placeholder phrases."""

    required: tuple[RequiredEntry, ...] | None = None  # None: the research template's
    placeholders: tuple[str, ...] | None = None  # None: the research template's instruction sentences

    @field_validator("required")
    @classmethod
    def _parents_first(cls, specs: tuple[RequiredSectionSpec, ...] | None) -> Any:
        seen: set[str] = set()
        for spec in specs or ():
            if spec.within is not None and spec.within not in seen:
                raise ValueError(f"{spec.title!r} is within {spec.within!r}, which is not listed before it")
            seen.add(spec.title)
        return specs

    @field_validator("placeholders")
    @classmethod
    def _no_blank_phrase(cls, phrases: tuple[str, ...] | None) -> Any:
        if phrases is not None and any(not p.split() for p in phrases):
            raise ValueError("a placeholder phrase must not be blank")
        return phrases


class EvidenceMapCoverageParams(CheckParams):
    """evidence_map_coverage: the content-word share at which a finding and a row match."""

    match_threshold: float = Field(default=0.34, gt=0, le=1)
    order_threshold: float = Field(default=0.15, gt=0, le=1)  # leftovers, taking rows in document order


class AcronymExpansionParams(CheckParams):
    """acronym_expansion: where it looks, and the rubric's own acronym data on top of the bundled
    acronyms.yml (the protocol's required expansions and what is accepted unexpanded)."""

    sections: tuple[str, ...] = ()  # section titles scanned (with their subsections); none: everything
    required: dict[str, str] | None = None  # ABBR -> required expansion; None: acronyms.yml's table
    understood: tuple[str, ...] = ()  # accepted unexpanded, besides acronyms.yml's not_acronyms
    expansions: dict[str, str] = Field(default_factory=dict)  # ABBR -> suggested expansion (a glossary)

    @field_validator("required", "expansions")
    @classmethod
    def _abbreviations(cls, table: dict[str, str] | None) -> Any:
        for abbr, expansion in (table or {}).items():
            if not abbr.strip() or not expansion.strip():
                raise ValueError(f"{abbr!r} needs a non-empty abbreviation and expansion")
            if not (abbr + expansion).isprintable():  # a line break would add a line where it is written
                raise ValueError(f"{abbr!r}: {expansion!r} must be one line of text")
        return table


# The checks that take parameters: dimension id -> its parameters' model.
CHECK_PARAMS: dict[str, type[CheckParams]] = {
    "key_finding_word_count": KeyFindingWordCountParams,
    "section_presence": SectionPresenceParams,
    "evidence_map_coverage": EvidenceMapCoverageParams,
    "acronym_expansion": AcronymExpansionParams,
}
AnyParams = Union[  # noqa: UP007  (the JSON schema names each model)
    KeyFindingWordCountParams, SectionPresenceParams, EvidenceMapCoverageParams, AcronymExpansionParams
]


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
    # a deterministic check's parameters (see CHECK_PARAMS); absent: the check's defaults
    params: AnyParams | None = None

    @field_validator("params", mode="before")
    @classmethod
    def _params_of_this_check(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None or isinstance(value, CheckParams):
            return value
        dimension_id = info.data.get("id")
        model = CHECK_PARAMS.get(str(dimension_id))
        if model is None or info.data.get("kind") != "deterministic":
            known = ", ".join(CHECK_PARAMS)
            raise ValueError(f"{dimension_id!r} takes no params (deterministic checks that do: {known})")
        if not isinstance(value, dict):
            raise ValueError("params must be a mapping of parameter names to values")
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            details = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(params)'}: "
                + ("unknown key" if e["type"] == "extra_forbidden" else yaml_words(e["msg"]))
                for e in exc.errors()
            )
            raise ValueError(details) from None


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
        # Likewise a dimension's `params` when absent.
        exclude = {"inputs"} if self.inputs is None else None
        dumped = self.model_dump(mode="json", exclude=exclude)
        for dimension in dumped["dimensions"]:
            if dimension.get("params") is None:
                dimension.pop("params", None)
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


def _format_validation(err: ValidationError, source: str, raw: dict[str, Any]) -> str:
    lines = [f"{source}: invalid rubric"]
    dimensions = raw.get("dimensions")
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        loc = e["loc"]
        if (
            len(loc) > 2
            and loc[0] == "dimensions"
            and isinstance(loc[1], int)
            and isinstance(dimensions, list)
        ):
            named = dimensions[loc[1]] if loc[1] < len(dimensions) else None
            if isinstance(named, dict) and isinstance(named.get("id"), str):
                where += f" (dimension {named['id']})"
        lines.append(f"  {where}: {yaml_words(str(e['msg']))}")
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
        raise RubricError(_format_validation(exc, source, raw)) from None


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
