"""evidence_map_coverage: every Key Finding has an Evidence Map row; rows are sourced and labelled.

Matching findings to rows: Evidence Map rows are usually shortened paraphrases of the findings, so a
finding and a row match on the share of their content words (lower-cased, 2+ characters, crudely
stemmed; common function words, labels and URLs dropped) they have in common, over the smaller set.
Pairs are taken greedily, best first, one row per finding; a pair counts when that share reaches
MATCH_THRESHOLD (the rubric's `match_threshold` param).
Findings still unmatched then take the unused rows in document order when they share at least
ORDER_THRESHOLD (`order_threshold`) of their words. A finding left without a row is reported on its own line.
Counting backs this up: with fewer rows than findings, at least the difference is uncovered
whatever the words say.

Before any of that, a row whose claim cell names Key Findings by number (`KF3`, `KF-3`, `KF#3`,
`Key Finding 3`, `Finding 3`, `KF1/KF2`) is that finding's row, whatever its words: some items
write the claim cell as the id alone. A number with no such finding names nothing, and the row is
matched by its words like any other. A bare `F3` is not read as an id (`F1` is also a score).
"""

from __future__ import annotations

import re

from evalgate.checks import CheckOutcome
from evalgate.document import Document, EvidenceRow, KeyFinding
from evalgate.document.findings import DOI, URL
from evalgate.results import Finding
from evalgate.rubrics.params import EvidenceMapCoverageParams

DEFAULTS = EvidenceMapCoverageParams()
MATCH_THRESHOLD = DEFAULTS.match_threshold
ORDER_THRESHOLD = DEFAULTS.order_threshold
_LABEL = re.compile(r"^\s*(?:\*\*|__)?\[(?:fact|inference|assumption)\b", re.I)
# A URL written without a scheme: a host (labels and a top-level domain of letters) and a path.
_BARE_URL = re.compile(
    r"(?<![\w@/.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}/[^\s|<>\"'()\[\],;]", re.I
)
_ARXIV_ID = re.compile(r"\barxiv:\s?(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})", re.I)
# A Key Finding named by number in a claim cell.
_FINDING_ID = re.compile(r"(?<![\w-])(?:KF|(?:key\s+)?findings?)\s*[-#]?\s*(\d{1,3})(?!\d)", re.I)
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "but",
        "not",
        "with",
        "that",
        "this",
        "from",
        "into",
        "onto",
        "than",
        "then",
        "they",
        "them",
        "their",
        "there",
        "these",
        "those",
        "was",
        "were",
        "has",
        "have",
        "had",
        "its",
        "can",
        "may",
        "might",
        "must",
        "should",
        "would",
        "could",
        "will",
        "does",
        "did",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "how",
        "what",
        "all",
        "any",
        "each",
        "every",
        "more",
        "most",
        "less",
        "least",
        "such",
        "only",
        "also",
        "very",
        "because",
        "therefore",
        "thus",
        "via",
        "per",
        "across",
        "over",
        "under",
        "between",
        "within",
        "without",
        "about",
        "fact",
        "inference",
        "assumption",
        "source",
        "sources",
        "confidence",
        "high",
        "medium",
        "low",
    ]
)


def content_words(text: str) -> set[str]:
    """Content words of a claim or row, for matching."""
    lowered = text.lower()  # URL is case-blind, so it cuts the same spans from the lowered text
    if "://" in lowered or "www." in lowered:
        lowered = URL.sub(" ", lowered)
    # The runs of a-z and 0-9 (`[a-z0-9]+`), split out in C: encoded as ASCII every other character
    # is one `?`, and every byte but a-z and 0-9 becomes a space (a quarter of `findall`'s time).
    words = set(lowered.replace("'s", "").encode("ascii", "replace").translate(_SEPARATE).split())
    stems = _STEMS
    if len(stems) > 200_000:  # a bound on the memo; the corpus has ~12,000 distinct words
        stems.clear()
    for w in words.difference(stems):  # words not met before (set - dict runs in C)
        stem = _stem(w.decode("ascii")) if len(w) > 1 else None  # a word is 2+ characters
        stems[w] = _NO_STEM if stem is None else stem
    found = set(map(stems.__getitem__, words))
    found.discard(_NO_STEM)  # a set, not a frozenset: that would be built twice for most claims
    return found


