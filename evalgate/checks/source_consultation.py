"""source_consultation: the Sources checklist marks each source consulted, and consulted sources are cited.

A source is consulted when its checkbox is `[x]` (or `[X]`); `[ ]` and a plain bullet without a box
are not marked consulted. A consulted source is cited when one of its URLs appears in Research
Skill Output or Findings: the URL without its scheme, leading `www.`, trailing `/` and `#fragment`
is found, lower-cased, in that text, so `http://x.org/a/` cites `https://www.x.org/a`.
"""

from __future__ import annotations

from evalgate.checks import CheckOutcome
from evalgate.document import Document, Section, SourceEntry
from evalgate.document.asciifold import ascii_lowered
from evalgate.results import Finding


def normalise_url(url: str) -> str:
    """A URL reduced to what identifies the page, for matching citations."""
    u = url.strip().lower()
    for scheme in ("https://", "http://"):
        if u.startswith(scheme):
            u = u[len(scheme) :]
    if u.startswith("www."):
        u = u[4:]
    return u.split("#", 1)[0].rstrip("/")


def _citing_raw(document: Document) -> str:
    """Research Skill Output and Findings, as written."""
    parts = []
    for key in ("research skill output", "findings"):
        section = _top(document, key)
        if section is not None:
            parts.append("\n".join(document.lines[section.line : section.end_line]))
    return "\n".join(parts)


class _Cited:
    """Whether a normalised URL occurs in Research Skill Output and Findings, lower-cased (a substring
    test: cheaper than extracting every URL of a 100 KB item). A normalised URL has no scheme, `www.`,
    trailing `/` or fragment, so it is a substring of every way of writing the same page's URL
    (`https://www.x.org/a/#b` holds `x.org/a`). Answered on UTF-8 bytes for ASCII URLs (see
    `evalgate.document.asciifold`), and on the lower-cased text only for a URL that is not ASCII."""

    def __init__(self, document: Document) -> None:
        self.raw = _citing_raw(document)
        self.ascii = ascii_lowered(self.raw)
        self.text: str | None = None

    def __contains__(self, url: str) -> bool:
        if self.ascii is not None and url.isascii():
            return url.encode("ascii") in self.ascii
        if self.text is None:
            self.text = self.raw.lower()
        return url in self.text


def _top(document: Document, key: str) -> Section | None:
    matches = [s for s in document.sections if s.key == key]
    return min(matches, key=lambda s: (s.level, s.line)) if matches else None


def check(document: Document, params: None = None) -> CheckOutcome:
    """Score how many sources are marked consulted and whether those are cited (anchors 1-5)."""
    sources = document.sources
    if not sources:
        line = document.sources_section.line if document.sources_section else 1
        return CheckOutcome(1, (Finding(line, "no Sources list found"),))
    findings: list[Finding] = []
    unchecked = [s for s in sources if not s.checked]
    for s in unchecked:
        box = "an unchecked [ ] box" if s.checked is False else "no [x] box"
        findings.append(Finding(s.line, f"source has {box}, so it is not marked consulted: {_name(s)}"))
    checked = [s for s in sources if s.checked]
    if not checked:
        return CheckOutcome(1, tuple(findings))
    cited = _Cited(document)
    uncited = [s for s in checked if not any(normalise_url(u) in cited for u in s.urls)]
    for s in uncited:
        why = "has no URL" if not s.urls else "is never cited in Research Skill Output or Findings"
        findings.append(Finding(s.line, f"consulted source {why}: {_name(s)}"))
    return CheckOutcome(score(len(unchecked), len(uncited), len(checked)), tuple(findings))


def score(unchecked: int, uncited: int, checked: int) -> int:
    """The anchor for a list with these counts (at least one source checked)."""
    if unchecked >= 2 or uncited * 2 > checked:
        return 2
    if unchecked == 1 or uncited >= 3:
        return 3
    return 4 if uncited else 5


def _name(source: SourceEntry) -> str:
    text = source.text
    return text if len(text) <= 80 else text[:77] + "..."
