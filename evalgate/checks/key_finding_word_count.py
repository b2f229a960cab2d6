"""key_finding_word_count: Key Findings is a list of 6-12 items, each claim at least 20 words.

The numbers are the rubric's params (`min_words`, `min_findings`, `max_findings`); those above are
the research-loop rubric's, and the defaults.

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
from evalgate.document.scan import strip_links
from evalgate.results import Finding
from evalgate.rubrics.params import KeyFindingWordCountParams

DEFAULTS = KeyFindingWordCountParams()
MIN_WORDS = DEFAULTS.min_words
MIN_FINDINGS, MAX_FINDINGS = DEFAULTS.min_findings, DEFAULTS.max_findings
# A white-space-delimited token holding a letter or digit, matched from its first letter or digit to
# its end (`\S*+` takes the rest and gives nothing back), so each such token is one match: the same
# count as `\S*?[^\W_]\S*` from the token's first character, without the lazy run in front
# (116 M -> 98 M instructions over the Key Findings of every third corpus item).
_WORD_TOKEN = re.compile(r"[^\W_]\S*+")
# For an ASCII claim, in one C pass: every byte that is neither a letter, a digit nor white space
# deleted, and U+001C-1F (white space to `\S`, not to `bytes.split`) made spaces. No token is split or
# joined, each keeps its letters and digits, and a token without any is left empty: `bytes.split`
# then gives the words (3,480 of the corpus's 3,987 claims are ASCII; the count 19.5 -> 8.8 ms).
_ASCII_SPACES = bytes(0x20 if 0x1C <= c < 0x20 else c for c in range(256))
_NOT_WORD_OR_SPACE = bytes(c for c in range(128) if not chr(c).isalnum() and not chr(c).isspace())


def claim_words(claim: str) -> int:
    """The number of words in a claim (URLs, link targets and markup removed)."""
    # Each pattern is applied only where its one required text is (URL is case-blind: `www.` in
    # any case, or `://`).
    text = strip_links(claim) if "](" in claim else claim
    if "://" in text or "www." in text.lower():
        text = URL.sub(" ", text)
    # Markup (`*`, `_`, `` ` ``, `~`) is counted as removed without removing it: a markup character is neither
    # white space nor a letter or digit, so taking it out of a token neither splits nor joins tokens
    # nor changes whether the token holds a letter or digit, and a token of markup alone holds none
    # (the same count, held by a test; the substitution was a quarter of the check's time).
    if text.isascii():
        return len(text.encode("ascii").translate(_ASCII_SPACES, _NOT_WORD_OR_SPACE).split())
    return len(_WORD_TOKEN.findall(text))


def check(document: Document, params: KeyFindingWordCountParams | None = None) -> CheckOutcome:
    """Score the Key Findings count and the length of each claim (anchors 1-5)."""
    p = params or DEFAULTS
    min_words, min_findings, max_findings = p.min_words, p.min_findings, p.max_findings
    section = document.key_findings_section
    findings_list = document.key_findings
    if section is None or not findings_list:
        line = section.line if section is not None else 1
        return CheckOutcome(1, (Finding(line, "no Key Findings list found", rule="no_key_findings"),))
    findings: list[Finding] = []
    short = 0
    for kf in findings_list:
        words = claim_words(kf.claim)
        if words < min_words:
            short += 1
            findings.append(
                Finding(
                    kf.line,
                    f"Key Finding {kf.number} has {words} words in its claim; {min_words} are required",
                    end_line=kf.end_line,
                    rule="short_claim",
                    key="",  # its number and count move with edits that make nothing worse
                )
            )
    count = len(findings_list)
    if not min_findings <= count <= max_findings:
        findings.append(
            Finding(
                section.line,
                f"{count} Key Findings; the protocol asks for {min_findings}-{max_findings}",
                rule="finding_count",
                key="",  # a count: one such finding at most; a worse count lowers the score
            )
        )
    return CheckOutcome(score(count, short, min_findings, max_findings), tuple(findings))


def score(count: int, short: int, min_findings: int = MIN_FINDINGS, max_findings: int = MAX_FINDINGS) -> int:
    """The anchor for `count` findings of which `short` are under the word minimum. With the shipped
    6-12: under 3 -> 1; 3-4 or 14+ -> 2; 5 or 13 (one outside) -> 3, or 2 with any short."""
    if count < min_findings - 3:
        return 1
    if count <= min_findings - 2 or count >= max_findings + 2 or short >= 3:
        return 2
    if count in (min_findings - 1, max_findings + 1):
        return 3 if short == 0 else 2
    return {0: 5, 1: 4, 2: 3}[short]
