"""section_presence: every heading the template requires is present and none still holds template text.

Exact about the rule, tolerant of the variation the 453-item corpus shows (see docs/checks.md):
headings match by normalised title at any level (47 items put Output at `###`), `## Question /
Hypothesis` stands for `## Research Question` (16 items), `Section 6 Synthesis` for `§6 Synthesis`
(2 items), and "Risks, Gaps, and Uncertainties" matches with or without commas and "and". The
italic notes the template asks writers to keep (`*(Populated from §6 Synthesis above.)*`) are not
placeholders; the template's instruction sentences, a lone `-`, `TITLE` and the empty Evidence Map
row are.

The required sections and the placeholder phrases are the rubric's params (`required`,
`placeholders`); REQUIRED and PLACEHOLDER_PHRASES below are the defaults, which the research-loop
rubric spells out.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from evalgate.checks import CheckOutcome
from evalgate.checks.section_placeholders import PLACEHOLDER_PHRASES, Searches, left_at
from evalgate.document import Document, Section, normalise_title
from evalgate.document.asciifold import ascii_lowered
from evalgate.results import Finding
from evalgate.rubrics.params import RequiredSectionSpec, SectionPresenceParams


@dataclass(frozen=True)
class RequiredSection:
    """One heading the template requires: its display name, accepted title keys, and whether it is
    one of the Findings' core parts (which weigh more in the anchors)."""

    name: str
    keys: tuple[str, ...]
    core: bool = False
    container: bool = False  # holds only subsections, so no own text is needed
    parent: str | None = None  # a subsection; skipped (not counted again) when the parent is missing


SKILL_STEPS = (
    ("§0 Initialise", "0 initialise"),
    ("§1 Question Decomposition", "1 question decomposition"),
    ("§2 Investigation", "2 investigation"),
    ("§3 Reasoning", "3 reasoning"),
    ("§4 Consistency Check", "4 consistency check"),
    ("§5 Depth and Breadth Expansion", "5 depth and breadth expansion"),
    ("§6 Synthesis", "6 synthesis"),
    ("§7 Recursive Review", "7 recursive review"),
)

REQUIRED: tuple[RequiredSection, ...] = (
    RequiredSection("## Research Question", ("research question", "question hypothesis")),
    RequiredSection("## Scope", ("scope",)),
    RequiredSection("## Context", ("context",)),
    RequiredSection("## Approach", ("approach",)),
    RequiredSection("## Sources", ("sources",)),
    RequiredSection("## Research Skill Output", ("research skill output",), container=True),
    *(RequiredSection(f"### {name}", (key,), parent="## Research Skill Output") for name, key in SKILL_STEPS),
    RequiredSection("## Findings", ("findings",), core=True, container=True),
    RequiredSection("### Executive Summary", ("executive summary",), core=True, parent="## Findings"),
    RequiredSection("### Key Findings", ("key findings",), core=True, parent="## Findings"),
    RequiredSection("### Evidence Map", ("evidence map",), core=True, parent="## Findings"),
    RequiredSection("### Assumptions", ("assumptions",), parent="## Findings"),
    RequiredSection("### Analysis", ("analysis",), parent="## Findings"),
    RequiredSection(
        "### Risks, Gaps, and Uncertainties",
        ("risks gaps and uncertainties", "risks gaps uncertainties"),
        parent="## Findings",
    ),
    RequiredSection("### Open Questions", ("open questions",), parent="## Findings"),
    RequiredSection("## Output", ("output", "output section")),
)


@dataclass(frozen=True)
class _Template:
    """What the check looks for, derived once per params: the required sections in order, the
    placeholder phrases (as written, and lowered with white space collapsed) and their searches."""

    required: tuple[RequiredSection, ...]
    placeholder_keys: tuple[tuple[str, str], ...]
    searches: Searches
    findings_name: str | None  # the core container (## Findings) whose absence alone scores 1


def required_from_specs(specs: tuple[RequiredSectionSpec, ...]) -> tuple[RequiredSection, ...]:
    """The rubric's `required:` entries as the check's RequiredSection tuple (titles and aliases
    normalised as headings are; `within` names the parent by title)."""
    names = {spec.title: "#" * spec.level + " " + spec.title for spec in specs}
    return tuple(
        RequiredSection(
            names[spec.title],
            tuple(dict.fromkeys(normalise_title(t) for t in (spec.title, *spec.aliases))),
            core=spec.core,
            container=spec.container,
            parent=names[spec.within] if spec.within is not None else None,
        )
        for spec in specs
    )


