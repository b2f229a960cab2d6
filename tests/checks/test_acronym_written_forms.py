"""acronym_expansion reads the forms writers use (issue #25): names whose initials are irregular or
recursive, grouped and compound parentheses, tokens that are part of a name, tokens before `/`, the
reversed form with a list, audit notes; and each message says what is wrong on its line. The examples
are written here (public names, sentences of our own)."""

from __future__ import annotations

import pytest

from evalgate.checks.acronym_expansion import AcronymProblem, find_problems
from evalgate.checks.acronym_written import irregular_expansion, written_expansion
from evalgate.document import parse_document


def problems(text: str) -> dict[str, AcronymProblem]:
    return {p.acronym: p for p in find_problems(parse_document(text))}


@pytest.mark.parametrize(
    ("name", "abbr"),
    [
        ("Web Ontology Language", "OWL"),  # the initials in another order
        ("YAML Ain't Markup Language", "YAML"),  # recursive
        ("SPARQL Protocol and RDF Query Language", "SPARQL"),  # recursive, a small word giving a letter
        ("Explainable Artificial Intelligence", "XAI"),  # the first letter inside the first word
        ("Explainable AI", "XAI"),  # an acronym in the name gives its letters
        ("Extensible Access Control Markup Language", "XACML"),
        ("eXtensible Markup Language", "XML"),  # a capital inside a word
        ("Pseudo-Terminal", "PTY"),  # one letter from no word (missing_letters: 1)
        ("Grade School Math 8,000", "GSM8K"),
    ],
)
def test_a_name_with_irregular_or_recursive_initials_is_an_expansion(name: str, abbr: str) -> None:
    text = f"Our pipeline stores graphs written in the {name} ({abbr}) format.\n\nLater the {abbr} stays.\n"
    assert abbr not in problems(text)


def test_a_nested_expansion_inside_the_name_does_not_end_it() -> None:
    text = (
        "Queries use the SPARQL Protocol and Resource Description Framework (RDF) Query Language (SPARQL)"
        " today.\n\nThe SPARQL endpoint and the RDF store agree.\n"
    )
    assert problems(text) == {}


@pytest.mark.parametrize(
    ("text", "abbr"),
    [
        ("Read it using the API (see below) first.\n", "API"),  # a remark, not a name
        ("The job regenerates the backlink index (CI) nightly.\n", "CI"),  # lower-case words: initials only
        ("The companion Web Conference (WWW) paper.\n", "WWW"),  # shares one letter: no name
        ("Under Regulation (EU) 2022/2554 the rules tighten.\n", "EU"),  # one word
        ("Limits are 2 RPM, 32,000 TPM, 50 RPD (RPD resets daily).\n", "RPD"),  # acronyms are no name
        ("Leon is MIT License (MIT) licensed.\n", "MIT"),  # the acronym spells itself: no expansion
        ("Graphs are emitted as Graphviz DOT (DOT) files.\n", "DOT"),
    ],
)
def test_words_before_a_parenthesis_that_name_nothing_are_no_expansion(text: str, abbr: str) -> None:
    problem = problems(text)[abbr]
    assert problem.kind == "unexpanded"
    assert problem.line == 1


def test_the_irregular_rule_is_held_both_ways() -> None:
    assert written_expansion("the team chose Web Ontology Language ", "OWL") == "Web Ontology Language"
    assert irregular_expansion("the Gateway Layer", "API") is None  # letters missing
    assert irregular_expansion("the Retrieval Step", "RAG") is None  # too few on initials
    assert irregular_expansion("explainable artificial intelligence", "XAI") is None  # lower case
    assert irregular_expansion("Qualtrics Experience Management", "XM") == "Experience Management"


@pytest.mark.parametrize(
    ("sentence", "parts"),
    [
        ("Gates run in continuous integration and continuous delivery (CI/CD) pipelines.", ["CI", "CD"]),
        (
            "Both follow International Organization for Standardization and International"
            " Electrotechnical Commission (ISO/IEC) guidance.",
            ["ISO", "IEC"],
        ),
        ("Graphs ship as JavaScript Object Notation for Linked Data (JSON-LD) files.", ["JSON"]),
        ("Policies are written in HashiCorp Configuration Language (HCL/HCL2).", ["HCL", "HCL2"]),
        ("Use recovery point objective/recovery time objective (RPO/RTO) targets.", ["RPO", "RTO"]),
        ("Forecasts from the United States Centers for Disease Control (US CDC) agree.", ["US", "CDC"]),
    ],
)
def test_a_group_expands_each_of_its_parts(sentence: str, parts: list[str]) -> None:
    later = " ".join(f"The {p} again." for p in parts)
    assert problems(f"{sentence}\n\n{later}\n") == {}


