"""source_consultation: a source is consulted when ticked or cited, an unconsulted one may say why,
a box that contradicts the body is a notice, and rule 2d1 (every URL cited inline has a Sources
entry). Every document here is written for the test."""

from __future__ import annotations

import pytest

from evalgate.checks import CheckOutcome, source_consultation
from evalgate.document import parse_document
from evalgate.results import Finding
from evalgate.rubrics.params import SourceConsultationParams
from tests.checks.harmless import HARMLESS
from tests.checks.research_item import line_of, research_item

A, B, C = (
    "https://alpha.example.org/guide",
    "https://beta.example.net/report",
    "https://gamma.example.com/paper",
)


def item(sources: str, skill: str = "", findings: str = "", extra: str = "") -> str:
    """A small item: Sources, Research Skill Output and Findings, with the given bodies."""
    return (
        "# Digest equality\n\n## Sources\n\n"
        f"{sources}\n\n---\n\n## Research Skill Output\n\n### §2 Investigation\n\n{skill or 'Notes.'}\n\n"
        f"## Findings\n\n### Key Findings\n\n{findings or '1. A finding.'}\n{extra}"
    )


def run(text: str, params: SourceConsultationParams | None = None) -> CheckOutcome:
    return source_consultation.check(parse_document(text), params)


def scored(outcome: CheckOutcome) -> list[Finding]:
    return [f for f in outcome.findings if not f.notice]


def notices(outcome: CheckOutcome) -> list[Finding]:
    return [f for f in outcome.findings if f.notice]


@pytest.mark.parametrize("edit", HARMLESS, ids=lambda f: f.__name__)
def test_harmless_edits_keep_the_score(edit) -> None:
    assert (run(edit(research_item())).score, run(edit(research_item())).findings) == (5, ())


# --- consulted: ticked or cited ----------------------------------------------------------------


def test_an_unticked_source_the_body_cites_is_consulted_and_its_box_is_a_notice() -> None:
    text = item(
        f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B}) — survey data",
        skill=f"- [fact] X. [source: {A}; {B}]",
    )
    outcome = run(text)
    assert outcome.score == 5 and scored(outcome) == []
    [notice] = notices(outcome)
    assert notice.line == line_of(text, "[Beta report]")
    assert notice.message == (
        f"the box is unticked, but the source is cited on line {line_of(text, '[fact] X.')}: "
        f"[Beta report]({B}) — survey data"
    )


def test_a_ticked_source_the_body_never_cites_is_a_notice_not_a_penalty() -> None:
    text = item(f"- [x] [Alpha guide]({A})\n- [x] [Beta report]({B})", skill=f"- [fact] X. [source: {A}]")
    outcome = run(text)
    assert outcome.score == 5 and scored(outcome) == []
    [notice] = notices(outcome)
    assert notice.line == line_of(text, "[Beta report]")
    assert (
        "the box is ticked, but its URL is cited nowhere in Research Skill Output or Findings"
        in notice.message
    )


def test_a_source_cited_in_context_or_output_is_consulted_one_in_related_is_not() -> None:
    """Context's sourced claims and Output's links cite sources too (rule 2d1 reads only the body)."""
    head = f"# Digest equality\n\n## Context\n\nDrift is common [fact; source: {B}].\n\n"
    text = head + item(f"- [x] [Alpha guide]({A})\n- [x] [Beta report]({B})", skill=f"Cited: {A}")[18:]
    assert run(text).findings == ()
    output = item(f"- [ ] [Alpha guide]({A})\n- [x] [Beta report]({B})", skill=f"Cited: {A}")
    output += f"\n## Output\n\n- Links: {B}\n"
    [notice] = run(output).findings  # consulted; only Alpha's unticked box contradicts its citation
    assert notice.notice and notice.line == line_of(output, "[Alpha guide]")
    related = item(f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B})", skill=f"Cited: {A}")
    related += f"\n## Related\n\n- [Beta report]({B})\n"
    assert [f.message.split(":")[0] for f in run(related).findings] == ["source not shown consulted"]


def test_an_unticked_uncited_source_without_a_reason_is_a_finding_on_its_line() -> None:
    text = item(f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B}) — survey data", skill=f"Cited: {A}")
    outcome = run(text)
    assert outcome.score == 4
    [finding] = outcome.findings
    assert finding.line == line_of(text, "[Beta report]") and not finding.notice
    assert finding.message == (
        "source not shown consulted: its box is unticked, its URL is cited nowhere in Research Skill Output "
        f"or Findings, and it gives no reason for not consulting it: [Beta report]({B}) — survey data"
    )


