"""The deterministic checks' parameters (`params:` under a rubric's dimension), as types: what each
check takes, its defaults (the research-loop rubric's shipped values) and its own rules. Part of the
rubric's data, like the packs beside this module; `evalgate.rubric.Dimension` holds them.

The research-review pack's checks' types are in evalgate.rubrics.review_params, imported only when
one of them is asked for (`params_type`, or by name from this module): a research-loop run does not
create them."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Union

from evalgate.rubrics.params_base import CheckParams as CheckParams
from evalgate.rubrics.params_base import no_blank_entry
from evalgate.yamlsafe import (
    STRICT,
    Builder,
    Checked,
    Constraint,
    Invalid,
    NotPlain,
    error_words,
    field_rule,
    validated,
)

if TYPE_CHECKING:
    pass


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

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT
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

    def plain(self, value: Any, build: Builder, data: dict[str, Any]) -> Any:
        """The same for `yamlsafe.built`."""
        return build({"title": value} if isinstance(value, str) else value)


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


def _phrases(phrases: tuple[str, ...] | None) -> None:
    for phrase in phrases or ():
        words = phrase.split()
        if not words or not all(w.strip("*") for w in words):
            raise ValueError(f"{phrase!r}: a phrase needs a word (and `*` only at a word's end)")
        if any("*" in w.rstrip("*") or w.count("*") > 1 for w in words):
            raise ValueError(f"{phrase!r}: `*` may only end a word")


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class SourceConsultationParams(CheckParams):
    """source_consultation: the phrases by which a Sources entry, or a label over a group of them,
    says why a source was not consulted, and those that make a body line a note on a failed access
    rather than a citation. Matched in any case as whole words, white space and punctuation between
    words flexible; a word ending in `*` matches any ending (`paywall*`)."""

    # None: the shipped lists (evalgate.checks.source_reasons: REASONS, NOT_CONSULTED_LABELS, ACCESS_NOTES)
    reasons: Annotated[tuple[str, ...] | None, Checked(_phrases)] = None
    not_consulted_labels: Annotated[tuple[str, ...] | None, Checked(_phrases)] = None
    # a body line holding one records an access attempt, not a citation
    access_notes: Annotated[tuple[str, ...] | None, Checked(_phrases)] = None

    def __post_init__(self) -> None:
        field_rule("reasons", _phrases, self.reasons)
        field_rule("not_consulted_labels", _phrases, self.not_consulted_labels)
        field_rule("access_notes", _phrases, self.access_notes)


# A line that holds one of these (any case) is an audit note about the acronyms ("- GDPR: not expanded
# in this document", "Acronym audit: LLM, API"): its acronyms are mentions, not uses.
AUDIT_PHRASES = (
    "acronym",
    "abbreviation",
    "initialism",
    "unexpanded",
    "not expanded",
    "expanded as",
    "expanded at",
    "expanded in",
    "expanded on",
    "expanded first",
)
# Names whose profiles are written as capitals after the name and an optional version: `OWL 2 RL`.
PROFILES = {"OWL": ("DL", "EL", "QL", "RL")}
# `evalgate fix` edits no line that holds one of these (any case): a line that talks about acronyms
# or expanding them, where an inserted expansion could contradict what it says.
FIX_LEAVES_LINES_WITH = ("acronym", "abbreviat", "initialism", "expan")


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class AcronymExpansionParams(CheckParams):
    """acronym_expansion: where it looks, the rubric's own acronym data on top of the bundled
    acronyms.yml (the protocol's required expansions and what is accepted unexpanded), and the
    rules' numbers and lists (docs/checks.md)."""

    sections: tuple[str, ...] = ()  # section titles scanned (with their subsections); none: everything
    # ABBR -> required expansion; None: acronyms.yml's table
    required: Annotated[dict[str, str] | None, Checked(_abbreviations)] = None
    understood: tuple[str, ...] = ()  # accepted unexpanded, besides acronyms.yml's not_acronyms
    # ABBR -> suggested expansion (a glossary)
    expansions: Annotated[dict[str, str], Checked(_abbreviations)] = field(default_factory=dict)
    # how many letters of a name written in capitalised words may come from no word of it (Pseudo-
    # Terminal (PTY)); 0: every letter must
    missing_letters: Annotated[int, Constraint(ge=0, le=3)] = 1
    # NAME -> its profiles: `OWL 2 RL`, `OWL RL` name a profile of OWL, never a use of RL
    profiles: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(PROFILES))
    audit_phrases: Annotated[tuple[str, ...], Checked(no_blank_entry)] = AUDIT_PHRASES
    fix_leaves_lines_with: Annotated[tuple[str, ...], Checked(no_blank_entry)] = FIX_LEAVES_LINES_WITH

    def __post_init__(self) -> None:
        field_rule("required", _abbreviations, self.required)
        field_rule("expansions", _abbreviations, self.expansions)
        field_rule("audit_phrases", no_blank_entry, self.audit_phrases)
        field_rule("fix_leaves_lines_with", no_blank_entry, self.fix_leaves_lines_with)


