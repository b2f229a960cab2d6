"""Rubrics are data: a YAML file validated into frozen dataclasses that forbid unknown keys.

A rubric names its dimensions (deterministic checks or judged), the 1-5 anchors a judge or a reader
uses to interpret a score, which dimensions are hard fails, and the policy the gate applies. Its
version is a hash of its canonical content, so every recorded result says which rubric produced it.

pydantic validates a rubric file (`parse_rubric`); the packs shipped with evalgate load from
`evalgate/rubrics/compiled.py`, their validated form written out as Python by
`python -m evalgate.rubrics.compile_packs` with each YAML's SHA-256 (a test holds it equal to
validating the YAML); a pack whose YAML has changed since is validated from the YAML.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Union

import yaml

from evalgate.yamlsafe import (
    Checked,
    Constraint,
    Invalid,
    error_words,
    field_rule,
    json_schema,
    safe_load,
    validated,
)

PACKS_DIR = Path(__file__).with_name("rubrics")

_STRICT: dict[str, Any] = {"extra": "forbid"}  # pydantic's configuration of every rubric type


class RubricError(Exception):
    """A rubric could not be found or does not validate; the message names the file and the key."""


@dataclass(frozen=True, kw_only=True)
class Scale:
    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    min: int = 1
    max: int = 5

    def __post_init__(self) -> None:
        if self.min >= self.max:
            raise ValueError(f"scale min ({self.min}) must be below max ({self.max})")


@dataclass(frozen=True, kw_only=True)
class Example:
    """A worked example for a binary criterion: an input excerpt and whether it meets the criterion."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    text: str
    meets: bool
    why: str


@dataclass(frozen=True, kw_only=True, eq=False)
class CheckParams:
    """A deterministic check's parameters (`params:` under its dimension). Hashable by content, so a
    check can compile what it derives from them once per process (functools.lru_cache), not per file."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT

    @cached_property
    def _key(self) -> str:
        return repr(self)  # the class and every field, in order

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CheckParams) and self._key == other._key


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class KeyFindingWordCountParams(CheckParams):
    """key_finding_word_count: the claim's word floor and the list's length."""

    min_words: Annotated[int, Constraint(ge=1)] = 20
    min_findings: Annotated[int, Constraint(ge=1)] = 6
    max_findings: Annotated[int, Constraint(ge=1)] = 12

    def __post_init__(self) -> None:
        if self.min_findings > self.max_findings:
            raise ValueError(
                f"min_findings ({self.min_findings}) must not exceed max_findings ({self.max_findings})"
            )


@dataclass(frozen=True, kw_only=True)
class RequiredSectionSpec:
    """One heading the template requires, matched at any level by normalised title or an alias."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    title: Annotated[str, Constraint(min_length=1)]
    level: Annotated[int, Constraint(ge=1, le=6)] = 2  # only how a finding writes it (`## Title`)
    aliases: tuple[str, ...] = ()
    core: bool = False  # one of the Findings' core parts, which weigh more in the anchors
    container: bool = False  # holds only subsections, so no own text is needed
    within: str | None = None  # the title of the required section it belongs to


class _TitleAlone:
    """An entry of `required:` is a spec, or just its title (pydantic reads this when it validates)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        spec = handler(source)
        return core_schema.no_info_before_validator_function(
            lambda data: {"title": data} if isinstance(data, str) else data,
            spec,
            json_schema_input_schema=core_schema.union_schema([core_schema.str_schema(), spec]),
        )


RequiredEntry = Annotated[RequiredSectionSpec, _TitleAlone()]


def _parents_first(specs: tuple[RequiredSectionSpec, ...] | None) -> None:
    seen: set[str] = set()
    for spec in specs or ():
        if spec.within is not None and spec.within not in seen:
            raise ValueError(f"{spec.title!r} is within {spec.within!r}, which is not listed before it")
        seen.add(spec.title)


def _no_blank_phrase(phrases: tuple[str, ...] | None) -> None:
    if phrases is not None and any(not p.split() for p in phrases):
        raise ValueError("a placeholder phrase must not be blank")


def _abbreviations(table: dict[str, str] | None) -> None:
    for abbr, expansion in (table or {}).items():
        if not abbr.strip() or not expansion.strip():
            raise ValueError(f"{abbr!r} needs a non-empty abbreviation and expansion")
        if not (abbr + expansion).isprintable():  # a line break would add a line where it is written
            raise ValueError(f"{abbr!r}: {expansion!r} must be one line of text")


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class SectionPresenceParams(CheckParams):
    """section_presence: the required sections (in order) and the template's placeholder phrases."""

    # None: the research template's sections, and its instruction sentences
    required: Annotated[tuple[RequiredEntry, ...] | None, Checked(_parents_first)] = None
    placeholders: Annotated[tuple[str, ...] | None, Checked(_no_blank_phrase)] = None

    def __post_init__(self) -> None:
        field_rule("required", _parents_first, self.required)
        field_rule("placeholders", _no_blank_phrase, self.placeholders)


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class EvidenceMapCoverageParams(CheckParams):
    """evidence_map_coverage: the content-word share at which a finding and a row match."""

    match_threshold: Annotated[float, Constraint(gt=0, le=1)] = 0.34
    # leftovers, taking rows in document order
    order_threshold: Annotated[float, Constraint(gt=0, le=1)] = 0.15


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class AcronymExpansionParams(CheckParams):
    """acronym_expansion: where it looks, and the rubric's own acronym data on top of the bundled
    acronyms.yml (the protocol's required expansions and what is accepted unexpanded)."""

    sections: tuple[str, ...] = ()  # section titles scanned (with their subsections); none: everything
    # ABBR -> required expansion; None: acronyms.yml's table
    required: Annotated[dict[str, str] | None, Checked(_abbreviations)] = None
    understood: tuple[str, ...] = ()  # accepted unexpanded, besides acronyms.yml's not_acronyms
    # ABBR -> suggested expansion (a glossary)
    expansions: Annotated[dict[str, str], Checked(_abbreviations)] = field(default_factory=dict)

    def __post_init__(self) -> None:
        field_rule("required", _abbreviations, self.required)
        field_rule("expansions", _abbreviations, self.expansions)


