"""source_consultation: every listed source is consulted or says why not, and every URL cited
inline has an entry in Sources (the protocol's rule 2d1).

The protocol asks the researcher to check every source the item lists ("Sources (starting points --
check all of them)", research-prompt.md) and, before the draft commit, to give every URL cited
inline across Research Skill Output and Findings an entry in `## Sources` (rule 2d1). The template
lists sources as `- [ ]` boxes, ticked when consulted. So, for each entry of Sources (its
subsections included):

- it is consulted when its box is ticked (`[x]`) or when the body (Research Skill Output and
  Findings) cites it, addresses compared as `source_keys` says, or by the `Author (Year)`
  label its display name gives (`source_names`: "Smith et al. (2024) found ...");
- an entry not consulted is allowed when the document says why: its text holds a `reasons` phrase
  ("checked, but ... was not used", "returned 403 in this session", ...), it sits under a heading or
  label line holding a `not_consulted_labels` phrase ("Identified but not consulted:"), the body
  lists it as a `[ ]` item or names it only in notes on a failed access (`access_notes`), or a
  consulted entry names the same work;
- otherwise it is a finding on its line, and lowers the score. So is an entry with no URL, DOI or
  arXiv identifier (the template: "Every source must include a URL").

A box that contradicts the body is a notice, which does not lower the score: `[ ]` on a source the
body cites (unless the entry says why it was not consulted), `[x]` on one whose URL it never cites,
`[x]` under a "not consulted" label.

Rule 2d1: each distinct URL cited inline in Research Skill Output or Findings with no Sources entry
is a finding on the first line that cites it; a page under a listed address is that source's, and a
link to the item itself or a URL named only in access notes is no citation (source_unlisted). The
score is the lower of the two parts' anchors (docs/checks.md).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter

from evalgate.checks import CheckOutcome
from evalgate.checks.source_citations import Body, cited_elsewhere
from evalgate.checks.source_keys import identifier_keys, normalise_url, url_key
from evalgate.checks.source_names import Label, Title, mentions, own_labels, unique_labels
from evalgate.checks.source_reasons import (
    ACCESS_NOTES,
    NOT_CONSULTED_LABELS,
    REASONS,
    Phrases,
    phrase_pattern,
)
from evalgate.checks.source_unlisted import NoteLines, cited_outside_notes, unlisted_urls
from evalgate.document import Document, SourceEntry
from evalgate.document.scan import THEMATIC_BREAK
from evalgate.results import Finding
from evalgate.rubrics.params import SourceConsultationParams

__all__ = ["check", "normalise_url", "score"]

DEFAULTS = SourceConsultationParams()
_TEMPLATE = "(the template asks every source for one)"
_LABEL_MARKUP = re.compile(r"^\s{0,3}(?:#{1,6}\s+)?|[*_`]+")
_TEMPLATE_URL = re.compile(r"url\d*")
_LINK_TEXT = re.compile(r"\s*\[([^\]]+)\]\(")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class _Entry:
    """A Sources entry as this check sees it."""

    source: SourceEntry
    keys: frozenset[str]  # what cites it: its URLs' keys and the identifiers it states
    label: str | None  # the heading or label line it sits under, if any
    cited_at: int | None  # the first body line that cites it
    # the body records it as not consulted: a `[ ]` item lists it, or it is named only in notes on a
    # failed access
    explained_in_body: bool


def _entries(
    document: Document, body: Body, notes: NoteLines, not_consulted: tuple[Phrases, ...]
) -> tuple[list[_Entry], set[str], set[str]]:
    """The Sources entries that name a source, with their keys, their label and where the body
    first cites them; and the keys of every entry's URLs and the identifiers every entry states
    (what rule 2d1 reads as listed). Left out of the entries: the template's own examples
    (`[Organisation Title](https://url)`) and an item that only heads a nested list (`- Related prior
    research:`).

    An entry's label is the last heading or paragraph line between the previous entry (or the
    section's heading) and it; entries after it share it until another label line, and a thematic
    break (`---`) ends it."""
    out: list[_Entry] = []
    listed_urls: set[str] = set()
    listed_identifiers: set[str] = set()
    section = document.sources_section
    previous_end = section.line if section is not None else 0
    label: str | None = None
    # made when first needed: most entries are cited by URL in the body
    names: dict[int, tuple[Label, ...]] | None = None  # `Author (Year)` labels and titles, by entry line
    elsewhere: dict[str, int] | None = None
    for source in document.sources:
        for number in range(previous_end + 1, source.line):
            line = document.lines[number - 1]
            if line.strip():
                label = (
                    None if THEMATIC_BREAK.match(line) else _LABEL_MARKUP.sub("", line).strip(" :") or None
                )
        previous_end = max(previous_end, source.end_line)
        urls = {url_key(u) for u in source.urls}
        identifiers = identifier_keys(source.text)
        listed_urls |= urls
        listed_identifiers |= identifiers
        if _is_template_example(source.urls) or (source.end_line > source.line and source.text.endswith(":")):
            continue
        # where the body cites one of its URLs as such, else quotes it (inside another address),
        # else writes a DOI or arXiv identifier it states: the first line found that way
        cited = [at for key in urls if (at := body.url_line(key)) is not None]
        # the URLs normalised, for searches of the body's text: none is made where a ticked entry
        # is cited by URL in a body without `[ ]` items (most entries)
        searched = not cited or not source.checked or body.unticked
        normalised = [normalise_url(u) for u in source.urls] if searched else []
        if not cited:
            cited = [at for u in normalised if (at := body.find(u)) is not None]
        if not cited:
            cited = [at for key in identifiers if (at := body.identifier_line(key)) is not None]
        if not cited:  # cited in Context, Scope, Approach or Output
            if elsewhere is None:
                elsewhere = cited_elsewhere(document)
            cited = [at for key in urls | identifiers if (at := elsewhere.get(key)) is not None]
        explained = bool(body.unticked) and any(body.lists_unticked(u) for u in normalised)
        if cited and not source.checked and cited_outside_notes(body, normalised, notes) == 0:
            cited, explained = [], True
        if not cited and not explained and own_labels(source):  # (the others' are read only then)
            if names is None:
                names = unique_labels(document.sources)
            if source.line in names:
                cited, explained = _cited_by_name(body, names[source.line], not_consulted)
        out.append(
            _Entry(source, frozenset(urls | identifiers), label, min(cited) if cited else None, explained)
        )
    return out, listed_urls, listed_identifiers


def _cited_by_name(
    body: Body, names: tuple[Label, ...], not_consulted: tuple[Phrases, ...]
) -> tuple[list[int], bool]:
    """(lines citing it, explained) for an entry the body names by its `Author (Year)` label
    only: the first line that names it is a citation, unless every sentence that does says in the
    words of `not_consulted` (access notes, not-consulted labels) that it was not consulted
    ("Smith et al. (2024) was not accessed"); a body `[ ]` item naming it records it as not
    consulted. (The sentence, not the line: "... when gradient information is unavailable. Source:
    Smith (1997)." cites it.)"""
    found = [
        mentions(
            name, body.raw, body.numbers, lowered=body.ascii_lowered() if isinstance(name, Title) else None
        )
        for name in names
        if body.may_write(name)
    ]
    # the first line whose sentence is no such note, sentences read in line order as far as needed
    # (each name's places come in the text's order, the lines' where the body's sections are in order)
    lines: Iterable[tuple[int, str]]
    if not body.in_order:
        lines = sorted(chain(*found), key=itemgetter(0))
    else:
        lines = found[0] if len(found) == 1 else heapq.merge(*found, key=itemgetter(0))
    named = False
    for number, text in lines:
        if not any(p.search(text) for p in not_consulted):
            return [number], False
        named = True
    unticked = body.unticked
    numbers = [0] * (unticked.count("\n") + 1)
    listed = bool(unticked) and any(next(mentions(name, unticked, numbers, True), None) for name in names)
    return [], named or listed


def _is_template_example(urls: tuple[str, ...]) -> bool:
    """The template's example entries point at `https://url` (`url1`, `url2`)."""
    if not urls or "url" not in urls[0].lower():  # (most entries; a URL normalised is a piece of this)
        return False
    return all(u.startswith("url") and _TEMPLATE_URL.fullmatch(u) for u in map(normalise_url, urls))


def _same_work(words: list[str], consulted: list[list[str]]) -> bool:
    """Whether a consulted entry names the same work under a longer or equal title (`Fagan (1976)
    Design and Code Inspections ...` and `..., IBM reprint`): the work was consulted through the
    other copy. Titles of at least four words compare word by word: `words` is the entry's title
    and `consulted` the consulted entries' titles of four words or more."""
    return any(theirs[: len(words)] == words or words[: len(theirs)] == theirs for theirs in consulted)


def _title_words(source: SourceEntry) -> list[str]:
    link = _LINK_TEXT.match(source.text)
    return _WORD.findall((link.group(1) if link else source.text).lower())


def check(document: Document, params: SourceConsultationParams | None = None) -> CheckOutcome:
    """Score whether each source was consulted or says why not, and rule 2d1 (anchors 1-5)."""
    p = params or DEFAULTS
    section = document.sources_section
    if section is None:
        return CheckOutcome(1, (Finding(1, "no ## Sources section found", rule="no_sources"),))
    reasons = phrase_pattern(p.reasons if p.reasons is not None else REASONS)
    labels = phrase_pattern(
        p.not_consulted_labels if p.not_consulted_labels is not None else NOT_CONSULTED_LABELS
    )
    notes = phrase_pattern(p.access_notes if p.access_notes is not None else ACCESS_NOTES)
    body = Body(document)
    note_lines = NoteLines(notes)
    entries, listed_urls, listed_identifiers = _entries(document, body, note_lines, (notes, labels))
    if not entries:
        return CheckOutcome(
            1, (Finding(section.line, "the Sources section lists no sources", rule="no_sources"),)
        )
    findings: list[Finding] = []
    consulted = [e for e in entries if e.source.checked or e.cited_at is not None]
    consulted_titles: list[list[str]] | None = None  # their titles' words, read when first needed
    under: dict[str, bool] = {}  # whether a label says "not consulted" (entries share their label)
    unexplained = 0
    for entry in entries:
        source = entry.source
        label = entry.label
        if label is not None and label not in under:
            under[label] = labels.search(label)
        listed_unconsulted = label is not None and under[label]
        if source.checked or entry.cited_at is not None:
            # an unticked entry that says why it was not consulted keeps its own account, though
            # the body names its URL (often only as what another source links to): no notice
            said = not source.checked and (listed_unconsulted or reasons.search(_text_without_urls(source)))
            findings.extend(_notices(entry, listed_unconsulted, said))
            # consulted, say the box or the body, but nothing to check it by (an unticked entry
            # that says why it was not consulted, named by the body, keeps its own account)
            if not entry.keys and not said:
                unexplained += 1
                findings.append(
                    Finding(
                        source.line,
                        f"source has no URL, DOI or arXiv identifier {_TEMPLATE}: {_name(source)}",
                        rule="source_without_link",
                    )
                )
            continue
        if listed_unconsulted or entry.explained_in_body or reasons.search(_text_without_urls(source)):
            continue  # not consulted, and the document says why
        words = _title_words(source)
        if len(words) >= 4:
            if consulted_titles is None:
                titles = (_title_words(e.source) for e in consulted)
                consulted_titles = [t for t in titles if len(t) >= 4]
            if _same_work(words, consulted_titles):
                continue  # consulted as another copy
        unexplained += 1
        box = "its box is unticked" if source.checked is False else "it has no [x] box"
        cited = (
            "its URL is cited nowhere in Research Skill Output or Findings"
            if entry.keys
            else f"it has no URL {_TEMPLATE}"
        )
        why = f"{box}, {cited}, and it gives no reason for not consulting it"
        findings.append(
            Finding(source.line, f"source not shown consulted: {why}: {_name(source)}", rule="not_consulted")
        )
    unlisted = unlisted_urls(document, body, note_lines, findings, listed_urls, listed_identifiers)
    if not consulted:
        return CheckOutcome(1, tuple(findings))
    return CheckOutcome(score(unexplained, len(entries), unlisted, len(body.citations)), tuple(findings))


def _notices(entry: _Entry, listed_unconsulted: bool, said_why: bool) -> list[Finding]:
    """Notices for a consulted entry whose box contradicts the body (they do not lower the score)."""
    source = entry.source
    checked = source.checked
    if not (checked and (entry.cited_at is None or listed_unconsulted)) and not (
        checked is False and entry.cited_at is not None and not said_why
    ):
        return []  # (most entries: the box agrees with the body)
    name = _name(source)
    out = []
    if checked is False and entry.cited_at is not None and not said_why:
        out.append(f"the box is unticked, but the source is cited on line {entry.cited_at}: {name}")
    if checked and entry.cited_at is None and entry.keys:
        out.append(
            f"the box is ticked, but its URL is cited nowhere in Research Skill Output or Findings: {name}"
        )
    if checked and listed_unconsulted:
        out.append(f"the box is ticked, but the source is listed under '{entry.label}': {name}")
    return [Finding(source.line, message, notice=True, rule="box_contradicts_body") for message in out]


def _text_without_urls(source: SourceEntry) -> str:
    text = source.text
    for url in source.urls:
        text = text.replace(url, " ")
    return text


def score(unexplained: int, sources: int, unlisted: int, cited: int) -> int:
    """The anchor (some source consulted) for `unexplained` of the `sources` entries that are
    neither consulted nor explained, or have no URL, and `unlisted` of the `cited` distinct URLs
    cited inline that have no Sources entry: the lower of the two parts' anchors."""
    return min(_listing_anchor(unexplained, sources), _completeness_anchor(unlisted, cited))


def _listing_anchor(unexplained: int, sources: int) -> int:
    if unexplained * 2 > sources:
        return 2
    return 5 if unexplained == 0 else 4 if unexplained <= 2 else 3


def _completeness_anchor(unlisted: int, cited: int) -> int:
    """Rule 2d1's part: a few URLs without an entry (three, or a tenth of those cited) is 4, up to
    half is 3, more is 2."""
    if unlisted == 0:
        return 5
    if unlisted <= 3 or unlisted * 10 <= cited:
        return 4
    return 3 if unlisted * 2 <= cited else 2


def _name(source: SourceEntry) -> str:
    text = source.text
    return text if len(text) <= 80 else text[:77] + "..."