# The checks that take parameters: dimension id -> its parameters' type (`params_type`). Those of the
# research-review pack by name, in evalgate.rubrics.review_params.
_LOOP_PARAMS: dict[str, type[CheckParams]] = {
    "key_finding_word_count": KeyFindingWordCountParams,
    "section_presence": SectionPresenceParams,
    "evidence_map_coverage": EvidenceMapCoverageParams,
    "source_consultation": SourceConsultationParams,
    "acronym_expansion": AcronymExpansionParams,
    "acronyms_expanded": AcronymExpansionParams,
}
_REVIEW_PARAMS: dict[str, str] = {
    "em_dashes": "EmDashesParams",
    "formulaic_transitions": "FormulaicTransitionsParams",
    "overconfident_language": "OverconfidentLanguageParams",
    "opinion_labels": "OpinionLabelsParams",
    "high_confidence_sources": "HighConfidenceSourcesParams",
}
CHECKS_WITH_PARAMS: tuple[str, ...] = (*_LOOP_PARAMS, *_REVIEW_PARAMS)


def params_type(check_id: str) -> type[CheckParams] | None:
    """The type of the parameters the check `check_id` takes, or None when it takes none."""
    kind = _LOOP_PARAMS.get(check_id)
    if kind is None and check_id in _REVIEW_PARAMS:
        kind = __getattr__(_REVIEW_PARAMS[check_id])
    return kind


def __getattr__(name: str) -> Any:
    """The research-review checks' types, by name as before they moved (`from evalgate.rubrics.params
    import EmDashesParams`): their module is imported on first use."""
    if name in _REVIEW_PARAMS.values():
        from evalgate.rubrics import review_params

        return getattr(review_params, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def any_params() -> Any:
    """Every check's parameters type as one union, as pydantic validates a dimension's `params:` and
    the JSON schema names each type (only pydantic needs it, so the review types are made here)."""
    return Union[
        KeyFindingWordCountParams,
        SectionPresenceParams,
        EvidenceMapCoverageParams,
        SourceConsultationParams,
        AcronymExpansionParams,
        *(__getattr__(name) for name in _REVIEW_PARAMS.values()),
    ]


def _params_of_this_check(value: Any, info: Any) -> Any:
    if value is None or isinstance(value, CheckParams):
        return value
    dimension_id = info.data.get("id")
    kind = params_type(str(dimension_id))
    if kind is None or info.data.get("kind") != "deterministic":
        known = ", ".join(CHECKS_WITH_PARAMS)
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


class ParamsOfTheCheck:
    """A dimension's `params:` validate as the parameters of the check named by its id."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        union = handler.generate_schema(any_params() | None)
        return core_schema.with_info_before_validator_function(_params_of_this_check, union)

    def plain(self, value: Any, build: Builder, data: dict[str, Any]) -> Any:
        """The same for `yamlsafe.built`: the dimension's own check's parameters, built as that type;
        anything `_params_of_this_check` would refuse is left to pydantic."""
        kind = params_type(str(data.get("id")))
        if value is None:
            return None
        if kind is None or data.get("kind") != "deterministic" or type(value) is not dict:
            raise NotPlain("params pydantic decides")
        return build(value, kind)