# The checks that take parameters: dimension id -> its parameters' type.
CHECK_PARAMS: dict[str, type[CheckParams]] = {
    "key_finding_word_count": KeyFindingWordCountParams,
    "section_presence": SectionPresenceParams,
    "evidence_map_coverage": EvidenceMapCoverageParams,
    "acronym_expansion": AcronymExpansionParams,
}
AnyParams = Union[  # noqa: UP007  (the JSON schema names each type)
    KeyFindingWordCountParams, SectionPresenceParams, EvidenceMapCoverageParams, AcronymExpansionParams
]


def _params_of_this_check(value: Any, info: Any) -> Any:
    if value is None or isinstance(value, CheckParams):
        return value
    dimension_id = info.data.get("id")
    kind = CHECK_PARAMS.get(str(dimension_id))
    if kind is None or info.data.get("kind") != "deterministic":
        known = ", ".join(CHECK_PARAMS)
        raise ValueError(f"{dimension_id!r} takes no params (deterministic checks that do: {known})")
    if not isinstance(value, dict):
        raise ValueError("params must be a mapping of parameter names to values")
    try:
        return validated(kind, value)
    except Invalid as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(params)'}: {error_words(e)}" for e in exc.errors
        )
        raise ValueError(details) from None


class _ParamsOfTheCheck:
    """A dimension's `params:` validate as the parameters of the check named by its id."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.with_info_before_validator_function(_params_of_this_check, handler(source))


@dataclass(frozen=True, kw_only=True)
class Dimension:
    """One thing the rubric measures."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
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
    # a deterministic check's parameters (see CHECK_PARAMS); absent: the check's defaults
    params: Annotated[AnyParams | None, _ParamsOfTheCheck()] = None


@dataclass(frozen=True, kw_only=True)
class Bands:
    """Named bands over the (ensemble) mean, checked from the top: the first whose floor is met."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    floors: dict[str, float]


@dataclass(frozen=True, kw_only=True)
class Ensemble:
    """How several judges' scores combine (used only when more than one judge is configured)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
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

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    fail_on_score: int | None = 1  # any dimension at or below this fails the file
    min_each: int | None = 3  # every scored dimension must reach this
    min_mean: float | None = 4.0  # the mean over scored dimensions must reach this
    hard_fail_below: int = 3  # a hard-fail dimension scoring below this fails the file outright
    bands: Bands | None = None
    ensemble: Ensemble = Ensemble()


@dataclass(frozen=True, kw_only=True)
class Judging:
    """How judged dimensions are asked for."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    template: str = "likert-table.md.j2"
    reply: Literal["table", "json"] = "table"
    instructions: str = ""


@dataclass(frozen=True, kw_only=True)
class InputPart:
    """One named part of a structured input item (e.g. `persona`, `materials`, `response`)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    name: Annotated[str, Constraint(pattern=r"^[a-z][a-z0-9_]*$")]
    description: str = ""
    required: bool = True


@dataclass(frozen=True, kw_only=True)
class Inputs:
    """Rubrics whose inputs are not research markdown: each input file is a YAML mapping with these
    named parts. Only these parts reach the judge, so any other key in the file (labels, the model or
    configuration that produced the response) stays hidden from it."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    format: Literal["yaml"] = "yaml"
    parts: tuple[InputPart, ...]


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

    __pydantic_config__: ClassVar[dict[str, Any]] = _STRICT
    id: Annotated[str, Constraint(pattern=r"^[a-z][a-z0-9-]*$")]
    title: str
    description: str = ""
    scale: Scale = Scale()
    dimensions: Annotated[tuple[Dimension, ...], Checked(_unique_ids)]
    policy: Policy = Policy()
    judging: Judging = Judging()
    inputs: Inputs | None = None

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
        # Likewise a dimension's `params` when absent. Keys are strings, as in JSON (anchors' too).
        dumped = self.as_data()
        if self.inputs is None:
            del dumped["inputs"]
        for dimension in dumped["dimensions"]:
            if dimension.get("params") is None:
                dimension.pop("params", None)
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
        raw = safe_load(text)
    except yaml.YAMLError as exc:
        raise RubricError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise RubricError(f"{source}: a rubric must be a mapping at the top level")
    try:
        return validated(Rubric, raw)
    except Invalid as exc:
        raise RubricError(_format_validation(exc.errors, source, raw)) from None


def pack_digest(data: bytes) -> str:
    """What the compiled packs record of each pack's YAML: its SHA-256."""
    return hashlib.sha256(data).hexdigest()


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
    data = (PACKS_DIR / f"{name_or_path}.yml").read_bytes()
    from evalgate.rubrics.compiled import PACKS  # the packs validated ahead (see the module's doc)

    digest, compiled = PACKS.get(name_or_path, ("", None))
    if compiled is not None and digest == pack_digest(data):
        return compiled
    return parse_rubric(data.decode("utf-8"), f"rubric pack {name_or_path}")


def rubric_json_schema() -> dict[str, object]:
    """The JSON schema users can validate their own rubric files against."""
    return json_schema(Rubric)
