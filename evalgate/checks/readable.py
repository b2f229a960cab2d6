"""Findings for words written to read differently to the checks than to readers: a token holding an
invisible character or a look-alike letter (found by evalgate.document.disguise).

The document layer already reads such a token as readers do (`L<U+200B>LM` as `LLM`), so no check is
evaded; what is left is the attempt, or a character pasted by accident, which a reviewer would want
removed: each token is a finding on acronym_expansion, whose hard fail is what these characters got
round (issue #26), and any such finding caps that dimension at 2 (docs/checks.md argues it).
"""

from __future__ import annotations

from evalgate.document import Document
from evalgate.results import Finding

CAPPED_SCORE = 2  # at most, with any disguised token: below the hard-fail bar of 3


def disguise_findings(document: Document) -> tuple[Finding, ...]:
    """One finding per disguised token, on its line, showing the characters made visible."""
    findings = []
    for token in document.disguised:
        names = ", ".join(token.characters)
        if token.invisible:
            what = "invisible characters" if len(token.characters) > 1 else "an invisible character"
            them = "them" if len(token.characters) > 1 else "it"
            why = f'readers see "{token.reads}", a search for it does not find it; delete {them}'
        else:
            what = "look-alike letters" if len(token.characters) > 1 else "a look-alike letter"
            what += " from another script"
            why = f'it reads as "{token.reads}" but is spelled otherwise; retype it'
        findings.append(
            Finding(
                token.line,
                f'"{token.reads}" holds {what} ({names}): {why}: {token.context}',
                rule="disguised_token",
            )
        )
    return tuple(findings)
