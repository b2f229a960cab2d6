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

import re
from dataclasses import dataclass
from functools import lru_cache

from evalgate.checks import CheckOutcome
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

# The template's instruction sentences (_template.md). Any of them left in a section's own text
# means the writer did not replace the template there.
PLACEHOLDER_PHRASES = (
    "State the specific, answerable question this research addresses",
    "Restate the research question. Confirm scope",
    "Why is this question worth answering now?",
    "Decompose the question into sub-questions and describe how each will be investigated",
    "Approach sub-questions broken into atomic questions",
    "Evidence gathered per atomic question. Label each claim",
    "Facts, inferences, and assumptions explicitly separated.",
    "Internal contradictions identified and resolved (or explicitly flagged",
    "Findings re-examined through relevant lenses",
    "Final pass: every section justified, all threads synthesised",
    "What is the answer to the research question? State the key conclusion directly.",
    "Claim text as a complete sentence",
    "Explicit assumptions made during the investigation and the justification for each.",
    "**Assumption:** ... **Justification:** ...",
    "How the evidence was weighed, what trade-offs were identified",
    "What is still unknown? Where does the evidence fall short?",
    "Questions that surfaced during research but are out of scope for this item.",
    "[Smith et al. (YYYY) Source Title](https://url)",
    "[Organisation Title](https://url) — brief description",
)
# Finding which phrases occur at all is the check's main cost: one search per phrase over a lowered
# copy of every item is 0.4 s over the corpus. Instead, one regex over the item's UTF-8 bytes tells
# whether any phrase can be there (in almost every item none can, and the check is done). Each phrase
# is looked for from one character of it that is rare in prose (`q`, `x`, `j`, `?`, `(`, `,`). The
# bytes are lowered and every such character made one byte, NUL, in the same C pass
# (`bytes.translate`, no dearer than `bytes.lower()`), so a single regex starting with that literal
# byte skips from one to the next in C: six searches, one per character, cost twice as much. At each
# NUL the alternatives (one per phrase, the phrase folded the same way) check the rest of the word
# after it, as a literal, so most fail at their first byte; then the word up to it (a fixed-width
# look-behind) and the rest of the phrase across any white space. A phrase present in the text,
# reflowed or not, always matches (white space below is every character str.split() splits on), so
# an item the regex does not match holds none; an item it matches (a phrase, or a near miss such as
# `eqplicit` for `explicit`) is then looked for exactly.
_RARE_FIRST = b"q?j([x,kvz:."  # the rarest first (byte counts over the corpus)
_WHITE = (  # in UTF-8: ASCII white space, U+001C-1F, U+0085, U+00A0, U+1680, U+2000-200A, U+2028-9, ...
    rb"(?:[\t-\r\x1c-\x20]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
    rb"|\xe2\x81\x9f|\xe3\x80\x80)+"  # ... U+202F, U+205F, U+3000
)


@dataclass(frozen=True)
class _PhraseSearch:
    """A `bytes.translate` table (A-Z lowered, each phrase's rare character made NUL) and the regex
    that matches the folded bytes wherever a phrase may be."""

    table: bytes
    pattern: re.Pattern[bytes]


def _phrase_search(keys: tuple[tuple[str, str], ...]) -> _PhraseSearch | None:
    """The search for these (phrase, lowered key) pairs; None when a phrase has no ASCII character
    to look for it from (a custom placeholder written all in other scripts: every item is then looked
    through directly)."""
    chars: list[int] = []
    for _, key in keys:
        raw = key.encode("utf-8")
        # ASCII and not the space: a byte of a multi-byte character or white space made NUL would
        # break the white space pattern
        char = next(
            (c for c in _RARE_FIRST if c in raw), next((c for c in raw if c < 0x80 and c != 0x20), None)
        )
        if char is None:
            return None
        chars.append(char)
    table = bytearray(bytes(range(256)).lower())
    for char in chars:
        table[char] = table[ord(chr(char).upper())] = 0
    branches = []
    for (_, key), char in zip(keys, chars, strict=True):
        raw = key.encode("utf-8")
        folded = raw.translate(table)
        at = raw.index(char)
        start = raw.rfind(b" ", 0, at) + 1  # the character's word is raw[start:stop]
        stop = raw.find(b" ", at) if b" " in raw[at:] else len(raw)
        rest = b"".join(_WHITE + re.escape(word) for word in folded[stop:].split(b" ") if word)
        branches.append((folded[at + 1 : stop], b"(?<=" + re.escape(folded[start:stop]) + b")" + rest))
    return _PhraseSearch(bytes(table), re.compile(b"\x00" + _alternation(branches)))


