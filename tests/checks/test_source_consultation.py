from __future__ import annotations

import pytest

from evalgate.checks import source_consultation
from evalgate.document import parse_document
from tests.checks.harmless import HARMLESS
from tests.checks.research_item import research_item


def run(text: str) -> source_consultation.CheckOutcome:
    return source_consultation.check(parse_document(text))


@pytest.mark.parametrize("edit", HARMLESS, ids=lambda f: f.__name__)
def test_harmless_edits_keep_the_score(edit) -> None:
    assert (run(edit(research_item())).score, run(edit(research_item())).findings) == (5, ())


def test_one_unchecked_source_is_reported_on_its_line() -> None:
    text = research_item(boxes=["x", " ", "x", "x", "x", "x"])
    outcome = run(text)
    assert outcome.score == 3
    assert [f.line for f in outcome.findings] == [
        text.split("\n").index("- [ ] [Reference 1](https://example.org/ref/2) — what it shows") + 1
    ]


def test_nothing_checked_and_no_sources() -> None:
    assert run(research_item(boxes=[" "] * 6)).score == 1
    assert run(research_item(drop_section="Sources")).score == 1


def test_checked_but_never_cited() -> None:
    text = research_item().replace("Cited: ", "Cited nowhere. ").replace(" https://example.org/ref/6", "")
    text = text.replace("https://example.org/ref/6", "https://example.org/ref/6", 1)
    body_free = text.split("## Research Skill Output")[0] + "## Findings\n\nNothing cited.\n"
    outcome = run(body_free)
    assert outcome.score == 2
    assert all("never cited" in f.message for f in outcome.findings)


def test_url_normalisation_matches_scheme_www_and_slash() -> None:
    n = source_consultation.normalise_url
    assert n("http://www.Example.org/a/") == n("https://example.org/a#part")


def test_citations_are_found_whatever_the_case_and_script() -> None:
    """URLs are matched case-insensitively, ASCII or not, and also when the text holds a character
    whose lower case is ASCII (the byte-level search steps aside there)."""
    from evalgate.document import parse_document

    def outcome(cited: str) -> int:
        text = (
            "## Sources\n\n- [x] [A](https://Example.org/Page)\n- [x] [B](https://de.wikipedia.org/wiki/Ä)\n\n"
            f"## Research Skill Output\n\n{cited}\n\n## Findings\n\nNone.\n"
        )
        return source_consultation.check(parse_document(text)).score

    both = "See HTTP://WWW.EXAMPLE.ORG/page and https://de.wikipedia.org/wiki/ä here."
    assert outcome(both) == 5
    assert outcome(both + " \u212a") == 5  # KELVIN SIGN: the str path
    assert outcome("See https://example.org/other only.") == 2
    assert outcome("See https://example.org/page only.") == 4  # one of two consulted sources uncited


def test_a_url_that_holds_another_url_is_cited_as_written() -> None:
    """A source URL with `www.` or a scheme inside it (a redirect or oEmbed address) is cited when the
    text quotes it, with or without its own scheme and `www.`; a different inner address is not."""
    inner = "https://www.youtube.com/oembed?url=https://www.youtube.com/watch?v=Ab1&format=json"

    def score(cited: str) -> int:
        text = (
            f"## Sources\n\n- [x] [Video metadata]({inner})\n\n"
            f"## Research Skill Output\n\n{cited}\n\n## Findings\n\nNone.\n"
        )
        return source_consultation.check(parse_document(text)).score

    assert score(f"[fact; source: {inner}] The title is public.") == 5
    assert score("See youtube.com/oembed?url=https://www.youtube.com/watch?v=Ab1&format=json.") == 5
    assert score("See https://www.youtube.com/oembed?url=https://www.youtube.com/watch?v=Zz9.") == 2