@lru_cache(maxsize=8)
def _template(params: SectionPresenceParams | None) -> _Template:
    required = REQUIRED
    phrases: tuple[str, ...] = PLACEHOLDER_PHRASES
    if params is not None:
        required = REQUIRED if params.required is None else required_from_specs(params.required)
        phrases = PLACEHOLDER_PHRASES if params.placeholders is None else params.placeholders
    keys = tuple((p, " ".join(p.lower().split())) for p in phrases)
    findings_name = next((r.name for r in required if r.core and r.container), None)
    return _Template(required, keys, Searches(keys), findings_name)


_PLACEHOLDER_KEYS = _template(None).placeholder_keys  # the defaults' (phrase, lowered key) pairs

# Lines that carry nothing: a lone list marker (`-`, `1.`), a kept italic template note, a rule.
# Possessive where a part is followed by what it cannot take: `^\s*(...)?\s*$` split a run of spaces
# between its two `\s*` (quadratic), and the map row's `(\s*(...)?\s*\|)+` did so in every cell
# (exponential: a sparse 88-byte row never finished).
_EMPTY_LINE = re.compile(r"^\s*+(?:[-*+]|\d+[.)]|-{3,}|\*\(.*\)\*|_\(.*\)_)?\s*$")
_EMPTY_MAP_ROW = re.compile(r"^\s*+\|(?:\s*+(?:high\s*+/\s*+medium\s*+/\s*+low\s*+)?\|)++\s*$", re.I)
_SKILL_PREFIX = re.compile(r"^section (?=\d)")
_TITLE_WORD = re.compile(r"[a-z0-9]+")  # a word of a title, as normalise_title reads it
_QUALIFIER = re.compile(r"\s*[-—–:(|]")
_Keyed = dict[str, list[Section]]  # the document's sections by key, each list in document order


def check(document: Document, params: SectionPresenceParams | None = None) -> CheckOutcome:
    """Score the presence and filling-in of the template's required sections (anchors 1-5)."""
    template = _template(params)
    phrases = _phrases_in(document, template)
    keyed: _Keyed = {}
    for s in document.sections:
        key = _SKILL_PREFIX.sub("", s.key) if s.key.startswith("section ") else s.key
        keyed.setdefault(key, []).append(s)
    heading_lines = frozenset(s.line for s in document.sections)
    findings: list[Finding] = []
    found: dict[str, Section | None] = {}
    core_bad = minor_bad = 0
    for required in template.required:
        parent = found.get(required.parent) if required.parent else None
        section = _find(keyed, required, parent)
        found[required.name] = section
        if section is None:
            if required.parent is not None and found.get(required.parent) is None:
                continue  # the missing parent was counted once for all its subsections
            findings.append(
                Finding(
                    _anchor_line(document, keyed, found, required, template.required),
                    f"missing required section {required.name}",
                    rule="missing_section",
                )
            )
        else:
            problem = _placeholder_problem(document, section, required, phrases, heading_lines)
            if problem is None:
                continue
            findings.append(Finding(problem[0], f"{required.name} {problem[1]}", rule="placeholder"))
        if required.core:
            core_bad += 1
        else:
            minor_bad += 1
    title_line = _template_title_line(document)
    if title_line is not None:
        findings.append(
            Finding(title_line, "the title is still the template's 'TITLE'", rule="template_title")
        )
        minor_bad += 1
    findings_missing = template.findings_name is not None and found[template.findings_name] is None
    return CheckOutcome(score=_score(findings_missing, core_bad, minor_bad), findings=tuple(findings))


def _score(findings_missing: bool, core_bad: int, minor_bad: int) -> int:
    if findings_missing or core_bad >= 2:
        return 1
    if core_bad == 1 or minor_bad >= 3:
        return 2
    return 5 - minor_bad  # 0 -> 5, 1 -> 4, 2 -> 3


