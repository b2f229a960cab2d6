"""The Findings part of a research item: Executive Summary, Key Findings, Evidence Map, Sources.

`attach(document)` fills those fields of a Document from block parses of just their sections (the
Executive Summary's section only: its prose is read by the document when first asked for). The
protocol (research-prompt.md, "3. Seed the Findings section from §6") fixes what they contain; the
corpus varies in how a Key Finding carries its label, confidence and sources, so the claim is the
item's text with every such label removed, wherever it sits:
  `Claim. ([inference]; high confidence; source: https://...)`   (the protocol's format)
  `[inference; confidence: medium; source: https://...] Claim.`  (label first)
  `**[high]** Claim.` / `[fact] **Confidence: high.** Claim. Sources: https://...`
"""

from __future__ import annotations

import dataclasses
import operator
import re

from evalgate.document.blocks import first_pipe_table, parse_region
from evalgate.document.model import (
    Document,
    EvidenceRow,
    KeyFinding,
    ListItem,
    Section,
    SourceEntry,
    Table,
)

# A URL: `http://`, `https://` or `www.` in any case, then what a URL holds. Spelled without re.I,
# whose letters give `re` no first character to skip to (it tried a match at every character of every
# source entry): the first letter is a class `re` scans for, the rest of the scheme is checked from
# it. Under re.I these letters match only their two cases, and `s` also `ſ` (U+017F); the
# classes hold no letter. The same matches as the re.I form (tests/document/test_urls.py).
URL = re.compile(
    r"[hHwW](?:(?<=[hH])[tT][tT][pP][sS\u017f]?://|(?<=[wW])[wW][wW]\.)"
    r"[^\s<>()\[\]|`\"']+(?:\([^\s()]*\)[^\s<>()\[\]|`\"']*)*"
)
DOI = re.compile(r"\b(?:doi:\s*)?10\.\d{4,9}/[^\s|<>\"']+", re.I)
_LABEL_WORDS = r"fact|inference|assumption|confidence|source|sources|high|medium|low"
# The look-ahead makes sure a `]` closes the bracket before the label words are looked for: without
# it, each label word of an unclosed bracket ran to the end of the claim (quadratic).
_LEAD_LABEL = re.compile(
    rf"^(?:\*\*|__)?\[(?=[^\]]*+\])[^\]]*\b(?:{_LABEL_WORDS})\b[^\]]*\](?:\*\*|__)?[\s:.;,-]*", re.I
)
_LEAD_CONFIDENCE = re.compile(
    r"^(?:\*\*|__)?(?:confidence:?\s*(?:high|medium|low)|(?:high|medium|low)\s+confidence)\.?(?:\*\*|__)?[\s:.;,-]*",
    re.I,
)
# A match starts where a run of white space starts (`(?<!\s)`): from inside the run it would fail
# or succeed just the same, and trying every position of a long run was quadratic.
_TRAIL_SOURCES = re.compile(r"(?:^|(?<!\s)\s++)(?:\*\*)?sources?(?:\*\*)?:", re.I)
# `\s*(?:\*\*)?confidence:?\s*(?:high|medium|low)\.?(?:\*\*)?\s*$` (re.I), which starts with `\s*`
# and so was tried at every character of the claim, matched from the claim's end instead: this is
# it reversed, matched at the start of the reversed claim (see _cut_trailing_confidence).
_TRAIL_CONFIDENCE_REVERSED = re.compile(
    r"\s*(?:\*\*)?\.?(?:hgih|muidem|wol)\s*:?ecnedifnoc(?:\*\*)?\s*", re.I
)
# `\s*(?:\*\*)?\[(?:LABEL)[^\]]*\](?:\*\*)?\.?\s*$` (re.I), anchored at the end, reversed and matched
# at the start of the reversed claim (see _cut_trailing_label): searched for, it tried every position
# of a run of spaces and every `[label` before a `]` that does not end the claim (quadratic).
_TRAIL_LABEL_REVERSED = re.compile(
    r"\s*\.?(?:\*\*)?\][^\]]*(?:"
    + "|".join(word[::-1] for word in _LABEL_WORDS.split("|"))
    + r")\[(?:\*\*)?\s*",
    re.I,
)
_CARRIES_LABEL = re.compile(
    rf"\b(?:{_LABEL_WORDS})\b|https?://", re.I
)  # a bracket's label, confidence or source
_CONFIDENCE_LAST = frozenset("hHmMwW")  # the last letters of high, medium, low in either case