def _alternation(branches: list[tuple[bytes, bytes]]) -> bytes:
    """A pattern matching where any (literal, pattern) branch does, with the branches' literals
    merged into a trie: `uestion(?:...)` once for the six phrases whose word after the `q` is
    `uestion`. At each of the corpus's ~365,000 NUL bytes the engine's alternation tests each branch's
    first byte; merged, it tests one per distinct first byte (the search is only asked whether some
    branch matches, so their order does not matter)."""
    groups: dict[bytes, list[tuple[bytes, bytes]]] = {}
    bare = []  # branches whose literal is spent: their pattern starts with a look-behind
    for literal, pattern in branches:
        if literal:
            groups.setdefault(literal[:1], []).append((literal[1:], pattern))
        else:
            bare.append(pattern)
    parts = [
        re.escape(first) + (re.escape(group[0][0]) + group[0][1] if len(group) == 1 else _alternation(group))
        for first, group in groups.items()
    ]
    return b"(?:" + b"|".join(parts + bare) + b")"


class _Searches:
    """A template's phrase search, compiled once it pays for itself. Compiling it takes ~7 ms,
    collapsing one document's white space (what the search spares) ~0.2-1 ms: so the first
    documents a process checks are looked through directly (a pre-commit hook checks one file), and
    the search is compiled for the next. Either way a document gives the same phrases."""

    DIRECT = 16  # documents checked without the search, per process and template

    def __init__(self, keys: tuple[tuple[str, str], ...]) -> None:
        self._keys = keys
        self._direct = self.DIRECT
        self._compiled = False
        self._search: _PhraseSearch | None = None

    def get(self) -> _PhraseSearch | None:
        """The compiled search, or None while documents are still looked through directly."""
        if not self._compiled:
            if self._direct > 0:
                self._direct -= 1
                return None
            self._search, self._compiled = _phrase_search(self._keys), True
        return self._search


@dataclass(frozen=True)
class _Template:
    """What the check looks for, derived once per params: the required sections in order, the
    placeholder phrases (as written, and lowered with white space collapsed) and their searches."""

    required: tuple[RequiredSection, ...]
    placeholder_keys: tuple[tuple[str, str], ...]
    searches: _Searches
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
    return _Template(required, keys, _Searches(keys), findings_name)


_PLACEHOLDER_KEYS = _template(None).placeholder_keys  # the defaults' (phrase, lowered key) pairs

# Lines that carry nothing: a lone list marker (`-`, `1.`), a kept italic template note, a rule.
# Possessive where a part is followed by what it cannot take: `^\s*(...)?\s*$` split a run of spaces
# between its two `\s*` (quadratic), and the map row's `(\s*(...)?\s*\|)+` did so in every cell
# (exponential: a sparse 88-byte row never finished).
_EMPTY_LINE = re.compile(r"^\s*+(?:[-*+]|\d+[.)]|-{3,}|\*\(.*\)\*|_\(.*\)_)?\s*$")
_EMPTY_MAP_ROW = re.compile(r"^\s*+\|(?:\s*+(?:high\s*+/\s*+medium\s*+/\s*+low\s*+)?\|)++\s*$", re.I)
_SKILL_PREFIX = re.compile(r"^section (?=\d)")
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
    candidates = [section for key in required.keys for section in keyed.get(key, ())]
    if len(required.keys) > 1:
        candidates.sort(key=lambda section: section.line)  # one heading per line: document order
    if parent is not None:
        for section in candidates:
            if parent.line < section.line <= parent.end_line:
                return section
    return candidates[0] if candidates else None


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
        if key in joined:
            lines = enumerate(own, start=section.line + 1)
            line = next((n for n, text in lines if phrase[:30].lower() in text.lower()), section.line)
            return line, f"still holds the template's placeholder text {phrase!r}"
    if "|" in "".join(own):  # only a table row can match; most sections have none
        for n, text in enumerate(own, start=section.line + 1):
            if "|" in text and _EMPTY_MAP_ROW.match(text):
                return n, "still holds the template's empty row"
    if required.container:
        return None
    # emptiness looks at the whole span: `### §2 Investigation` often holds only `####` sub-questions
    whole = range(section.line + 1, section.end_line + 1)
    if all(_EMPTY_LINE.match(document.lines[n - 1]) or n in heading_lines for n in whole):
        return section.line, "is empty (only template markers such as a lone '-')"
    return None


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
