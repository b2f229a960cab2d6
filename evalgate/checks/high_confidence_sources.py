"""high_confidence_sources: the review prompt's peer-reviewer rule on confidence, "**High** requires
multiple independent primary or credible secondary sources ...; flag if fewer than two independent
sources are cited", and the protocol's ("count the distinct sources cited in its trailing
parenthetical; if fewer than two are present, or if multiple citations share the same originating
organisation, downgrade to "medium" confidence or add a second independent source").

Read on every Key Finding rated high (its label part: `high confidence`, `confidence: high`,
`[high]`) and, with `evidence_map` (params), every Evidence Map row whose confidence cell says high.
The sources a claim cites are its URLs, DOIs and arXiv identifiers; two are independent when they
come from different organisations: a DOI or an arXiv identifier names its own work, a page of a
`platforms` host (a paper's, a video's: 0 path segments) is its own source or its author's
(github.com/OWNER: 1 segment), and any other two pages of one host are one organisation's. A claim
that names its sources without an address (`source: Smith 2020; NIST`) is counted by its names:
two or more cannot be told apart here and pass; one, or none at all, is a finding. Met (5, or 1
on a binary rubric) with none; any fails.
"""

from __future__ import annotations

import re

from evalgate.checks import CheckOutcome
from evalgate.checks.source_keys import identifier_keys, url_key
from evalgate.document import Document
from evalgate.document.findings import urls_in
from evalgate.results import Finding
from evalgate.rubrics.params import HighConfidenceSourcesParams

DEFAULTS = HighConfidenceSourcesParams()
# High confidence in a label part; `confidence: high for the general claim, medium for ...` counts.
_HIGH = re.compile(
    r"\bhigh(?:[ \t]+|-)confidence\b|\bconfidence\b[^.;,)\]\n]{0,12}?\bhigh\b"
    r"|[\[(][ \t*_]*high[ \t*_]*[\])]|;[ \t]*high[ \t]*[;)]",
    re.I,
)
_SOURCE_LABEL = re.compile(r"\bsources?[ \t*_]*:", re.I)
_CONFIDENCE_WORD = re.compile(r"\bconfidence\b", re.I)
_CELL_MARKUP = re.compile(r"[*_`\s]+")
# Between two sources named without an address: `;`, `,`, `+`, `and`, a line break in a cell.
_SEPARATOR = re.compile(r"[;,+]|\band\b|<br\s*/?>", re.I)
_LETTER = re.compile(r"[^\W\d_]")


def organisation(url: str, platforms: dict[str, int]) -> str:
    """What one independent source is for this URL (see the module's docstring)."""
    ids = identifier_keys(url)
    if ids:
        return min(ids)
    key = url_key(url)
    host, _, path = key.partition("/")
    host = host.split("@")[-1].split(":")[0]
    segments = platforms.get(host)
    if segments is None and host.startswith(("m.", "en.", "mobile.")):
        segments = platforms.get(host.split(".", 1)[1])
    if segments is None:
        return host
    if segments == 0:
        return key
    return "/".join([host, *path.split("/")[:segments]])


def independent_sources(text: str, platforms: dict[str, int], named_in: str | None = None) -> tuple[int, str]:
    """How many independent sources `text` cites, and how they read ("2 pages of learn.microsoft.com",
    "no source"), for the message. `named_in`: where sources may be named without an address (a
    source cell); by default the `source:` parts of `text`. Each `;`-separated name that holds no
    address counts as one source."""
    keys: dict[str, int] = {}
    for url in urls_in(text):
        org = organisation(url, platforms)
        keys[org] = keys.get(org, 0) + 1
    for key in identifier_keys(text):  # a DOI or arXiv identifier written without its URL
        keys.setdefault(key, 1)
    parts = [named_in] if named_in is not None else _source_parts(text)
    parts = [_CONFIDENCE_WORD.split(part, 1)[0] for part in parts]  # `source: X. Confidence: high`
    named = [
        name
        for part in parts
        for name in (n.strip(" .;,*_") for n in _SEPARATOR.split(part))
        if name and not urls_in(name) and not identifier_keys(name) and _LETTER.search(name)
    ]
    shown = [f"{n} pages of {k}" if n > 1 else k for k, n in keys.items()] + [f'"{n}"' for n in named]
    count = len(keys) + len(named)
    return count, ", ".join(shown) if shown else "no source"


def _source_parts(text: str) -> list[str]:
    """What follows each `source:` up to the end of the bracket or parenthesis it is in (its own
    parentheses, `Smith (2020)`, kept), or to the next `source:`."""
    parts = []
    labels = list(_SOURCE_LABEL.finditer(text))
    bounds = [m.start() for m in labels[1:]] + [len(text)]
    for match, bound in zip(labels, bounds, strict=False):
        # up to the next `source:` at most, so each character is read once (linear on any text)
        depth, end = 0, bound
        for i in range(match.end(), end):
            ch = text[i]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth < 0:
                    end = i
                    break
        parts.append(text[match.end() : end])
    return parts


def _finding(line: int, what: str, count: int, shown: str, need: int, end_line: int | None = None) -> Finding:
    if count == 0:  # sources named in its words (a book, a firm) are not cited: say what is missing
        cites = "no source: no URL, DOI or arXiv identifier, and no `source:` part naming one"
    else:
        cites = f"{count} independent source{'s' if count > 1 else ''} ({shown})"
    return Finding(
        line,
        f"{what} is rated high confidence but cites {cites}; the review asks for at least {need} "
        "independent sources for High: add one or rate it medium (peer-reviewer)",
        end_line=end_line,
    )


def check(document: Document, params: HighConfidenceSourcesParams | None = None) -> CheckOutcome:
    """One finding per high-confidence claim that cites fewer than `min_sources` independent sources."""
    p = params or DEFAULTS
    findings = []
    for kf in document.key_findings:
        labels = kf.text.replace(kf.claim, " ", 1) if kf.claim and kf.claim in kf.text else kf.text
        if not _HIGH.search(labels):
            continue
        count, shown = independent_sources(kf.text, p.platforms)
        if count < p.min_sources:
            what = f"Key Finding {kf.number}"
            findings.append(_finding(kf.line, what, count, shown, p.min_sources, kf.end_line))
    if p.evidence_map:
        for row in document.evidence_rows:
            if _CELL_MARKUP.sub(" ", row.confidence).strip().lower().split(" ")[:1] != ["high"]:
                continue
            count, shown = independent_sources(row.source, p.platforms, named_in=row.source)
            if count < p.min_sources:
                claim = " ".join(row.claim.split())
                claim = claim if len(claim) <= 60 else claim[:59] + "…"
                what = f'the Evidence Map row "{claim}"'
                findings.append(_finding(row.line, what, count, shown, p.min_sources))
    return CheckOutcome(1 if findings else 5, tuple(findings))
