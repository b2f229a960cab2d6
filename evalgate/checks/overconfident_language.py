"""overconfident_language: the review prompt's speculation-control rule, "Overconfident language
("clearly", "obviously", "undeniably") unsupported by evidence".

Such a word is overconfident where it vouches for a claim, which it does in three places: opening
the sentence ("Clearly, the cache ..."), right after a form of *be*, an auxiliary or a modal ("is
clearly advancing", "has obviously shifted"), or right before a verb that says what evidence shows
("clearly shows", "clearly outperforms": the `verbs` param). It says how something is done, not how
sure the writer is, before a word of the `manner` param ("clearly labelled", "clearly defined
boundaries"), and it is no overconfidence after a word of `hedges` ("does not clearly favour", "more
clearly than", "almost certainly"), in a question, or in a quotation or block quote (the source's
words). A sentence that cites its evidence (a URL, a DOI, an arXiv identifier, a `source:` part or a
link, in it or in the label or `Source:` line that follows it, or in its table row) or quotes it (a
quotation of three words or more) is backed by evidence, as the rule asks. After a form of *be*, a
past participle makes it a passive of manner ("is clearly defined", "be clearly allocated").

Scope (`sections`): Research Skill Output and Findings (full standard) and Context, where the prompt's
lighter standard still flags "overconfident assertions presented as settled fact". One finding per
word, on its line. Met (5, or 1 on a binary rubric) with none; any fails.
"""

from __future__ import annotations

from evalgate.checks import CheckOutcome
from evalgate.checks.review_prose import Sentence, phrase_finder, quotation_spans, sentences, word_matcher
from evalgate.document import Document
from evalgate.results import Finding
from evalgate.rubrics.params import OverconfidentLanguageParams

DEFAULTS = OverconfidentLanguageParams()
# Forms of *be*, auxiliaries and modals (AUXILIARIES): right after one, the word vouches for what
# follows.
BE = frozenset(("am", "is", "are", "was", "were", "be", "been", "being", "it's", "that's", "there's"))
AUXILIARIES = BE | {
    *("remains", "remain", "remained", "seems", "seem", "seemed", "appears", "appear"),
    *("will", "would", "can", "could", "should", "must", "may", "might", "shall"),
    *("has", "have", "had", "does", "do", "did"),
}
# After a form of *be* (BE), a past participle makes the word say how it was done ("is clearly
# defined", "be clearly allocated"): a passive of manner.
IRREGULAR_PARTICIPLES = frozenset(
    {
        *("built", "done", "drawn", "given", "held", "known", "laid", "made", "meant", "put", "seen"),
        *("set", "shown", "taken", "told", "understood", "written"),
    }
)
QUOTED_WORDS = 3  # a quotation of this many words or more: the sentence quotes its evidence


def _vouches(
    sentence: Sentence, words: list[tuple[int, int, str]], i: int, p: OverconfidentLanguageParams
) -> bool:
    """Whether the word at `i` of the sentence vouches for its claim (see the module's docstring)."""
    start, _, word = words[i]
    glued = word.partition("-")[2]  # "clearly-labelled": the word after it is glued on
    following = glued or (words[i + 1][2] if i + 1 < len(words) else "")
    previous = words[i - 1][2] if i > 0 else ""
    if following and word_matcher(p.manner)(following.split("-")[0]):
        return False
    if previous and word_matcher(p.hedges)(previous):
        return False
    if i == 0 or sentence.opens(start):
        return True
    previous = previous.replace("’", "'")
    if previous in BE and (following.endswith("ed") or following in IRREGULAR_PARTICIPLES):
        return False
    if previous in AUXILIARIES:
        return True
    return bool(following) and word_matcher(p.verbs)(following)


def _quotes(text: str) -> bool:
    return any(len(text[a + 1 : b - 1].split()) >= QUOTED_WORDS for a, b in quotation_spans(text))


def check(document: Document, params: OverconfidentLanguageParams | None = None) -> CheckOutcome:
    """One finding per overconfident word not backed by evidence in the sections in scope."""
    p = params or DEFAULTS
    wanted = frozenset(w.lower() for w in p.words)
    findings = []
    for sentence in sentences(document, p.sections, phrase_finder(p.words)):
        if not any(w in sentence.prose.lower() for w in wanted):
            continue
        words = sentence.words()
        hits = [i for i, (_, _, w) in enumerate(words) if w.partition("-")[0] in wanted]
        hits = [i for i in hits if _vouches(sentence, words, i, p)]
        if not hits or sentence.question or sentence.cites or _quotes(sentence.text):
            continue
        shown = sentence.shown()
        for i in hits:
            start, end, _ = words[i]
            written = sentence.text[start:end].partition("-")[0]
            findings.append(
                Finding(
                    sentence.line_at(start),
                    f'overconfident "{written}" vouches for a claim that cites no evidence: "{shown}"; '
                    "cite the source that shows it, or drop the word (speculation-control)",
                )
            )
    return CheckOutcome(1 if findings else 5, tuple(findings))