@pytest.mark.parametrize(
    ("unconsulted", "expected"), [(0, 5), (1, 4), (2, 4), (3, 3), (5, 3), (6, 2)], ids=lambda v: str(v)
)
def test_the_score_follows_the_number_of_unexplained_sources(unconsulted: int, expected: int) -> None:
    ticked = [f"- [x] [Ticked {i}](https://t{i}.example.org/)" for i in range(5)]
    unticked = [f"- [ ] [Seed {i}](https://s{i}.example.org/)" for i in range(unconsulted)]
    text = item("\n".join(ticked + unticked), skill=" ".join(f"https://t{i}.example.org/" for i in range(5)))
    outcome = run(text)
    assert outcome.score == expected
    assert len(scored(outcome)) == unconsulted


def test_nothing_consulted_and_no_sources() -> None:
    assert run(item(f"- [ ] [Alpha]({A})\n- [ ] [Beta]({B})")).score == 1
    assert run(research_item(drop_section="Sources")).findings == (
        Finding(1, "no ## Sources section found", rule="no_sources"),
    )
    empty = run(item("Starting points: none yet."))
    assert (empty.score, [f.message for f in empty.findings]) == (1, ["the Sources section lists no sources"])


def test_an_item_without_boxes_is_scored_by_citation() -> None:
    """Plain bullets are consulted when cited; one that is not is reported, and the item is not
    scored 1 for having no boxes."""
    sources = f"- [Alpha guide]({A})\n- [Beta report]({B})\n- [Gamma paper]({C})"
    cited_all = run(item(sources, skill=f"[fact; source: {A}] X. [fact; source: {B}; {C}] Y."))
    assert (cited_all.score, cited_all.findings) == (5, ())
    text = item(sources, skill=f"[fact; source: {A}] X. [fact; source: {B}] Y.")
    outcome = run(text)
    assert outcome.score == 4
    [finding] = outcome.findings
    assert finding.line == line_of(text, "[Gamma paper]")
    assert "it has no [x] box, its URL is cited nowhere" in finding.message


# --- an unconsulted source that says why -----------------------------------------------------


@pytest.mark.parametrize(
    "reason",
    [
        "checked, but the accessible page exposed a table of contents only and was not used",
        "returned 403 in this session",
        "paywalled; the publisher abstract was all that loaded",
        "identified, but access-gated",
        "superseded by the 2024 edition listed above",
        "JavaScript-rendered; nothing could be read",
        "not yet published when this item was written",
    ],
)
def test_an_unticked_source_with_a_stated_reason_is_allowed(reason: str) -> None:
    text = item(f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B}) — {reason}", skill=f"Cited: {A}")
    assert (run(text).score, run(text).findings) == (5, ())


def test_an_unticked_source_that_says_why_keeps_its_account_though_the_body_names_it() -> None:
    """The body often names such a URL as what another source links to: no notice then."""
    text = item(
        f"- [x] [Alpha guide]({A})\n- [ ] [Beta memo]({B}) — inaccessible from this environment",
        skill=f"[fact] The guide links to `{B}`. Source: {A}",
    )
    assert run(text).findings == ()


def test_a_description_that_gives_no_reason_is_not_one() -> None:
    text = item(f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B}) — regional survey of bank adoption")
    assert len(scored(run(text))) == 1


@pytest.mark.parametrize(
    "label",
    ["**Identified but not consulted:**", "### Identified but not consulted", "Sources found but not used:"],
)
def test_sources_under_a_not_consulted_label_are_allowed(label: str) -> None:
    text = item(
        f"**Consulted:**\n\n- [x] [Alpha guide]({A})\n\n{label}\n\n"
        f"- [ ] [Beta report]({B})\n- [ ] [Gamma paper]({C})",
        skill=f"Cited: {A}",
    )
    assert (run(text).score, run(text).findings) == (5, ())


