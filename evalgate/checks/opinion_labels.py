"""opinion_labels: the review prompt's speculation-control rule, "Opinions or subjective judgments
that are not labeled `Opinion:`", read where the writer says so in words: "I think", "in my view",
"arguably" (the `markers` param).

A sentence holding a marker is labelled when it, or the paragraph or list item it opens, carries
one of the `labels`: the prompt's `Opinion:` (and `Speculation:`, `Hypothesis:`) prefixes, or the
`[inference]` and `[assumption]` labels, which the prompt accepts as compliant ("the accepted
convention for this repo"), written anywhere in the sentence or in the label that follows it
(`... [inference; source: URL]`). A question, a quotation or a block quote (someone else's words)
is no opinion of the writer's. Scope (`sections`): Research Skill Output and Findings; Context is left
out, as the prompt's lighter standard there allows "unlabelled framing assumptions and working
hypotheses". One finding per sentence, on the marker's line. Met (5, or 1 on a binary rubric) with
none; any fails.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evalgate.checks import CheckOutcome
from evalgate.checks.review_prose import phrase_finder, sentences
from evalgate.document import Document
from evalgate.results import Finding
from evalgate.rubrics.params import OpinionLabelsParams

DEFAULTS = OpinionLabelsParams()


@lru_cache(maxsize=16)
def label_pattern(labels: tuple[str, ...]) -> re.Pattern[str]:
    """The labels as one pattern, any case: `[word]` as a bracket that opens with the word
    (`[inference; source: ...]`, `**[assumption]**`), `Word:` as the word and its colon."""
    parts = []
    for label in labels:
        if label.startswith("["):
            parts.append(r"\[[ \t*_]*" + re.escape(label[1:-1].strip()) + r"\b")
        else:
            words = label[:-1].split()
            parts.append(r"\b" + r"\s+".join(map(re.escape, words)) + r"[ \t*_]*:")
    return re.compile("|".join(parts), re.I)


def check(document: Document, params: OpinionLabelsParams | None = None) -> CheckOutcome:
    """One finding per unlabelled sentence that says it is the writer's opinion."""
    p = params or DEFAULTS
    markers, labels = phrase_finder(p.markers), label_pattern(p.labels)
    findings = []
    for sentence in sentences(document, p.sections, markers):
        match = next(markers.finditer(sentence.prose), None)
        if match is None or sentence.question:
            continue
        opening = sentence.block_start.lstrip(" \t-*+>0123456789.)")  # the paragraph's label
        if labels.search(sentence.evidence) or labels.match(opening):
            continue
        marker = " ".join(sentence.text[match.start() : match.end()].split())
        shown = sentence.shown()
        first = ", ".join(p.labels[:1]) or "a label"
        findings.append(
            Finding(
                sentence.line_at(match.start()),
                f'"{marker}" states an opinion that carries no label: "{shown}"; prefix it with '
                f"{first} or label it [inference] (speculation-control)",
            )
        )
    return CheckOutcome(1 if findings else 5, tuple(findings))
