"""key_finding_word_count: Key Findings is a list of 6-12 items, each claim at least 20 words.

A word is a whitespace-separated token of the claim (the item without its label, confidence and
source parts, see `evalgate.document.findings.claim_of`) once URLs and markdown markup are removed, that holds
at least one letter or digit. So reflowing a finding over several lines, `1.` vs `1)` markers, bold
or code spans and trailing spaces never change a count; `—` or `-` alone is not a word.
"""

from __future__ import annotations

import re

from evalgate.checks import CheckOutcome
from evalgate.document import Document
from evalgate.document.findings import URL
from evalgate.results import Finding

MIN_WORDS = 20
MIN_FINDINGS, MAX_FINDINGS = 6, 12
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`~]+")
# A white-space-delimited token holding a letter or digit: the search only ever starts at a token's
# first character (a failed token fails from every later start in it too) and `\S*` takes the rest.
_WORD_TOKEN = re.compile(r"\S*?[^\W_]\S*")


def claim_words(claim: str) -> int:
    """The number of words in a claim (URLs, link targets and markup removed)."""
    # Each pattern is applied only where its one required text is (URL is case-blind: `www.` in
    # any case, or `://`).
    text = _LINK.sub(r"\1", claim) if "](" in claim else claim
    if "://" in text or "www." in text.lower():
        text = URL.sub(" ", text)
    if "*" in text or "_" in text or "`" in text or "~" in text:
        text = _MARKUP.sub("", text)
    return len(_WORD_TOKEN.findall(text))


def check(document: Document) -> CheckOutcome:
    """Score the Key Findings count and the length of each claim (anchors 1-5)."""
    section = document.key_findings_section
    findings_list = document.key_findings
    if section is None or not findings_list:
        line = section.line if section is not None else 1
        return CheckOutcome(1, (Finding(line, "no Key Findings list found"),))
    findings: list[Finding] = []
    short = 0
    for kf in findings_list:
        words = claim_words(kf.claim)
        if words < MIN_WORDS:
            short += 1
            findings.append(
                Finding(
                    kf.line,
                    f"Key Finding {kf.number} has {words} words in its claim; {MIN_WORDS} are required",
                    end_line=kf.end_line,
                )
            )
    count = len(findings_list)
    if not MIN_FINDINGS <= count <= MAX_FINDINGS:
        findings.append(
            Finding(
                section.line, f"{count} Key Findings; the protocol asks for {MIN_FINDINGS}-{MAX_FINDINGS}"
            )
        )
    return CheckOutcome(score(count, short), tuple(findings))


def score(count: int, short: int) -> int:
    """The anchor for `count` findings of which `short` are under the word minimum."""
    if count < 3:
        return 1
    if count <= 4 or count >= 14 or short >= 3:
        return 2
    if count in (5, 13):
        return 3 if short == 0 else 2
    return {0: 5, 1: 4, 2: 3}[short]