def test_a_label_ends_at_the_next_label_or_a_thematic_break() -> None:
    after_label = item(
        f"**Identified but not consulted:**\n\n- [ ] [Beta report]({B})\n\n"
        f"**Also read:**\n\n- [ ] [Gamma paper]({C})\n- [x] [Alpha]({A})"
    )
    assert [f.line for f in scored(run(after_label))] == [line_of(after_label, "[Gamma paper]")]
    after_break = item(
        f"**Not used:**\n\n- [ ] [Beta report]({B})\n\n---\n\n- [ ] [Gamma paper]({C})\n- [x] [Alpha]({A})"
    )
    assert [f.line for f in scored(run(after_break))] == [line_of(after_break, "[Gamma paper]")]


def test_a_ticked_source_under_a_not_consulted_label_is_a_notice() -> None:
    text = item(
        f"- [x] [Alpha guide]({A})\n\n**Identified but not consulted:**\n\n- [x] [Beta report]({B})",
        skill=f"{A}",
    )
    outcome = run(text)
    assert outcome.score == 5 and scored(outcome) == []
    assert [n.message.split(":")[0] for n in notices(outcome)] == [
        "the box is ticked, but its URL is cited nowhere in Research Skill Output or Findings",
        "the box is ticked, but the source is listed under 'Identified but not consulted'",
    ]


def test_a_source_the_body_lists_as_not_consulted_is_allowed() -> None:
    """A `[ ]` item in the body names the source as not consulted: that is its record, not a citation."""
    skill = f"Cited: {A}\n\n**Sources identified but not consulted:**\n- [ ] {B} — regional survey"
    text = item(f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B})", skill=skill)
    assert (run(text).score, run(text).findings) == (5, ())


RIVERA = f"- [ ] [Rivera et al. (2019) Release Trains at Scale]({C}) — the original survey"


@pytest.mark.parametrize(
    "cite",
    [
        "Rivera et al. (2019) found that release trains shorten the wait.",
        "Release trains shorten the wait (Rivera et al., 2019).",
        "Okafor and Rivera, 2019, report shorter waits.",
        "Rivera's 2019 survey reports shorter waits.",
    ],
)
def test_a_source_the_body_cites_by_its_author_and_year_is_consulted(cite: str) -> None:
    """The template's display names feed `Author (Year)` citation labels; a body line citing by the
    label cites that entry even with no URL beside it."""
    text = item(f"- [x] [Alpha guide]({A})\n{RIVERA}", skill=f"Cited: {A}\n\n- [fact] {cite}")
    outcome = run(text)
    assert (outcome.score, scored(outcome)) == (5, [])
    [notice] = notices(outcome)
    assert notice.line == line_of(text, "[Rivera et al.")
    assert notice.message.startswith(
        f"the box is unticked, but the source is cited on line {line_of(text, cite)}"
    )


def test_an_unticked_entry_that_says_why_keeps_its_account_when_the_body_names_it() -> None:
    """It has no URL, but it says it was read only through others: named by the body, it is still
    the unconsulted source it says it is (no 'no URL' finding, no notice)."""
    entry = "- [ ] Rivera, M. (2019). Release Trains at Scale. *Queue*, 4. — via secondary synthesis only"
    text = item(f"- [x] [Alpha guide]({A})\n{entry}", skill=f"{A}\n\n- The train model (Rivera 2019) ...")
    assert (run(text).score, run(text).findings) == (5, ())
    plain = text.replace(" — via secondary synthesis only", "")
    cited_at = line_of(plain, "The train model")
    assert [f.message.split(" (")[0] for f in run(plain).findings] == [
        f"the box is unticked, but the source is cited on line {cited_at}: Rivera, M.",
        "source has no URL, DOI or arXiv identifier",
    ]


def test_a_name_with_a_particle_and_initials_gives_its_label() -> None:
    entry = f"- [ ] [**van Damme, A. (2001) — Goal Trees: A Guided Tour.** A survey.]({C})"
    text = item(
        f"- [x] [Alpha guide]({A})\n{entry}",
        skill=f"{A}\n\n- Van Damme's goal-tree survey (RE 2001) lists ...",
    )
    assert scored(run(text)) == [] and len(notices(run(text))) == 1