def test_a_part_the_words_before_its_group_do_not_spell_is_reported_with_the_group() -> None:
    text = "Gates run in continuous integration (CI/CD) pipelines.\n\nThe CD step ships.\n"
    found = problems(text)
    assert "CI" not in found  # the part right after `(` may still be expanded alone
    assert found["CD"].line == 1
    assert found["CD"].message.startswith(
        'CD used without expansion: the words before "(CI/CD)" do not spell it; write "'
    )


def test_a_token_before_a_slash_is_read() -> None:
    text = "We compared regulators (APRA, FCA, ECB/EBA) on guidance.\n"
    found = problems(text)
    assert {"APRA", "FCA", "ECB", "EBA"} <= set(found)
    assert {found[a].line for a in ("ECB", "EBA")} == {1}


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("The EUR-Lex portal hosts the text.\n", "EUR"),  # glued to a word
        ("The KG-RAG pipeline answers.\n", "KG"),
        ("A Factcheck-GPT run scored well.\n", "GPT"),
        ("The NZ/Australia comparison follows.\n", "NZ"),  # glued to a word by `/`
        ("Reasoners support OWL 2 RL and OWL2 QL and the OWL EL profile.\n", "RL"),  # profiles of OWL
    ],
)
def test_a_token_that_is_part_of_a_name_is_no_use(text: str, absent: str) -> None:
    assert absent not in problems(text)


def test_a_name_part_is_a_use_where_the_acronym_also_stands_alone() -> None:
    text = "An LLM-based judge reads it.\n\nEach LLM call is logged.\n\nA KG-RAG pipeline and a RAG one.\n"
    found = problems(text)
    assert found["LLM"].line == 1
    assert found["LLM"].message.startswith('LLM used in "LLM-based" without expansion; write "Large')
    assert found["RAG"].line == 5 and 'in "KG-RAG"' in found["RAG"].message
    assert "KG" not in found  # never alone


def test_a_profile_is_no_use_even_where_the_acronym_stands_alone_for_something_else() -> None:
    text = "The OWL 2 RL profile suits rules.\n\nAgents trained with RL drift.\n"
    found = problems(text)
    assert found["RL"].line == 3
    assert "Reinforcement Learning (RL)" in found["RL"].message


def test_the_reversed_form_with_a_list_is_reported_as_reversed_with_its_list() -> None:
    items = (
        "Single Responsibility, Open-Closed, Liskov Substitution, Interface Segregation, Dependency Inversion"
    )
    text = f"The code follows SOLID ({items}) throughout.\n"
    problem = problems(text)["SOLID"]
    assert problem.kind == "defined_after"
    assert problem.message == (
        f'SOLID defined in reversed order as "SOLID ({items})"; '
        f'the protocol asks for "{items} (SOLID)" at first use'
    )
    assert problem.suggestion == items


def test_a_list_before_the_parenthesis_is_an_expansion() -> None:
    text = "Simple Create, Read, Update, Delete (CRUD) screens.\n\nThe CRUD layer.\n"
    assert problems(text) == {}


@pytest.mark.parametrize(
    "note",
    [
        "- GDPR: not expanded in this document, as readers know it.",
        "Acronym audit: LLM, API and SDK expanded at first use.",
        "- CORS: first use at Open Questions, expanded as shown.",
    ],
)
def test_an_audit_note_mentions_acronyms_without_using_them(note: str) -> None:
    assert problems(f"## Review\n\n{note}\n") == {}


def test_an_acronym_used_again_after_an_audit_note_is_still_checked() -> None:
    text = "Acronym audit: GDPR expanded at first use.\n\nThe GDPR applies here.\n"
    assert problems(text)["GDPR"].line == 3


def test_a_recursive_name_inside_the_parenthesis_is_reversed_not_unknown() -> None:
    text = "Workflows are YAML (YAML Ain't Markup Language) files.\n"
    problem = problems(text)["YAML"]
    assert problem.kind == "defined_after"
    assert problem.suggestion == "YAML Ain't Markup Language"
    assert 'asks for "YAML Ain\'t Markup Language (YAML)" at first use' in problem.message