def attach(doc: Document) -> Document:
    """The document with its Findings fields filled in (those not found stay empty)."""
    findings = _top_section(doc, "findings")
    summary_sec = doc.find_section("executive summary", under=findings) if findings else None
    kf_sec = doc.find_section("key findings", under=findings) if findings else None
    map_sec = doc.find_section("evidence map", under=findings) if findings else None
    if findings is None:  # no Findings heading: take the subsections wherever they are
        summary_sec = doc.find_section("executive summary")
        kf_sec = doc.find_section("key findings")
        map_sec = doc.find_section("evidence map")
    sources_sec = _top_section(doc, "sources")
    kf_items = _first_list(doc, kf_sec, prefer_ordered=True)
    evidence_map = _first_table(doc, map_sec)
    return dataclasses.replace(
        doc,
        executive_summary_section=summary_sec,
        key_findings=tuple(
            KeyFinding(number=n, line=it.line, end_line=it.end_line, text=it.text, claim=claim_of(it.text))
            for n, it in enumerate(kf_items, start=1)
        ),
        key_findings_section=kf_sec,
        key_findings_list=kf_items,
        evidence_map=evidence_map,
        evidence_rows=_evidence_rows(evidence_map),
        sources=_sources(doc, sources_sec),
        sources_section=sources_sec,
    )


def _top_section(doc: Document, key: str) -> Section | None:
    """The highest-level (then first) section with this key: `## Sources`, not a `### Sources`
    inside the skill output."""
    matches = [s for s in doc.sections if s.key == key]
    return min(matches, key=lambda s: (s.level, s.line)) if matches else None


def _first_list(doc: Document, sec: Section | None, *, prefer_ordered: bool = False) -> tuple[ListItem, ...]:
    if sec is None:
        return ()
    blocks = parse_region(doc.lines, sec.line + 1, doc.own_end(sec))
    if not blocks.lists:
        return ()
    if prefer_ordered:
        # `1.` and `1)` items make separate lists in CommonMark; for the reader they are one list
        ordered = tuple(item for items in blocks.lists if items and items[0].ordered for item in items)
        if ordered:
            return ordered
    return blocks.lists[0]


def _first_table(doc: Document, sec: Section | None) -> Table | None:
    if sec is None:
        return None
    return first_pipe_table(doc.lines, sec.line + 1, doc.own_end(sec))


def claim_of(text: str) -> str:
    """A Key Finding's claim: its text without leading or trailing label/confidence/source parts."""
    claim = text.strip()
    for _ in range(4):  # leading layers, e.g. `**High confidence.** [inference; source: ...]`
        before = claim
        claim = _LEAD_CONFIDENCE.sub("", _LEAD_LABEL.sub("", claim))
        if claim == before:
            break
    for _ in range(6):  # trailing layers, e.g. `... Source: arXiv:2302.06590. Confidence: high.`
        before = claim
        claim = _strip_trailing_parenthetical(claim)
        claim = _strip_trailing_sources(claim)
        # Both patterns are anchored at the claim's end (the label's starts with `\s*`, so a regex
        # search tries every position of the claim); a claim whose end (past white space, `*` and
        # `.`) is not the pattern's last letter or `]` cannot match (under re.I only H, M, W match
        # h, m, w), so those skip the search.
        if claim.rstrip().rstrip("*.")[-1:] in _CONFIDENCE_LAST:
            claim = _cut_trailing_confidence(claim)
        if claim.rstrip().rstrip("*.")[-1:] == "]":
            claim = _cut_trailing_label(claim)
        claim = claim.strip()
        if claim == before:
            break
    return claim


def _cut_trailing_confidence(text: str) -> str:
    """Cut a trailing `Confidence: high.` (or `**medium confidence**`'s like, as the pattern says).
    The pattern is anchored at the end, so its leftmost match is the longest suffix it matches, which
    the reversed pattern's greedy match from the reversed text's start finds."""
    match = _TRAIL_CONFIDENCE_REVERSED.match(text[::-1])
    return text[: len(text) - match.end()] if match else text