BOOK = "- [ ] [Okafor & Rivera — *Queue Theory for Release Trains* (2nd ed.)](https://books.example.org/qt)"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("- Queue Theory for Release Trains is not directly consulted (a background text).", "explained"),
        ("- As *Queue theory for release trains* shows, waits grow with load.", "cited"),
        ("- Queue theory explains waits.", "not shown"),  # two words of it: no title
        ("- See the Subqueue Theory for Release Trains note.", "not shown"),  # inside another word
    ],
)
def test_the_body_may_name_a_source_by_its_title(body: str, kind: str) -> None:
    text = item(f"- [x] [Alpha guide]({A})\n{BOOK}", skill=f"Cited: {A}\n\n{body}")
    outcome = run(text)
    expected = {"explained": ([], []), "cited": ([], ["the box is unticked"]), "not shown": (["source"], [])}
    assert (
        [f.message.split(" not")[0] for f in scored(outcome)],
        [f.message.split(",")[0] for f in notices(outcome)],
    ) == expected[kind]


def test_not_consulted_words_count_only_in_the_sentence_that_names_it() -> None:
    cite = "- [fact] Trains help when a release window is unavailable. Source: Rivera et al. (2019)."
    text = item(f"- [x] [Alpha guide]({A})\n{RIVERA}", skill=f"Cited: {A}\n\n{cite}")
    assert scored(run(text)) == [] and len(notices(run(text))) == 1  # cited, box unticked


@pytest.mark.parametrize(
    "cite",
    [
        "Rivera et al. (2021) found that release trains shorten the wait.",  # another year
        "Rivera (2018; 2019) found ...",  # the first year after the name is another
        "Riveras 2019 found ...",  # another word
        "Garcia-Rivera (2019) found ...",  # the end of another name: a hyphen, a letter or an
        "D'Rivera (2019) found ...",  # apostrophe before it
        "McRivera (2019) found ...",
        "Rivera et al. found shorter waits; in an unrelated 2019 report a team of reviewers found more.",
    ],
)
def test_another_author_or_year_is_no_citation(cite: str) -> None:
    text = item(f"- [x] [Alpha guide]({A})\n{RIVERA}", skill=f"Cited: {A}\n\n- [fact] {cite}")
    [finding] = scored(run(text))
    assert finding.message.startswith("source not shown consulted")


def test_a_label_two_entries_share_names_neither() -> None:
    twin = "- [ ] [Rivera et al. (2019) Release Trains in Practice](https://delta.example.org/x)"
    text = item(
        f"- [x] [Alpha guide]({A})\n{RIVERA}\n{twin}", skill=f"Cited: {A}\n\n- Rivera et al. (2019) found it."
    )
    assert len(scored(run(text))) == 2


@pytest.mark.parametrize(
    "record",
    [
        "- **Rivera et al. (2019) not accessed:** the survey may hold regional data.",
        "- [ ] Rivera et al. (2019) Release Trains at Scale, seeded survey page.",
        "- Access note: Rivera et al. (2019) returned 403 in this session.",
        "- The Rivera et al. (2019) survey was listed but was not directly accessed; see Okafor.",
        "- Access to Rivera et al. (2019) and to Okafor et al. (2020) was not obtained.",
    ],
)
def test_a_body_line_that_names_it_as_not_consulted_explains_it(record: str) -> None:
    text = item(f"- [x] [Alpha guide]({A})\n{RIVERA}", skill=f"Cited: {A}\n\n{record}")
    assert (run(text).score, run(text).findings) == (5, ())


def test_an_entry_named_by_its_title_and_its_label_is_cited_on_the_first_line_naming_it() -> None:
    # each label's places are read in the text's order; the entry is cited on the first line of all
    titled = f"- [ ] [Rivera et al. (2019) *Release Trains at Scale*]({C})"
    skill = (
        f"Cited: {A}\n\n- Rivera et al. (2019) was not accessed in this session.\n\n"
        "- The *Release Trains at Scale* survey sets the baseline.\n\n"
        "- Rivera et al. (2019) found shorter waits."
    )
    text = item(f"- [x] [Alpha guide]({A})\n{titled}", skill=skill)
    [notice] = notices(run(text))
    assert f"cited on line {line_of(text, '- The *Release Trains')}:" in notice.message


def test_an_entry_named_in_findings_before_the_skill_output_is_cited_on_the_findings_line() -> None:
    # Findings before Research Skill Output: the body reads the latter first, the entry is cited on
    # the document's first line that names it
    text = (
        f"# Digest equality\n\n## Sources\n\n- [x] [Alpha guide]({A})\n{RIVERA}\n\n## Findings\n\n"
        f"1. Z, as Rivera et al. (2019) found.\n\n## Research Skill Output\n\n"
        f"- [fact] X. [source: {A}]\n- Rivera et al. (2019) found it too.\n"
    )
    [notice] = notices(run(text))
    assert f"cited on line {line_of(text, '1. Z, as Rivera')}:" in notice.message


