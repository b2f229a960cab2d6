"""formulaic_transitions: the review prompt's remove-ai-slop phrases in the Findings prose:
"predictable transitions ("Furthermore", "Additionally", "It is important to note") ... explicit
meta-structure ("In conclusion")", with the protocol's self-review list ("It is worth noting",
"Importantly"); the `phrases` param holds them.

A phrase is formulaic where it opens a sentence or a clause (after `;` or `:`), as a transition does:
"Additionally, the cache ..." is one, "layers additionally require ..." is an adverb in its sentence.
Only prose is read (evalgate/checks/review_prose.py): the template's headers are never slop (the
prompt: "Do not flag the template structure"), nor code, URLs, quotations or block quotes. Scope:
`sections` (the prompt checks "the prose in the `## Findings` section"). One finding per phrase,
on its line. Met (5, or 1 on a binary rubric) with none; any fails.
"""

from __future__ import annotations

from evalgate.checks import CheckOutcome
from evalgate.checks.review_prose import phrase_finder, sentences
from evalgate.document import Document
from evalgate.results import Finding
from evalgate.rubrics.params import FormulaicTransitionsParams

DEFAULTS = FormulaicTransitionsParams()


def check(document: Document, params: FormulaicTransitionsParams | None = None) -> CheckOutcome:
    """One finding per formulaic transition that opens a sentence or clause in scope."""
    p = params or DEFAULTS
    finder = phrase_finder(p.phrases)
    where = " and ".join(p.sections) or "the document"
    findings = []
    for sentence in sentences(document, p.sections, finder):
        for match in finder.finditer(sentence.prose):
            if not sentence.opens(match.start()):
                continue
            phrase = " ".join(sentence.text[match.start() : match.end()].split())
            shown = sentence.shown(match.start(), 80)
            findings.append(
                Finding(
                    sentence.line_at(match.start()),
                    f'formulaic transition "{phrase}" opens a sentence in {where}: "{shown}"; '
                    "state the point directly (remove-ai-slop)",
                )
            )
    return CheckOutcome(1 if findings else 5, tuple(findings))