_SEPARATE = bytes(c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789" else 0x20 for c in range(256))
_NO_STEM = " "  # what a stop word or a single character stems to (a stem holds no space)
_STEMS: dict[bytes, str] = {}  # word -> its stem, or _NO_STEM


def _stem(word: str) -> str | None:
    """A crude stem (suffix off, first six letters) so 'ranked'/'ranking' and 'agents'/'agent' meet;
    None for a stop word."""
    if word in _STOP:
        return None
    return _SUFFIX.sub("", word)[:6]


def match_rows(
    key_findings: tuple[KeyFinding, ...],
    rows: tuple[EvidenceRow, ...],
    match_threshold: float = MATCH_THRESHOLD,
    order_threshold: float = ORDER_THRESHOLD,
) -> dict[int, EvidenceRow]:
    """Key Finding number -> its Evidence Map row, for the findings that have one."""
    matched: dict[int, EvidenceRow] = {}
    used: set[int] = set()
    numbers = {kf.number for kf in key_findings}
    for i, row in enumerate(rows):  # rows that name their findings by number
        for number in named_findings(row.claim) & numbers:
            if number not in matched:
                matched[number] = row
                used.add(i)
    kf_words = {kf.number: content_words(kf.claim) for kf in key_findings if kf.number not in matched}
    row_words = [content_words(row.claim) if i not in used else set() for i, row in enumerate(rows)]
    pairs: list[tuple[float, int, int]] = []  # (-share, finding, row): best first as they sort
    # Every finding meets every row (~40,000 pairs over the corpus): the rows' sizes are taken
    # once, and rows or findings without content words never pair.
    sized = [(i, rw, len(rw)) for i, rw in enumerate(row_words) if rw]
    for number, words in kf_words.items():
        if not words:
            continue
        size = len(words)
        for i, rw, row_size in sized:
            share = len(words & rw) / (size if size < row_size else row_size)
            if share >= match_threshold:
                pairs.append((-share, number, i))
    pairs.sort()
    for _share, number, i in pairs:
        if number not in matched and i not in used:
            matched[number] = rows[i]
            used.add(i)
    # Second pass, in document order: rows paraphrase heavily, so a finding left over may take the
    # next unused row if they still share a few words (rows mostly follow the findings' order).
    spare = [i for i in range(len(rows)) if i not in used]
    leftover = [kf for kf in key_findings if kf.number not in matched]
    for kf, i in zip(leftover, spare, strict=False):
        words, rw = kf_words[kf.number], row_words[i]
        if words and rw and len(words & rw) / min(len(words), len(rw)) >= order_threshold:
            matched[kf.number] = rows[i]
    return matched


def named_findings(claim: str) -> set[int]:
    """The Key Finding numbers a claim cell names (`KF3`, `Key Finding 3`, `Finding 3`)."""
    lowered = claim.lower()  # most claims name none: the pattern only runs where it can match
    if "kf" not in lowered and "finding" not in lowered:
        return set()
    return {int(m.group(1)) for m in _FINDING_ID.finditer(claim)}


def is_source_backed(cell: str) -> bool:
    """A source cell carries at least one URL or DOI: a URL may be written without its scheme
    (`arxiv.org/abs/2305.19118`), a host and a path; a bare site name (`fly.io`) is not one. An
    arXiv identifier (`arXiv:2404.16130`) names its paper as a DOI does."""
    return bool(
        URL.search(cell)
        or DOI.search(cell)
        or ("/" in cell and _BARE_URL.search(cell))
        or ("rxiv" in cell.lower() and _ARXIV_ID.search(cell))
    )


def check(document: Document, params: EvidenceMapCoverageParams | None = None) -> CheckOutcome:
    """Score Evidence Map coverage of the Key Findings and the rows' sources and labels (anchors 1-5)."""
    p = params or DEFAULTS
    if document.evidence_map is None:
        section = document.find_section("evidence map")
        line = section.line if section else 1
        return CheckOutcome(1, (Finding(line, "no Evidence Map table found", rule="no_evidence_map"),))
    rows = tuple(r for r in document.evidence_rows if any(map(str.strip, r.cells)))
    findings: list[Finding] = []
    matched = match_rows(document.key_findings, rows, p.match_threshold, p.order_threshold)
    unmatched = [kf for kf in document.key_findings if kf.number not in matched]
    # Counting is the floor: n findings and n-1 rows leave one uncovered whatever the words say
    # (a row that names several findings by number covers each of them). The rows are at least their
    # number's capacity, so the names are read only when fewer rows would leave more uncovered.
    missing = len(unmatched)
    if len(document.key_findings) - len(rows) > missing:
        numbers = {kf.number for kf in document.key_findings}
        capacity = len(rows) + sum(max(0, len(named_findings(r.claim) & numbers) - 1) for r in rows)
        missing = max(missing, len(document.key_findings) - capacity)
    for kf in unmatched:
        findings.append(
            Finding(
                kf.line,
                f"Key Finding {kf.number} has no matching Evidence Map row{_share_note(p)}",
                end_line=kf.end_line,
                rule="uncovered_finding",
                key="",  # the number moves when a finding is inserted above: counted by rule
            )
        )
    weak = 0
    for row in rows:
        problems = []
        if not is_source_backed(row.source):
            problems.append("its source cell has no URL or DOI")
        if not _LABEL.match(row.claim):
            problems.append("its claim cell does not begin with [fact], [inference] or [assumption]")
        if problems:
            weak += 1
            findings.append(Finding(row.line, "Evidence Map row: " + "; ".join(problems), rule="weak_row"))
    return CheckOutcome(score(missing, weak), tuple(findings))


def _share_note(params: EvidenceMapCoverageParams) -> str:
    """The configured threshold, named in a finding when it is not the shipped one (so the shipped
    rubric's messages stay as they were)."""
    if params.match_threshold == MATCH_THRESHOLD:
        return ""
    return f" (none shares {params.match_threshold:.0%} of its content words)"


def score(missing: int, weak: int) -> int:
    """The anchor for `missing` uncovered findings and `weak` unsourced or unlabelled rows."""
    if missing >= 2:
        return 1
    if missing == 1:
        return 2
    if weak == 0:
        return 5
    return 4 if weak <= 2 else 3