def test_the_same_work_consulted_through_another_copy_is_allowed() -> None:
    text = item(
        f"- [ ] [Rivera and Okafor (2019) Release Trains at Scale]({A})\n"
        f"- [x] [Rivera and Okafor (2019) Release Trains at Scale, author copy]({B})",
        skill=f"Cited: {B}",
    )
    assert (run(text).score, run(text).findings) == (5, ())
    short = item(f"- [ ] [Release notes]({A})\n- [x] [Release notes, mirror]({B})", skill=f"Cited: {B}")
    assert len(scored(run(short))) == 1  # titles under four words say too little


def test_the_reason_phrases_are_the_rubrics() -> None:
    text = item(
        f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B}) — deferred to the follow-up item", skill=A
    )
    assert len(scored(run(text))) == 1
    custom = SourceConsultationParams(reasons=("deferred",), not_consulted_labels=("parked",))
    assert run(text, custom).findings == ()
    parked = item(f"- [x] [Alpha guide]({A})\n\n**Parked:**\n\n- [ ] [Beta report]({B})", skill=A)
    assert run(parked, custom).findings == () and len(scored(run(parked))) == 1
    wildcard = SourceConsultationParams(reasons=("defer*",))
    assert run(text, wildcard).findings == ()


def test_a_url_named_only_in_notes_on_a_failed_access_is_not_cited() -> None:
    """ "Access note: the seeded page returned 403 in this session": the URL is recorded, not cited.
    Rule 2d1 does not ask for its entry, and an unticked source named only there is explained."""
    note = f"- Access note: the seeded page {B} returned 403 in this session; the item uses {A} instead."
    text = item(f"- [x] [Alpha guide]({A})", skill=f"{note}\n- [fact] X. [source: {A}]")
    assert run(text).findings == ()
    unticked = item(f"- [x] [Alpha guide]({A})\n- [ ] [Beta report]({B})", skill=note)
    assert run(unticked).findings == ()
    cited_too = item(f"- [x] [Alpha guide]({A})", skill=f"{note}\n- [fact] Y. [source: {B}]")
    [finding] = run(cited_too).findings  # also cited as evidence: then it needs its entry
    assert finding.line == line_of(cited_too, "[fact] Y.")
    no_notes = SourceConsultationParams(access_notes=("never used here",))
    assert [f.line for f in run(cited_too, no_notes).findings] == [line_of(cited_too, "Access note")]
    correction = f"- Search note: the seeded URL {B} pointed to an unrelated paper; replaced with {A}."
    assert run(item(f"- [x] [Alpha guide]({A})", skill=correction)).findings == ()


# --- entries without a URL, and what is not an entry ---------------------------------------


def test_a_source_without_a_url_is_a_finding() -> None:
    text = item(
        f"- [x] [Alpha guide]({A})\n- [x] `Research/completed/2026-01-02-prior-item.md` — prior work", skill=A
    )
    outcome = run(text)
    assert outcome.score == 4
    [finding] = outcome.findings
    assert finding.line == line_of(text, "prior-item.md")
    assert finding.message.startswith(
        "source has no URL, DOI or arXiv identifier (the template asks every source for one): `Research/"
    )
    doi_only = item(
        f"- [x] [Alpha guide]({A})\n- [x] Ito (2020) Tracing builds. doi:10.5555/tb.2020.7", skill=A
    )
    assert scored(run(doi_only)) == []


def test_the_templates_example_entries_and_group_headers_are_not_sources() -> None:
    sources = (
        "- `[Smith et al. (YYYY) Title of paper](https://url)` - for papers with named authors\n"
        f"- [x] [Alpha guide]({A})\n"
        f"- Prior items:\n  - [ ] `Research/completed/x.md`\n"
    )
    assert run(item(sources, skill=A)).findings == ()


