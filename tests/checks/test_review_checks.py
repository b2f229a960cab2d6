"""The research-review pack's deterministic checks, on items written here: each rule of the review
prompt (research-review-prompt.md) and every exemption it names, one case each."""

from __future__ import annotations

import pytest

from evalgate.checks import run_check
from evalgate.document import parse_document
from evalgate.rubrics.params import (
    EmDashesParams,
    FormulaicTransitionsParams,
    HighConfidenceSourcesParams,
    OpinionLabelsParams,
    OverconfidentLanguageParams,
)
from tests.checks.review_item import CLEAN, line_of, review_document, review_item


def findings(check: str, params=None, **parts: str) -> list[tuple[int, str]]:
    result = run_check(check, review_document(**parts), params=params)
    assert result.error is None, result.error
    assert (result.score == 5) == (not result.findings), result
    return [(f.line, f.message) for f in result.findings]


@pytest.mark.parametrize(
    "check",
    [
        "em_dashes",
        "formulaic_transitions",
        "overconfident_language",
        "opinion_labels",
        "high_confidence_sources",
    ],
)
def test_the_clean_item_meets_every_rule(check: str) -> None:
    assert findings(check) == []


# ------------------------------------------------------------------------------------ em-dashes


def test_every_em_dash_a_reader_sees_is_a_finding_on_its_line_with_no_exceptions() -> None:
    text = review_item(
        front='title: "Cache eviction — a study"\nstatus: reviewing',
        Context="Caches evict artefacts — silently — before release. See `a—b` and https://x.org/a—b.",
        Analysis="```text\nlog: evicted — 3 files\n```\n\nPinning costs storage &mdash; a small share.",
        Approach="1. Read the docs.\n\n<!-- draft note — not shown -->",
    )
    document = parse_document(text.replace("# Cache eviction\n", "# Cache eviction — notes\n"), "item.md")
    result = run_check("em_dashes", document)
    lines = {f.line: f.message for f in result.findings}
    assert result.score == 1
    assert sorted(lines) == sorted(
        line_of(text, needle)
        for needle in ('title: "Cache', "# Cache eviction", "Caches evict", "log: evicted", "&mdash;")
    )
    assert lines[line_of(text, "Caches evict")].startswith("4 em-dashes (U+2014): ")  # prose, code span, URL
    assert "use a comma, a colon or parentheses" in lines[line_of(text, "log: evicted")]
    assert lines[line_of(text, "&mdash;")].startswith("an em-dash (U+2014): ")
    assert line_of(text, "draft note") not in lines  # an HTML comment: no reader sees it


def test_an_entity_in_code_is_shown_as_written_so_it_is_no_em_dash() -> None:
    assert findings("em_dashes", Analysis="Write `&mdash;` in HTML, or `&#8212;`.") == []
    assert findings("em_dashes", Analysis="Pinning &#8212; and &#x2014; both render as one.") != []


def test_em_dashes_params_narrow_the_rule_to_sections() -> None:
    params = EmDashesParams(sections=("Findings",))
    assert findings("em_dashes", params, Context="A — B.") == []
    assert len(findings("em_dashes", params, Analysis="A — B.")) == 1


def test_a_line_of_many_em_dashes_shows_three_and_counts_the_rest() -> None:
    ((_, message),) = findings("em_dashes", Analysis=" — ".join("abcdef"))
    assert message.startswith("5 em-dashes (U+2014): ") and " and 2 more; " in message


# ------------------------------------------------------------------------ formulaic transitions


def test_a_transition_that_opens_a_sentence_in_findings_is_a_finding() -> None:
    analysis = (
        "Pinning costs storage. Furthermore, the study measures it as small.\n\n"
        "- Additionally, sharding was not examined.\n"
        "- It is important to note that eviction is per node; in conclusion, pin.\n"
        "- More importantly, release jobs stop failing."
    )
    text = review_item(Analysis=analysis)
    got = findings("formulaic_transitions", Analysis=analysis)
    assert [(line, m.split('"')[1]) for line, m in got] == [
        (line_of(text, "Furthermore"), "Furthermore"),
        (line_of(text, "Additionally"), "Additionally"),
        (line_of(text, "It is important"), "It is important to note"),
        (line_of(text, "It is important"), "in conclusion"),  # a clause after `;`
        (line_of(text, "More importantly"), "More importantly"),
    ]
    assert got[0][1].endswith(
        '"Furthermore, the study measures it as small."; state the point directly (remove-ai-slop)'
    )


def test_template_headers_are_not_slop() -> None:
    # The prompt: "Do not flag the template structure": headers, whatever they say, are not prose.
    text = review_item(Analysis="### In conclusion\n\nPinning wins.\n\n#### Additionally\n\nCost is small.")
    assert run_check("formulaic_transitions", parse_document(text, "item.md")).findings == ()
    assert findings("formulaic_transitions") == []  # every template header of the item