def test_a_name_defined_after_it_is_one_problem_and_its_inner_acronyms_no_uses() -> None:
    text = "The EU AI Act (European Union Artificial Intelligence Act) applies.\n\nThen AI helps.\n"
    found = find_problems(parse_document(text))
    assert [(p.acronym, p.line, p.kind) for p in found] == [
        ("EU", 1, "defined_after"),
        ("AI", 3, "unexpanded"),
    ]
    assert found[0].message.startswith(
        'EU AI Act defined in reversed order as "EU AI Act (European Union Artificial Intelligence Act)"; '
        'the protocol asks for "European Union Artificial Intelligence Act (EU AI Act)" at first use'
    )


@pytest.mark.parametrize(
    ("text", "abbr", "message"),
    [
        (
            "Offline methods (Implicit Q-Learning — IQL) train on logs.\n",
            "IQL",
            'IQL written as "Implicit Q-Learning — IQL"; the protocol asks for "Implicit Q-Learning (IQL)"',
        ),
        (
            "The scanner OOPS!, the OntOlogy Pitfall Scanner, flags pitfalls.\n",
            "OOPS",
            'OOPS written as "OOPS!, the OntOlogy Pitfall Scanner"; the protocol asks for "OntOlogy Pitfall'
            ' Scanner (OOPS)"',
        ),
    ],
)
def test_a_name_in_another_form_is_reported_as_that_form(text: str, abbr: str, message: str) -> None:
    problem = problems(text)[abbr]
    assert problem.kind == "other_form"
    assert problem.message.startswith(message)


@pytest.mark.parametrize(
    "text",
    [
        "NIST SP 800-53 controls AC-2, AC-3 and AC-16 apply.\n",  # labels, not a name in apposition
        "Formats include RDF/XML, the XML syntax for RDF.\n",
    ],
)
def test_an_apposition_must_be_words(text: str) -> None:
    assert all(p.kind != "other_form" for p in find_problems(parse_document(text)))


def test_a_small_word_or_a_hyphenated_part_is_tried_both_ways() -> None:
    text = (
        "- TCO (Total Cost of Ownership) analyses.\n"
        "- GPT (Generative Pre-trained Transformer) models.\n"
        "- STRIDE (Spoofing, Tampering, Repudiation, Information Disclosure, Denial of Service, Elevation"
        " of Privilege) threats.\n"
        "- DORA (EU Digital Operational Resilience Act) rules.\n"
    )
    found = problems(text)
    assert {a: p.kind for a, p in found.items()} == {
        "TCO": "defined_after",
        "GPT": "defined_after",
        "STRIDE": "defined_after",
        "DORA": "defined_after",
        "EU": "unexpanded",  # the context word is an acronym of its own
    }
    assert found["DORA"].suggestion == "Digital Operational Resilience Act"  # the words that spell it


def test_an_acronym_run_together_with_its_version_is_that_acronym_where_it_stands_alone() -> None:
    text = (
        "The Web Ontology Language (OWL) is a standard.\n\nGraphDB supports OWL2 QL.\n\nFTS5 indexes text.\n"
    )
    found = problems(text)
    assert "OWL" not in found and "OWL2" not in found
    assert found["FTS5"].line == 5  # FTS never alone: FTS5 is its own name


@pytest.mark.parametrize(
    "text",
    [
        "Hard rules: BS11 and BS2A apply; BS2B was replaced.\n",  # numbered labels
        "Entries LLM01 to LLM09 and LLM10 are listed.\n",  # a catalogue: LLM10 beside LLM09
        "See PMC8103230 for the paper.\n",
        # a catalogue's controls and an algorithm named by two capitals and a number
        "The baseline maps to controls Account Review (QZ-2), QZ-17 and Incident Handling (RV-4).\n",
        "Cards are scheduled by the SM-2 algorithm.\n",
    ],
)
def test_numbered_labels_are_not_acronyms(text: str) -> None:
    assert problems(text) == {}


def test_a_persons_initials_are_no_acronym_where_a_citation_shows_them() -> None:
    sources = "## Sources\n\n- [Okafor, QT (2021). Queues at scale.](https://x.example/q)\n\n"
    assert problems(sources + "## Findings\n\nQT Okafor argues that queues grow.\n") == {}
    assert "QT" in problems("## Findings\n\nQT Okafor argues that queues grow.\n")