# --- how URLs compare --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cited",
    [
        "HTTP://WWW.ALPHA.EXAMPLE.ORG/guide/",
        "https://alpha.example.org/guide#section-3",
        "alpha.example.org/guide",
        "https://alpha.example.org/gu%69de",
        "https://alpha.example.org/guide?utm_source=newsletter",
    ],
)
def test_urls_compare_without_scheme_www_case_slash_fragment_escapes_or_tracking(cited: str) -> None:
    text = item(f"- [ ] [Alpha guide]({A})", skill=f"[fact; source: https://{cited.split('://')[-1]}] X.")
    outcome = run(text)
    assert outcome.score == 5 and scored(outcome) == []


def test_url_normalisation_matches_scheme_www_and_slash() -> None:
    n = source_consultation.normalise_url
    assert n("http://www.Example.org/a/") == n("https://example.org/a#part")


def test_citations_are_found_whatever_the_case_and_script() -> None:
    """URLs are matched case-insensitively, ASCII or not, and also when the text holds a character
    whose lower case is ASCII (the byte-level search steps aside there)."""

    def outcome(cited: str) -> CheckOutcome:
        text = (
            "## Sources\n\n- [x] [A](https://Example.org/Page)\n- [x] [B](https://de.wikipedia.org/wiki/Ä)\n\n"
            f"## Research Skill Output\n\n{cited}\n\n## Findings\n\nNone.\n"
        )
        return source_consultation.check(parse_document(text))

    both = "See HTTP://WWW.EXAMPLE.ORG/page and https://de.wikipedia.org/wiki/ä here."
    assert notices(outcome(both)) == [] and outcome(both).score == 5
    assert notices(outcome(both + " \u212a")) == []  # KELVIN SIGN: the str path
    assert len(notices(outcome("See https://example.org/page only."))) == 1  # B never cited


def test_a_url_that_holds_another_url_is_cited_as_written() -> None:
    """A source URL with `www.` or a scheme inside it (a redirect or oEmbed address) is cited when the
    text quotes it, with or without its own scheme and `www.`; a different inner address is not."""
    inner = "https://www.youtube.com/oembed?url=https://www.youtube.com/watch?v=Ab1&format=json"

    def cited(body: str) -> bool:
        text = (
            f"## Sources\n\n- [x] [Video metadata]({inner})\n\n## Research Skill Output\n\n{body}\n\n"
            "## Findings\n\nNone.\n"
        )
        return not notices(source_consultation.check(parse_document(text)))

    assert cited(f"[fact; source: {inner}] The title is public.")
    assert cited("See youtube.com/oembed?url=https://www.youtube.com/watch?v=Ab1&format=json.")
    assert not cited("See https://www.youtube.com/oembed?url=https://www.youtube.com/watch?v=Zz9.")


def test_a_doi_the_entry_states_ties_its_landing_page_to_the_doi_link_and_the_pdf() -> None:
    landing = "https://journals.example.org/article/4471"
    sources = f"- [x] [Mbeki (2021) Queueing in review]({landing}) — doi:10.5555/qr.2021.14"
    for cited in (
        "https://doi.org/10.5555/qr.2021.14",
        "https://journals.example.org/doi/pdf/10.5555/qr.2021.14",
    ):
        outcome = run(item(sources, skill=f"[fact; source: {cited}] Review queues grow."))
        assert outcome.findings == (), cited
    # without the DOI on the entry nothing ties the two: the PDF is a URL with no Sources entry
    bare = item(
        f"- [x] [Mbeki (2021) Queueing in review]({landing})",
        skill="See https://journals.example.org/doi/pdf/10.5555/qr.2021.14",
    )
    assert [f.message.split(" ")[0] for f in scored(run(bare))] == [
        "https://journals.example.org/doi/pdf/10.5555/qr.2021.14"
    ]


def test_a_doi_written_in_the_body_cites_the_entry_that_states_it() -> None:
    sources = (
        "- [ ] [Mbeki (2021) Queueing in review](https://journals.example.org/article/4471) "
        "doi:10.5555/QR.2021.14"
    )
    cited = run(
        item(sources, skill="[fact; source: Mbeki 2021, DOI: 10.5555/qr.2021.14] Review queues grow.")
    )
    assert cited.score == 5 and scored(cited) == [] and len(notices(cited)) == 1  # cited, box unticked
    uncited = "[fact; source: a 2021 queueing study] Review queues grow."
    assert len(scored(run(item(sources, skill=uncited)))) == 1
    # "Mbeki 2021" is the entry's `Author (Year)` label: a citation by name
    assert scored(run(item(sources, skill="[fact; source: Mbeki 2021] Review queues grow."))) == []


