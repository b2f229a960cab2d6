"""The research-review pack's shipped word lists: the defaults of its deterministic checks' params
(evalgate/rubrics/params.py), each from the review prompt (`research-review-prompt.md`) or the
protocol it applies (`research-prompt.md`), as noted. Data only; the pack's YAML writes them out, and
a team changes them in its copy of the pack.
"""

from __future__ import annotations

# remove-ai-slop's "predictable transitions" and "explicit meta-structure" (the review prompt:
# "Furthermore", "Additionally", "It is important to note", "In conclusion") and the protocol's
# self-review list of slop phrases ("It is worth noting", "Importantly") and filler ("it should be
# said"). A phrase counts where it opens a sentence or a clause, as a transition does; "additionally
# require" inside a sentence is an adverb, not a transition.
TRANSITIONS = (
    "Furthermore",
    "Additionally",
    "It is important to note",
    "It's important to note",
    "In conclusion",
    "It is worth noting",
    "It's worth noting",
    "Importantly",
    "More importantly",
    "Most importantly",
    "It should be said",
)

# speculation-control's overconfident language (the review prompt: "clearly", "obviously",
# "undeniably") and the adverbs that say the same.
OVERCONFIDENT_WORDS = (
    "clearly",
    "obviously",
    "undeniably",
    "undoubtedly",
    "unquestionably",
    "indisputably",
)

# A word right after one of the overconfident words that makes it say how something is done, not how
# sure the writer is: "clearly labelled", "clearly defined boundaries", "clearly-marked inference".
MANNER_WORDS = (
    "articulate*",
    "attributable",
    "attributed",
    "bounded",
    "communicate*",
    "definable",
    "define*",
    "delimited",
    "delineate*",
    "demarcate*",
    "describe*",
    "distinguish*",
    "document*",
    "evidenced",
    "explain*",
    "expressed",
    "flag*",
    "formatted",
    "identif*",
    "implied",
    "label*",
    "legible",
    "mark*",
    "named",
    "organised",
    "organized",
    "presented",
    "readable",
    "referenced",
    "scoped",
    "separa*",
    "set",
    "signpost*",
    "sourced",
    "specif*",
    "state*",
    "structured",
    "titled",
    "understandabl*",
    "visible",
    "worded",
    "written",
)

# A word right before one of the overconfident words that negates, compares or hedges it: "does not
# clearly favour", "more clearly than", "almost certainly" is no overconfidence.
HEDGES = (
    "almost",
    "as",
    "equally",
    "fairly",
    "how",
    "least",
    "less",
    "more",
    "most",
    "never",
    "no",
    "not",
    "*n't",
    "quite",
    "rather",
    "reasonably",
    "so",
    "sufficiently",
    "too",
    "very",
)

# A word right after one of the overconfident words that makes it a claim about what the evidence
# shows ("the benchmark clearly shows", "X clearly outperforms Y").
EVIDENCE_VERBS = (
    "beat*",
    "confirm*",
    "demonstrat*",
    "dominat*",
    "establish*",
    "exceed*",
    "favor*",
    "favour*",
    "illustrat*",
    "lead*",
    "outperform*",
    "point*",
    "prove*",
    "reveal*",
    "show*",
    "superior",
    "support*",
    "surpass*",
    "suggest*",
    "win*",
)

# speculation-control's opinions (the review prompt: "Opinions or subjective judgments that are not
# labeled `Opinion:`"): the first-person and hedged forms that mark a sentence as the writer's
# opinion. "we believe" is left out: "why we believe we are conscious" is about people in general.
OPINION_MARKERS = (
    "I think",
    "I believe",
    "I feel",
    "I suspect",
    "I argue",
    "I would argue",
    "I'd argue",
    "in my view",
    "in my opinion",
    "in our view",
    "in our opinion",
    "my view is",
    "arguably",
)

# What labels a sentence as the writer's view: the prompt's `Opinion:`, `Speculation:`,
# `Hypothesis:`, and "the labels [inference] and [assumption] ... treat them as compliant".
OPINION_LABELS = ("Opinion:", "Speculation:", "Hypothesis:", "[inference]", "[assumption]")

# Hosts where each page is its own source, not one organisation's (a paper, a video: 0, the whole
# address), or where the first N path segments name the author (github.com/OWNER: 1,
# linkedin.com/in/NAME: 2). Two pages of any other host are one organisation's (the protocol, 2f:
# "Treat multiple documents from the same vendor or standards body as one evidence family").
PLATFORMS: dict[str, int] = {
    "aclanthology.org": 0,
    "academic.oup.com": 0,
    "arxiv.org": 0,
    "biorxiv.org": 0,
    "books.google.com": 0,
    "cambridge.org": 0,
    "dl.acm.org": 0,
    "doi.org": 0,
    "dx.doi.org": 0,
    "frontiersin.org": 0,
    "hbr.org": 0,
    "ieeexplore.ieee.org": 0,
    "journals.plos.org": 0,
    "journals.sagepub.com": 0,
    "jstor.org": 0,
    "link.springer.com": 0,
    "mdpi.com": 0,
    "medrxiv.org": 0,
    "nature.com": 0,
    "ncbi.nlm.nih.gov": 0,
    "news.ycombinator.com": 0,
    "onlinelibrary.wiley.com": 0,
    "openreview.net": 0,
    "osf.io": 0,
    "papers.nips.cc": 0,
    "papers.ssrn.com": 0,
    "pmc.ncbi.nlm.nih.gov": 0,
    "pnas.org": 0,
    "proceedings.mlr.press": 0,
    "proceedings.neurips.cc": 0,
    "pubmed.ncbi.nlm.nih.gov": 0,
    "researchgate.net": 0,
    "science.org": 0,
    "sciencedirect.com": 0,
    "scholar.google.com": 0,
    "semanticscholar.org": 0,
    "ssrn.com": 0,
    "tandfonline.com": 0,
    "vimeo.com": 0,
    "web.archive.org": 0,
    "youtu.be": 0,
    "youtube.com": 0,
    "bitbucket.org": 1,
    "codeberg.org": 1,
    "gist.github.com": 1,
    "github.com": 1,
    "gitlab.com": 1,
    "huggingface.co": 1,
    "medium.com": 1,
    "raw.githubusercontent.com": 1,
    "twitter.com": 1,
    "x.com": 1,
    "linkedin.com": 2,
    "npmjs.com": 2,
    "pypi.org": 2,
    "reddit.com": 2,
}