def _find(keyed: _Keyed, required: RequiredSection, parent: Section | None = None) -> Section | None:
    """The section for `required`, preferring one inside its parent (a stray `## Analysis` outside
    Findings is not Findings' Analysis when Findings has its own). `keyed` holds every section under
    its key (a `Section 6` prefix removed), in document order."""
    keys = required.keys
    if len(keys) == 1:  # most: that key's list as it is (nothing below changes it)
        candidates = keyed.get(keys[0]) or _qualified(keyed, required)
    else:
        candidates = [section for key in keys for section in keyed.get(key, ())]
        candidates = candidates or _qualified(keyed, required)
        candidates.sort(key=lambda section: section.line)  # one heading per line: document order
    if parent is not None:
        for section in candidates:
            if parent.line < section.line <= parent.end_line:
                return section
    return candidates[0] if candidates else None


def _qualified(keyed: _Keyed, required: RequiredSection) -> list[Section]:
    """Headings that give a required title and then a qualifier after a dash, colon, parenthesis
    or bar (`### Open Questions — Ranked by Priority`, `## Sources (starting points)`), in document
    order: asked only when no heading is the title itself."""
    found = []
    for key, sections in keyed.items():
        for title in required.keys:
            if key.startswith(title + " "):
                words = len(title.split())
                found += [s for s in sections if _QUALIFIER.match(_after_words(s.title, words))]
    return sorted(found, key=lambda section: section.line)


def _after_words(title: str, words: int) -> str:
    """The title after its first `words` words (as normalise_title counts them)."""
    matches = list(itertools.islice(_TITLE_WORD.finditer(title.lower()), words))
    return title[matches[-1].end() :] if len(matches) == words else ""


def _anchor_line(
    document: Document,
    keyed: _Keyed,
    found: dict[str, Section | None],
    required: RequiredSection,
    in_order: tuple[RequiredSection, ...],
) -> int:
    """Where to report a missing section: its parent's heading, else the next required section
    that is present, else the last line."""
    parent = found.get(required.parent) if required.parent else None
    if parent is not None:
        return parent.line
    for later in in_order[in_order.index(required) + 1 :]:
        section = _find(keyed, later)
        if section is not None:
            return section.line
    return max(len(document.lines), 1)


def _placeholder_problem(
    document: Document,
    section: Section,
    required: RequiredSection,
    phrases: tuple[tuple[str, str], ...],
    heading_lines: frozenset[int],
) -> tuple[int, str] | None:
    """(line, what is wrong) when the section's own text is empty or template text, else None."""
    own = document.lines[section.line : document.own_end(section)]  # its lines after the heading
    joined = " ".join(" ".join(own).split()).lower() if phrases else ""
    for phrase, key in phrases:
        if key in joined and (line := left_at(own, key)) is not None:
            return section.line + 1 + line, f"still holds the template's placeholder text {phrase!r}"
    if "|" in "".join(own):  # only a table row can match; most sections have none
        for n, text in enumerate(own, start=section.line + 1):
            if "|" in text and _EMPTY_MAP_ROW.match(text):
                return n, "still holds the template's empty row"
    if required.container:
        return None
    # emptiness looks at the whole span: `### §2 Investigation` often holds only `####` sub-questions
    # (a plain loop: it ends at the first line of text, most often the second)
    lines = document.lines
    for n in range(section.line + 1, section.end_line + 1):
        if not _EMPTY_LINE.match(lines[n - 1]) and n not in heading_lines:
            return None
    return section.line, "is empty (only template markers such as a lone '-')"


def _phrases_in(document: Document, template: _Template | None = None) -> tuple[tuple[str, str], ...]:
    """The placeholder phrases that occur anywhere in the document (usually none), so sections are
    searched only for those."""
    template = template or _template(None)
    keys = template.placeholder_keys
    if not keys:
        return ()
    text = document.text
    search = template.searches.get()
    if search is not None:
        # the phrases' rare characters and white space are ASCII
        folded = ascii_lowered(text, document.utf8, search.table)
        if folded is not None and search.pattern.search(folded) is None:
            return ()  # no phrase can be in the text
    whole = " ".join(text.lower().split())
    return tuple(key for key in keys if key[1] in whole)


def _template_title_line(document: Document) -> int | None:
    data = document.front_matter.data or {}
    if str(data.get("title", "")).strip() == "TITLE":
        start = document.front_matter.start_line or 1
        end = document.front_matter.end_line or start
        return next((n for n in range(start, end + 1) if document.lines[n - 1].startswith("title:")), start)
    for section in document.sections:
        if section.level == 1 and normalise_title(section.title) == "title":
            return section.line
    return None