def test_an_arxiv_paper_is_one_source_as_abstract_pdf_html_or_identifier() -> None:
    sources = "- [x] [Osei et al. (2024) Sparse probes](https://arxiv.org/abs/2405.01234)"
    for cited in (
        "https://arxiv.org/pdf/2405.01234v2",
        "https://arxiv.org/html/2405.01234v1",
        "https://arxiv.org/pdf/2405.01234.pdf",
    ):
        assert run(item(sources, skill=f"[fact; source: {cited}] Probes.")).findings == (), cited
    by_id = run(
        item(sources.replace("[x]", "[ ]"), skill="[fact; source: Osei et al., arXiv:2405.01234] Probes.")
    )
    assert by_id.score == 5 and scored(by_id) == []


# --- rule 2d1: every URL cited inline has a Sources entry -----------------------------------


def test_a_cited_url_without_a_sources_entry_is_a_finding_on_its_first_line() -> None:
    text = item(
        f"- [x] [Alpha guide]({A})",
        skill=f"- [fact] X. [source: {A}; {C}]\n- [fact] Y. [source: {C}]",
        findings=f"1. Z. (high confidence; source: {C})",
    )
    outcome = run(text)
    assert outcome.score == 4
    [finding] = outcome.findings
    assert finding.line == line_of(text, "[fact] X.")
    assert finding.message == f"{C} is cited here but has no entry in ## Sources (rule 2d1)"


def test_a_page_under_a_listed_address_is_that_sources() -> None:
    """A listed database or repository covers the pages under it; a sibling page or a site's other
    pages under a bare host are other sources."""
    host = "https://delta.example.org"
    skill = f"{A}/chapter-2 and {A}?page=3 and https://alpha.example.org/other and {host}/reports/7"
    text = item(f"- [x] [Alpha guide]({A})\n- [x] [Delta site]({host})", skill=skill)
    assert [f.message.split(" ")[0] for f in scored(run(text))] == [
        "https://alpha.example.org/other",
        f"{host}/reports/7",
    ]


def test_a_repositorys_raw_file_is_that_repositorys() -> None:
    """`raw.githubusercontent.com/OWNER/REPO/REF/PATH` is the file `github.com/OWNER/REPO/blob/REF/PATH`:
    under a listed repository, it is that source's."""
    repo = "https://github.com/rivera/release-trains"
    raw = "https://raw.githubusercontent.com/rivera/release-trains/main/docs/cli.md"
    other = "https://raw.githubusercontent.com/okafor/queues/main/README.md"
    text = item(f"- [x] [rivera/release-trains]({repo})", skill=f"Source: `{raw}`. See also {other}.")
    assert [f.message.split(" ")[0] for f in scored(run(text))] == [other]


def test_rule_2d1_reads_both_research_skill_output_and_findings() -> None:
    text = item(f"- [x] [Alpha guide]({A})", skill=A, findings=f"1. Z. (high confidence; source: {B})")
    [finding] = run(text).findings
    assert finding.line == line_of(text, "1. Z.")


def test_a_cited_url_is_placed_on_its_first_line_in_the_document_whatever_the_sections_order() -> None:
    # Findings before Research Skill Output: the body reads the latter first, the finding names the
    # document's first line citing the URL outside notes on a failed access
    text = (
        f"# Digest equality\n\n## Sources\n\n- [x] [Alpha guide]({A})\n\n## Findings\n\n"
        f"1. Z. (high confidence; source: {C})\n\n## Research Skill Output\n\n"
        f"- [fact] X. [source: {A}; {C}]\n"
    )
    [finding] = run(text).findings
    assert finding.line == line_of(text, "1. Z.")


def test_code_is_not_a_citation_but_a_lone_url_in_a_code_span_is() -> None:
    skill = f"Cited: {A}\n\n```sh\ncurl {B}\n```\n\nThe call is `curl -s {B}/items` here.\n\nSources: `{C}`"
    text = item(f"- [x] [Alpha guide]({A})", skill=skill)
    [finding] = run(text).findings
    assert finding.message.startswith(C) and finding.line == line_of(text, "Sources: `")


