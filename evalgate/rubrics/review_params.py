"""The research-review pack's checks' parameters (em_dashes, formulaic_transitions,
overconfident_language, opinion_labels, high_confidence_sources): their types, defaults and rules.

A module of their own, made only when a rubric names one of these checks (through
evalgate.rubrics.params, which gives every check's type by its id): Python 3.11 creates a frozen
dataclass by compiling each of its methods, ~0.4 ms a class, and a research-loop run uses none of
these five.
"""

from dataclasses import dataclass, field
from typing import Annotated

from evalgate.rubrics.params_base import CheckParams, no_blank_entry
from evalgate.rubrics.review_words import (
    EVIDENCE_VERBS,
    HEDGES,
    MANNER_WORDS,
    OPINION_LABELS,
    OPINION_MARKERS,
    OVERCONFIDENT_WORDS,
    PLATFORMS,
    TRANSITIONS,
)
from evalgate.yamlsafe import Checked, Constraint, field_rule


def _word_patterns(words: tuple[str, ...]) -> None:
    for word in words:
        if not word.split() or not word.strip("*"):
            raise ValueError(f"{word!r}: an entry needs a word")
        inner = word.strip()
        starred = inner.startswith("*") + inner.endswith("*")
        if inner.count("*") != starred or (inner.startswith("*") and " " in inner):
            raise ValueError(f"{word!r}: `*` may only end an entry, or start a one-word entry")


def _labels(labels: tuple[str, ...]) -> None:
    for label in labels:
        bracket = label.startswith("[") and label.endswith("]") and label[1:-1].strip().isalpha()
        colon = label.endswith(":") and label[:-1].strip().replace(" ", "").isalpha()
        if not (bracket or colon):
            raise ValueError(f"{label!r}: a label is `[word]` or `Words:`")


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class EmDashesParams(CheckParams):
    """em_dashes: where the review prompt's em-dash rule applies ("prohibited throughout the entire
    document ... no exceptions")."""

    sections: tuple[str, ...] = ()  # section titles (with their subsections); none: the whole file


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class FormulaicTransitionsParams(CheckParams):
    """formulaic_transitions: the phrases that open a sentence or clause as a formula, and where."""

    phrases: Annotated[tuple[str, ...], Checked(no_blank_entry)] = TRANSITIONS
    sections: tuple[str, ...] = ("Findings",)

    def __post_init__(self) -> None:
        field_rule("phrases", no_blank_entry, self.phrases)


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class OverconfidentLanguageParams(CheckParams):
    """overconfident_language: the words, where they are read, and the words around one that make it
    describe manner (`manner`, after it), negate or compare it (`hedges`, before it), or claim what
    evidence shows (`verbs`, after it). `*` ends an entry with any ending (`label*`), or starts a
    one-word entry with any beginning (`*n't`)."""

    words: Annotated[tuple[str, ...], Checked(no_blank_entry)] = OVERCONFIDENT_WORDS
    sections: tuple[str, ...] = ("Context", "Research Skill Output", "Findings")
    manner: Annotated[tuple[str, ...], Checked(_word_patterns)] = MANNER_WORDS
    hedges: Annotated[tuple[str, ...], Checked(_word_patterns)] = HEDGES
    verbs: Annotated[tuple[str, ...], Checked(_word_patterns)] = EVIDENCE_VERBS

    def __post_init__(self) -> None:
        field_rule("words", no_blank_entry, self.words)
        for name in ("manner", "hedges", "verbs"):
            field_rule(name, _word_patterns, getattr(self, name))


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class OpinionLabelsParams(CheckParams):
    """opinion_labels: the phrases that mark a sentence as the writer's opinion, the labels that make
    it compliant (`Opinion:`-style prefixes, `[inference]`-style labels), and where."""

    markers: Annotated[tuple[str, ...], Checked(no_blank_entry)] = OPINION_MARKERS
    labels: Annotated[tuple[str, ...], Checked(_labels)] = OPINION_LABELS
    sections: tuple[str, ...] = ("Research Skill Output", "Findings")

    def __post_init__(self) -> None:
        field_rule("markers", no_blank_entry, self.markers)
        field_rule("labels", _labels, self.labels)


def _hosts(platforms: dict[str, int]) -> None:
    for host in platforms:
        if not host or host != host.strip().lower() or "/" in host or " " in host:
            raise ValueError(f"{host!r}: a host name, lower case, without a scheme or a path")


@dataclass(frozen=True, kw_only=True, eq=False)  # equal and hashed by CheckParams' key
class HighConfidenceSourcesParams(CheckParams):
    """high_confidence_sources: how many independent sources a claim rated High must cite, where
    confidence is read, and which hosts publish many organisations' work (host -> the path segments
    that name one source; 0: every page is its own)."""

    min_sources: Annotated[int, Constraint(ge=1, le=10)] = 2
    # the Evidence Map's rows as well as the Key Findings (the prompt reads Executive Summary, Key
    # Findings and Analysis for this rule; a row restates its finding)
    evidence_map: bool = False
    platforms: Annotated[dict[str, Annotated[int, Constraint(ge=0, le=5)]], Checked(_hosts)] = field(
        default_factory=lambda: dict(PLATFORMS)
    )

    def __post_init__(self) -> None:
        field_rule("platforms", _hosts, self.platforms)
