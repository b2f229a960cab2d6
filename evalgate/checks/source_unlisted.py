"""Rule 2d1 of source_consultation: each distinct URL cited inline in Research Skill Output or Findings
has an entry in `## Sources` (research-prompt.md, "Inline-citation-to-Sources completeness check");
and which body lines that name a URL are notes on a failed access, which cite nothing.

A URL cited inline with no Sources entry is a finding on the first line that cites it; a page under a
listed address is that source's, and a link to the item itself or a URL named only in access notes is
no citation.
"""

from __future__ import annotations

import heapq

from evalgate.checks.source_citations import Body, top_section
from evalgate.checks.source_keys import identifier_keys, normalise_url, source_keys, url_key
from evalgate.checks.source_reasons import Phrases
from evalgate.document import Document
from evalgate.document.findings import urls_in
from evalgate.results import Finding


class NoteLines:
    """Whether a body line is a note on a failed access (holds an `access_notes` phrase), each line
    read once: a line that names several sources is asked about for each."""

    def __init__(self, notes: Phrases) -> None:
        self._notes = notes
        self._known: dict[int, bool] = {}

    def __call__(self, number: int, text: str) -> bool:
        known = self._known.get(number)
        if known is None:
            known = self._known[number] = self._notes.search(text)
        return known


def cited_outside_notes(body: Body, urls: list[str], notes: NoteLines) -> int | None:
    """The first body line that names one of these (normalised) URLs and is no note on a failed
    access; 0 when the body names them only in such notes; None when it does not name them."""
    # in order, read as far as needed (most entries and every unlisted URL have one URL)
    lines = body.mentions(urls[0]) if len(urls) == 1 else heapq.merge(*(body.mentions(url) for url in urls))
    named = None
    for number, text in lines:
        if not notes(number, text):
            return number
        named = 0
    return named


def unlisted_urls(
    document: Document,
    body: Body,
    notes: NoteLines,
    findings: list[Finding],
    urls: set[str],
    identifiers: set[str],
) -> int:
    """Rule 2d1: a finding for each URL cited inline with no Sources entry (one the body names only
    in notes on a failed access is not cited); how many there are. `urls` and `identifiers` are the
    keys of the Sources entries' URLs and the identifiers they state."""
    related: set[str] | None = None
    own = _own_name(document)
    count = 0
    under = _paths_under(urls)
    for citation in body.citations:
        key = url_key(citation.url)
        if key in urls or key.split("?", 1)[0] in urls or _is_under(key, under):
            continue  # listed, or a query on (or a page under) a listed address
        if identifiers and identifier_keys(citation.url) & identifiers:
            continue
        if own and _names_item(citation.url, own):
            continue  # the item's own file or page (its backlog or in-progress copy): not a source
        line = cited_outside_notes(body, [normalise_url(citation.url)], notes)
        if line == 0:
            continue  # named only in notes on a failed access
        count += 1
        if related is None:
            related = _related_keys(document)
        where = " (it is listed under ## Related, not Sources)" if source_keys(citation.url) & related else ""
        findings.append(
            Finding(
                line or citation.line,  # the first line citing it outside notes on a failed access
                f"{citation.url} is cited here but has no entry in ## Sources{where} (rule 2d1)",
                rule="unlisted_url",
            )
        )
    return count


def _paths_under(urls: set[str]) -> tuple[str, ...]:
    """The listed addresses a cited URL may sit under (`oecd.ai/en/incidents` for
    `oecd.ai/en/incidents/2024-11-21-aada`): those with a path, not a bare host, which would hold
    every page of a site; longest first, each with its `/`."""
    return tuple(sorted((u + "/" for u in urls if "/" in u.split("?", 1)[0]), key=len, reverse=True))


def _is_under(key: str, under: tuple[str, ...]) -> bool:
    """Whether a cited URL is a page under a listed address: its entry is that source's."""
    return key.startswith(under) if under else False


def _own_name(document: Document) -> str:
    """The item's file name without `.md`, lower-cased ('' when it has no path)."""
    name = document.path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[:-3] if name.endswith(".md") else ""


def _names_item(url: str, own: str) -> bool:
    """Whether a URL's last path segment is the item's own file or page (`own.md`, `own.html`)."""
    last = url_key(url).rsplit("/", 1)[-1].split("?", 1)[0]
    return last in (own + ".md", own + ".html", own)


def _related_keys(document: Document) -> set[str]:
    """The keys of the URLs in a top-level `## Related` section (some items list cited companion
    items there instead of in Sources; a finding says so)."""
    section = top_section(document, "related")
    if section is None:
        return set()
    keys: set[str] = set()
    for line in document.lines[section.line : section.end_line]:
        for url in urls_in(line):
            keys.update(source_keys(url))
    return keys