@pytest.mark.parametrize(
    "template",
    [
        "https://TOKEN@git.example.org/",
        "https://user:secret@git.example.org/a.git",
        "https://git.example.org/{owner}/{repo}.wiki.git",
        "https://git.example.org/<org>/<repo>",
        "https://git.example.org/rivera/release-trains.git",  # a clone address, as .gitmodules has it
    ],
)
def test_a_url_template_in_a_code_span_is_code_not_a_citation(template: str) -> None:
    """A span holding a URL with credentials or placeholders shows a form to type, not a source."""
    skill = f"Cited: {A}\n\nClone with `{template}` when the proxy allows it."
    assert run(item(f"- [x] [Alpha guide]({A})", skill=skill)).findings == ()
    handle = "https://blog.example.org/@rivera/release-trains"  # a handle in the path is an address
    [finding] = run(item(f"- [x] [Alpha guide]({A})", skill=f"{A}\n\nSource: `{handle}`")).findings
    assert finding.message.startswith(handle)


def test_a_cited_url_listed_under_related_says_so() -> None:
    companion = "https://research.example.org/items/2026-01-02-prior.html"
    text = item(
        f"- [x] [Alpha guide]({A})",
        skill=f"{A} and {companion}",
        extra=f"\n## Related\n\n- [Prior item]({companion})\n",
    )
    [finding] = run(text).findings
    assert (
        finding.message == f"{companion} is cited here but has no entry in ## Sources "
        "(it is listed under ## Related, not Sources) (rule 2d1)"
    )


@pytest.mark.parametrize(
    ("unlisted", "cited", "expected"),
    [(0, 10, 5), (1, 10, 4), (3, 10, 4), (4, 40, 4), (4, 10, 3), (5, 10, 3), (6, 10, 2)],
)
def test_the_score_follows_the_share_of_cited_urls_without_an_entry(
    unlisted: int, cited: int, expected: int
) -> None:
    assert source_consultation.score(0, 5, unlisted, cited) == expected


def test_the_score_is_the_lower_of_the_two_parts() -> None:
    score = source_consultation.score
    assert score(1, 10, 0, 10) == 4 and score(0, 10, 4, 10) == 3 and score(1, 10, 4, 10) == 3
    assert score(6, 10, 0, 10) == 2 and score(0, 10, 6, 10) == 2 and score(3, 10, 1, 10) == 3


def test_a_link_to_the_item_itself_is_not_a_source() -> None:
    """Items cite their own backlog or in-progress copy ("Research question restated. Source: ...")."""
    own = "https://github.com/example/research/blob/main/backlog/2026-01-02-digest-equality.md"
    text = item(
        f"- [x] [Alpha guide]({A})", skill=f"{A}. Restated from {own}; see also {own.replace('.md', '.html')}"
    )
    document = parse_document(text, path="items/2026-01-02-digest-equality.md")
    assert source_consultation.check(document).findings == ()
    other = parse_document(text, path="items/2026-01-03-another-item.md")
    assert len(source_consultation.check(other).findings) == 2


@pytest.mark.parametrize(
    ("entry", "label"),
    [
        ("[Rivera et al. (2019) Release Trains at Scale](https://x.example/1)", ("Rivera", "2019")),
        ("[Rivera & Okafor (2019a) Release Trains](https://x.example/1)", ("Rivera", "2019")),
        ("[**Okafor, B. T., & Rivera, M. (2020) — Queues.**](https://x.example/1)", ("Okafor", "2020")),
        ("[Mbeki Tshabalala et al. (2021) Review queues](https://x.example/1)", ("Mbeki Tshabalala", "2021")),
        ("[de la Cruz (2018) Trains](https://x.example/1)", ("de la Cruz", "2018")),
        ("[Harbour Institute (2024) Annual review](https://x.example/1)", ("Harbour Institute", "2024")),
        ("[Rivera and Okafor — release trains paper (1997)](https://x.example/1)", ("Rivera", "1997")),
        ("[The State of Release Trains (2024)](https://x.example/1)", None),  # a title, no author
        ("[Release Trains at Scale](https://x.example/1)", None),  # no year
        ("[Rivera et al. 2019 Release Trains](https://x.example/1)", None),  # no (YYYY)
    ],
)
def test_an_entrys_author_and_year_label(entry: str, label: tuple[str, str] | None) -> None:
    from evalgate.checks.source_names import author_year
    from evalgate.document import SourceEntry

    found = author_year(SourceEntry(1, False, entry, ("https://x.example/1",)))
    assert (None if found is None else (found.author, found.year)) == label