@pytest.mark.parametrize(
    ("citation", "initials"),
    [
        ("Okafor, QT (2021)", True),
        ("See de-Okafor, QT (1999).", True),  # a hyphen before the surname
        ("Ng, QT (2021)", True),
        ("Ké, QT (2021)", False),  # a capital, then a lower-case letter of a to z
        ("Okafor, QT (1999a)", False),  # the year is a word of its own
        ("OKafor, QT (2021)", False),  # a surname is a capital, then a lower-case letter
        ("2Okafor, QT (2021)", False),  # ... that starts a word
        ("okafor, QT (2021)", False),
        ("Okafor, QT (20215)", False),  # no year
        ("Okafor, QT (1499)", False),
        ("Okafor and Reyes, QT (2021)", True),
        ("Okafor, MN, QT (2021)", False),  # after a comma, not a surname
        ("Okafor\n, QT (2021)", False),  # the surname is on the line of the comma
    ],
)
def test_initials_are_those_written_between_a_surname_and_a_year(citation: str, initials: bool) -> None:
    text = (
        f"## Sources\n\n- {citation} Queues at scale.\n\n## Findings\n\nQT Okafor argues that queues grow.\n"
    )
    assert ("QT" not in problems(text)) is initials


def test_two_capitals_with_a_number_are_a_label_only_there() -> None:
    """QZ-2 is a label; QZ alone is still an acronym, used first where it stands alone."""
    found = problems("Control QZ-2 applies.\n\nThe QZ team reviews it.\n")
    assert list(found) == ["QZ"] and found["QZ"].line == 3
    assert "GPT" in problems("A GPT-4 model answers.\n")  # three capitals and a version: a use


def test_a_list_or_table_that_an_audit_line_introduces_is_an_audit_note() -> None:
    text = (
        "**Acronym and initialism check:**\n"
        "- TCO (Total Cost of Ownership) — not used\n"
        "- HR — clear from context\n\n"
        "| Acronym | First use | Expansion |\n|---|---|---|\n| PR | not used | N/A |\n\n"
        "Later the HR team joins.\n"
    )
    found = problems(text)
    assert set(found) == {"HR"} and found["HR"].line == 9


def test_a_long_spread_of_letters_is_no_name() -> None:
    # the letters of CHAOS are there, in order, over ten words: no one named it so
    text = "Evidence for churn and approval loop cycling comes from survey data (CHAOS, DORA).\n"
    assert problems(text)["CHAOS"].kind == "unexpanded"
    assert written_expansion(
        "Synthesis of Topic Outlines through Retrieval and Multi-perspective Question Asking ", "STORM"
    )


def test_the_name_before_a_comma_is_that_form_too_and_only_a_name() -> None:
    text = (
        "Guidance (Basel Committee on Banking Supervision, BCBS 328) applies.\n\n"
        "Sites such as knowledge management, KM Insider and PLDI, OOPSLA, POPL list it.\n"
    )
    found = problems(text)
    assert found["BCBS"].kind == "other_form"
    assert found["BCBS"].message.startswith(
        'BCBS written as "Basel Committee on Banking Supervision, BCBS"; the protocol asks for'
    )
    assert found["KM"].kind == found["POPL"].kind == "unexpanded"


def test_a_capitalised_word_is_an_acronym_only_where_the_document_expands_it() -> None:
    mention = "The planner returns UNSOLVABLE early.\n\nContradictions surface at search time (UNSOLVABLE).\n"
    assert problems(mention) == {}  # a `(WORD)` that no words before it spell is a mention
    expanded = "The GREEN ranker.\n\nA Graph Retrieval Engine Enhanced Network (GREEN) ranks.\n"
    assert problems(expanded)["GREEN"].kind == "late"


def test_every_word_in_the_acronym_lists_is_read_as_written() -> None:
    """YAML reads a bare NO, YES, ON or NULL as a boolean or null: such an entry never matched its
    token ("Items with NO sources" was reported). Every list entry must come out a string."""
    from evalgate.checks.acronym_table import _HERE
    from evalgate.yamlsafe import safe_load

    raw = safe_load((_HERE / "acronyms.yml").read_text(encoding="utf-8"))
    entries = [v for group in raw["not_acronyms"].values() for v in group]
    entries += raw["capitalised_words"] + raw["mixed_case"]
    assert [v for v in entries if not isinstance(v, str)] == []
    assert problems("Items with NO sources; YES or NO; ON by default.\n") == {}


def test_a_link_target_holding_parentheses_is_no_prose() -> None:
    text = "- [Lorenz (1963) Flow](https://doi.org/10.1175/1520-0469(1963)020%3C0130:DNF%3E2.0.CO;2)\n"
    assert problems(text) == {}