@pytest.mark.parametrize(
    "analysis",
    [
        "Perspectival layers additionally require motor signals.",  # an adverb inside its sentence
        'The vendor writes "Furthermore, caches evict by age."',  # a quotation
        "> Furthermore, caches evict by age.",  # a block quote
        "Run `Furthermore, x` to see it.",  # code
    ],
)
def test_a_transition_word_that_is_no_transition_is_no_finding(analysis: str) -> None:
    assert findings("formulaic_transitions", Analysis=analysis) == []


def test_transitions_are_read_in_findings_only() -> None:
    assert findings("formulaic_transitions", Context="Furthermore, caches fill weekly.") == []
    params = FormulaicTransitionsParams(sections=("Context",))
    assert len(findings("formulaic_transitions", params, Context="Furthermore, caches fill weekly.")) == 1


# ---------------------------------------------------------------------- overconfident language


@pytest.mark.parametrize(
    "sentence",
    [
        "Pinning is clearly the better rule.",
        "Clearly, pinning is the better rule.",
        "Obviously pinning wins.",
        "The study clearly shows that pinning wins.",
        "Eviction has undeniably shifted to age-based rules.",
        "- [inference] Pinning is clearly cheaper than a larger cache.",  # a label is no evidence
    ],
)
def test_an_overconfident_word_that_vouches_for_an_unsourced_claim_is_a_finding(sentence: str) -> None:
    text = review_item(Analysis=sentence)
    ((line, message),) = findings("overconfident_language", Analysis=sentence)
    assert line == line_of(text, sentence[-20:])
    assert (
        message.startswith("overconfident ") and "cite the source that shows it, or drop the word" in message
    )


@pytest.mark.parametrize(
    "sentence",
    [
        "Every inference is clearly labelled as such.",  # manner: how it is labelled
        "Each stage has clearly defined boundaries.",
        "Responsibilities must be clearly allocated.",  # a passive of manner
        "A clearly-marked assumption is allowed.",
        "Current evidence does not clearly favour either rule.",  # negated
        "Pinning describes the failure more clearly than eviction logs do.",  # compared
        "Models comply with obviously illogical requests.",  # a degree, not a vouching
        "State the rule clearly.",  # manner, after the verb
        "Is pinning clearly better?",  # a question
        "Pinning is clearly better. [inference; source: https://lab.example.net/eviction]",  # sourced
        "Pinning is clearly better (https://lab.example.net/eviction).",
        "Pinning is clearly better. Source: [the study](https://lab.example.net/eviction)",
        'Pinning is clearly better, as the vendor says: "pinned artefacts are never evicted".',  # quoted
        "> Pinning is clearly better.",  # a block quote: the source's words
        '"Pinning is clearly better," the vendor writes.',  # a quotation
        "| [fact] Pinning is clearly better. | https://lab.example.net/eviction | high | study |",  # row
    ],
)
def test_an_overconfident_word_that_vouches_for_nothing_unsourced_is_no_finding(sentence: str) -> None:
    analysis = (
        sentence
        if not sentence.startswith("|")
        else "| Claim | Source | Confidence | Notes |\n|---|---|---|---|\n" + sentence
    )
    assert findings("overconfident_language", Analysis=analysis) == []


def test_overconfidence_is_read_in_context_under_its_lighter_standard_and_not_in_scope() -> None:
    # The prompt's lighter standard for Context still flags "overconfident assertions presented as
    # settled fact"; Scope is no evidence-grounded section it names.
    assert len(findings("overconfident_language", Context="Pinning is clearly the fix.")) == 1
    assert findings("overconfident_language", Scope="Pinning is clearly in scope.") == []
    params = OverconfidentLanguageParams(words=("plainly",))
    assert len(findings("overconfident_language", params, Analysis="Pinning is plainly better.")) == 1
    assert findings("overconfident_language", params, Analysis="Pinning is clearly better.") == []


# ------------------------------------------------------------------------------ opinion labels


@pytest.mark.parametrize(
    "analysis",
    [
        "I think pinning is the better rule.",
        "In my view, eviction by age is enough.",
        "The rule is contested and arguably unnecessary.",
        "Pinning is cheap. I believe it is also safe.",
    ],
)
def test_an_opinion_without_a_label_is_a_finding(analysis: str) -> None:
    text = review_item(Analysis=analysis)
    ((line, message),) = findings("opinion_labels", Analysis=analysis)
    assert line == line_of(text, analysis[:15])
    assert "states an opinion that carries no label" in message and "prefix it with Opinion:" in message


@pytest.mark.parametrize(
    "analysis",
    [
        "Opinion: I think pinning is the better rule.",
        "**Opinion:** I think pinning is the better rule. In my view, it is also safe.",  # the paragraph's
        "[inference] I think pinning is the better rule.",  # the convention the prompt accepts
        "I think pinning is the better rule. [inference; source: https://lab.example.net/eviction]",
        "- [assumption] In my view, release jobs read the same artefacts.",
        "Hypothesis: I suspect sharding changes this.",
        'The vendor says "I think pinning is enough" in its guide.',  # someone else's words
        "> I think pinning is enough.",
        "Do I think pinning is enough?",  # a question
    ],
)
def test_a_labelled_quoted_or_asked_opinion_is_no_finding(analysis: str) -> None:
    assert findings("opinion_labels", Analysis=analysis) == []