def _cut_trailing_label(text: str) -> str:
    """Cut a trailing `[label ...]` (with `**` around it, a `.` after it, and the white space before
    it). The leftmost match of the end-anchored pattern starts at the first `[label` after the last
    `]` but one, which the reversed pattern's greedy bracket content, given back from that `]`, finds
    first."""
    match = _TRAIL_LABEL_REVERSED.match(text[::-1])
    return text[: len(text) - match.end()] if match else text


def _strip_trailing_sources(text: str) -> str:
    """Cut a `Source(s): ...` tail that starts a sentence outside any bracket."""
    # The pattern is tried at every white space of the claim; it needs `source` and a `:`, and under
    # re.I the letters of `ource` match only themselves in either case, so most claims skip it.
    lowered = text.lower()
    if ":" not in text or "ource" not in lowered:
        return text
    # No match starts before the white space and `*`s in front of the first `ource` (a match is
    # such a run, then `source`): the search starts there. Offsets in the lowered text are the
    # text's unless a character lowered to two (only U+0130 does).
    start = lowered.find("ource") - 1
    if len(lowered) == len(text):
        while start > 0 and (text[start - 1].isspace() or text[start - 1] == "*"):
            start -= 1
    else:
        start = 0
    return _cut_at_sources(text, max(start, 0))


def _cut_at_sources(text: str, start: int) -> str:
    """The text before the first `Source(s):` from `start` on that ends a sentence outside any
    bracket, else the text."""
    for match in _TRAIL_SOURCES.finditer(text, start):
        head = text[: match.start()]
        if (
            head.rstrip().endswith((".", "!", "?", ")", "]", "*"))
            and head.count("(") == head.count(")")
            and head.count("[") == head.count("]")
        ):
            return head.rstrip()
    return text


def _strip_trailing_parenthetical(text: str) -> str:
    """Remove a final balanced `(...)` or `[...]` that carries a label, confidence or source."""
    stripped = text.rstrip().rstrip(".").rstrip()
    if not stripped or stripped[-1] not in ")]":
        return text
    close = stripped[-1]
    opener = "(" if close == ")" else "["
    depth = 0
    # Only the brackets matter, and only back to the opener that balances the last one: walk them
    # from the end with str.rfind (a regex finding every bracket of the claim cost more).
    end = len(stripped)
    while (i := max(stripped.rfind(opener, 0, end), stripped.rfind(close, 0, end))) >= 0:
        if stripped[i] == close:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                if _CARRIES_LABEL.search(stripped, i):
                    return stripped[:i].rstrip()
                return text
        end = i
    return text


def _evidence_rows(table: Table | None) -> tuple[EvidenceRow, ...]:
    if table is None:
        return ()
    names = [h.lower() for h in table.header]

    def column(word: str, default: int) -> int:
        return next((i for i, h in enumerate(names) if word in h), default)

    claim_i, source_i, conf_i, notes_i = (
        column("claim", 0),
        column("source", 1),
        column("confid", 2),
        column("note", 3),
    )

    # the four cells of a row in one C call, a row short of a column padded with "" for it
    pick = operator.itemgetter(claim_i, source_i, conf_i, notes_i)
    top = max(claim_i, source_i, conf_i, notes_i) + 1
    rows = []
    for row in table.rows:
        claim, source, confidence, notes = pick(row.cells + ("",) * (top - len(row.cells)))
        rows.append(EvidenceRow(row.line, claim, source, confidence, notes, row.cells))
    return tuple(rows)


def _sources(doc: Document, sec: Section | None) -> tuple[SourceEntry, ...]:
    """The entries of every list in Sources, its subsections included (authors file sources they
    found but did not consult under `### Identified but not consulted`)."""
    if sec is None:
        return ()
    blocks = parse_region(doc.lines, sec.line + 1, sec.end_line)
    return tuple(
        SourceEntry(item.line, item.checked, item.text, urls_in(item.text), item.end_line)
        for items in blocks.lists
        for item in items
    )


def urls_in(text: str) -> tuple[str, ...]:
    """URLs in text, trailing punctuation trimmed, in order, without duplicates."""
    found: list[str] = []
    for match in URL.finditer(text):
        url = match.group(0).rstrip(".,;:!?*_")
        if url not in found:
            found.append(url)
    return tuple(found)