def test_context_may_hold_unlabelled_framing_and_labels_are_params() -> None:
    assert findings("opinion_labels", Context="I think the cache is the culprit.") == []
    params = OpinionLabelsParams(labels=("View:",))
    assert findings("opinion_labels", params, Analysis="View: I think pinning wins.") == []
    assert len(findings("opinion_labels", params, Analysis="[inference] I think pinning wins.")) == 1


# --------------------------------------------------------------------- high-confidence sources

KF = (
    "1. Least-recently-used eviction removes release artefacts that no job has read for a week, which is "
    "why the release job fails on Tuesdays. ({label}; source: {sources})"
)


def kf_findings(sources: str, label: str = "[fact]; high confidence", params=None) -> list[str]:
    return [
        m
        for _, m in findings(
            "high_confidence_sources", params, Key_Findings=KF.format(label=label, sources=sources)
        )
    ]


@pytest.mark.parametrize(
    "sources",
    [
        "https://cache.example.org/guide; https://lab.example.net/eviction",
        "https://arxiv.org/abs/2401.00001; https://arxiv.org/abs/2402.00002",  # two papers
        "https://github.com/alpha/cache; https://github.com/beta/cache",  # two owners
        "https://doi.org/10.1145/1234567; https://cache.example.org/guide",
        "Smith (2020); Jones (2021)",  # named without addresses: cannot be told apart, so not counted against
    ],
)
def test_high_confidence_with_two_independent_sources_is_met(sources: str) -> None:
    assert kf_findings(sources) == []


@pytest.mark.parametrize(
    ("sources", "shown"),
    [
        ("https://cache.example.org/guide", "1 independent source (cache.example.org)"),
        ("https://learn.example.com/a; https://learn.example.com/b", "(2 pages of learn.example.com)"),
        (
            "https://arxiv.org/abs/2401.00001v2; https://arxiv.org/pdf/2401.00001",
            "(2 pages of arxiv:2401.00001)",
        ),
        ("https://github.com/alpha/a; https://github.com/alpha/b", "(2 pages of github.com/alpha)"),
        ("Shannon (1948)", '("Shannon (1948)")'),
    ],
)
def test_high_confidence_with_fewer_than_two_independent_sources_is_a_finding(
    sources: str, shown: str
) -> None:
    (message,) = kf_findings(sources)
    assert message.startswith("Key Finding 1 is rated high confidence but cites ")
    assert shown in message and message.endswith("add one or rate it medium (peer-reviewer)")


def test_high_confidence_read_in_its_forms_and_only_there() -> None:
    for label in (
        "[fact]; confidence: high",
        "[High]",
        "[fact; high confidence",
        "confidence: high for the rule",
    ):
        assert len(kf_findings("https://cache.example.org/guide", label=label)) == 1, label
    assert kf_findings("https://cache.example.org/guide", label="[fact]; medium confidence") == []
    claim = (
        "1. The guide says that high confidence in one source is what the protocol forbids, in its own "
        "words here. ([fact]; medium confidence; source: https://cache.example.org/guide)"
    )
    assert findings("high_confidence_sources", Key_Findings=claim) == []
    bare = (
        "1. Pinning removes the failure for release jobs that read the same artefacts every single "
        "week. (high confidence)"
    )
    ((_, message),) = findings("high_confidence_sources", Key_Findings=bare)
    assert "cites no source: no URL, DOI or arXiv identifier, and no `source:` part naming one;" in message


def test_evidence_map_rows_are_read_when_the_params_ask() -> None:
    # The prompt reads Executive Summary, Key Findings and Analysis for confidence; a row restates its
    # finding, so rows are off in the pack and on by `evidence_map: true`.
    params = HighConfidenceSourcesParams(evidence_map=True)
    got = findings("high_confidence_sources", params)
    assert [m.split(" is rated")[0] for _, m in got] == [
        'the Evidence Map row "[fact] Least-recently-used eviction removes unread release …"',
        'the Evidence Map row "[inference] Pinning removes the failure."',
    ]
    assert findings("high_confidence_sources", HighConfidenceSourcesParams(min_sources=1)) == []


def test_platforms_decide_what_one_organisation_is() -> None:
    both = "https://docs.example.com/a; https://docs.example.com/b"
    assert len(kf_findings(both)) == 1
    assert kf_findings(both, params=HighConfidenceSourcesParams(platforms={"docs.example.com": 0})) == []


def test_clean_item_sections_hold_what_the_cases_assume() -> None:
    assert "high confidence" in CLEAN["Key Findings"] and "—" not in review_item()
