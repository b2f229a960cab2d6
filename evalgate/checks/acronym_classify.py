"""How one use of an acronym stands, for the acronym_expansion check: expanded (`Full Name (ABBR)`, a
name that begins its own expansion, a group's part), or defined after it (`ABBR (Full Name)`, a list
too), written in another form (`Full Name — ABBR`, `ABBR, the Full Name`), or unexpanded. Given the text
around the use; what counts as a written expansion is acronym_written.py's.
"""

from __future__ import annotations

import re
from typing import Literal

from evalgate.checks.acronym_forms import acronym_letters, initials_spell, same_words
from evalgate.checks.acronym_table import AcronymTable
from evalgate.checks.acronym_uses import group_name
from evalgate.checks.acronym_written import expansion_within, list_expansion, list_items, written_expansion

ProblemKind = Literal[
    "unexpanded", "late", "defined_after", "wrong_expansion", "shorthand", "reversed", "other_form"
]

_WORD = re.compile(r"[A-Za-z0-9]+")
_PAREN_AFTER = re.compile(r"[ \t]*\(([^()]*)\)")  # `ABBR (Full Name)`: a parenthesis right after
# The capitalised words of a name the acronym begins, then a parenthesis (`EU AI Act (...)`)
_NAME_RUN = re.compile(r"((?:[ \t]+[A-Z][A-Za-z0-9-]*){1,3})[ \t]*\(([^()]*)\)")
_DASH_BEFORE = re.compile(r"(?:[ \t]+[-–—]|,)[ \t]+$")  # `Full Name — ABBR`, `Full Name, ABBR`
# `ABBR, the Full Name` / `ABBR, short for Full Name`: the name in apposition after the acronym, in
# words (`AC-2, AC-3` or `XML, the XML syntax` name nothing: _NO_ACRONYM)
_NO_ACRONYM = re.compile(r"(?:(?![A-Z][A-Z0-9]+\b)\S+(?:\s+|$))+")
_APPOSITION = re.compile(
    r"[!?]?[,:][ \t]+(?:short for[ \t]+|i\.e\.,?[ \t]+|the[ \t]+|an?[ \t]+)?(?P<name>[^,;:.()\[\]–—]+)"
)
# A capitalised word that may begin a list naming the acronym later on its line (`RACI matrix: who is
# Responsible, Accountable, Consulted, and Informed`)
_CAPITAL_WORD = re.compile(r"(?<![\w-])[A-Z][a-z][\w-]*")
_CLAUSE_END = re.compile(r"[.;()\[\]]")


def classify(
    before: str,
    after: str,
    abbr: str,
    written: str,
    opened: bool,
    group: tuple[int, str, bool] | None,
    compound: str,
    table: AcronymTable,
    first: bool = True,
) -> tuple[ProblemKind | None, str, str | None, str]:
    """How this use of `abbr` stands: (None = correctly expanded | problem kind, detail, long form, and
    the name defined after it when the acronym only begins it: `KG-RAG (...)`, `EU AI Act (...)`).

    `before` is the text before the `(` the use is in (the line before the use when it is in none),
    `after` the line after the use (after its whole name when it is part of one, `compound`), `opened`
    whether it opens a parenthesis (`(LLM)`, `(AI RMF)`), `group` the parenthesised group it is in.
    A later use (`first` false) matters only if it expands the acronym: the forms that are problems
    are not looked for (kind "unexpanded" then stands for all of them)."""
    if abbr in table.shorthand:
        following = _WORD.search(after, 0, 40)
        ok = following is not None and following.group().lower() in table.shorthand[abbr].accept
        return (None if ok else "shorthand"), "", None, ""
    if group is not None:  # `continuous integration and continuous delivery (CI/CD)`: each part
        long_form = written_expansion(before, group_name(group[1]), table.missing_letters)
        # `MIT Center for Information Systems Research (MIT CISR)` expands CISR; MIT spells itself
        spells_itself = long_form is not None and abbr in long_form.split()
        if long_form is not None and not spells_itself and _holds_required(long_form, abbr, table):
            return None, "", long_form, ""
        if not opened:  # a part after `/` or `-`: only the group's words can expand it
            return "unexpanded", "" if compound else group[1], None, ""
    if opened:
        long_form = written_expansion(before, abbr, table.missing_letters)
        if long_form is not None:
            required = table.required.get(abbr)
            if required is None or same_words(long_form, required):
                return None, "", long_form, ""
            if initials_spell(abbr, long_form):  # a real expansion, but not the one the protocol requires
                return "wrong_expansion", long_form, long_form, ""
    elif group is None:
        long_form = _own_expansion(written, after, abbr, table)
        if long_form is not None:
            return None, "", long_form, ""
        dashed = _dash_before(before) if first else None
        if dashed is not None:  # `Implicit Q-Learning — IQL`: the name is there, in another form
            long_form = written_expansion(before[: dashed.start()] + " ", abbr, table.missing_letters)
            if long_form is not None and _a_name(long_form) and initials_spell(abbr, long_form):
                return "other_form", f"{long_form}{dashed.group()}{written}", long_form, ""
    if not first:
        return "unexpanded", "", None, ""
    paren = _PAREN_AFTER.match(after)
    if paren is not None:
        named = compound or abbr
        inner = expansion_within(paren.group(1), named) or list_expansion(paren.group(1), named)
        if inner is not None:
            return "defined_after", inner, inner, compound
    run = _NAME_RUN.match(after) if not (opened or compound) and group is None else None
    if run is not None and _NO_ACRONYM.fullmatch(run.group(2).strip()) is None:
        run = None  # `PROV Ontology (PROV-O)`: an acronym in the parenthesis, no expansion
    if run is not None and expansion_within(run.group(2), written + run.group(1)) is not None:
        # `EU AI Act (European Union Artificial Intelligence Act)`: the name it begins is defined after it
        name = written + run.group(1)
        return "defined_after", run.group(2).strip(), run.group(2).strip(), name
    if not opened:
        apposed = _named_after(written, after, abbr)
        if apposed is not None:
            return "other_form", apposed[0], apposed[1], ""
    return "unexpanded", "", None, ""


def _named_after(written: str, after: str, abbr: str) -> tuple[str, str] | None:
    """(the text as written, the name) when the line names the acronym after it in words: in
    apposition (`OOPS!, the OntOlogy Pitfall Scanner`, `FTS5: SQLite's Full-Text Search`), or as a
    list further on (`RACI matrix: who is Responsible, Accountable, Consulted, and Informed`)."""
    apposed = _APPOSITION.match(after)
    if apposed is not None:
        words = apposed.group("name").split()
        for start in range(min(3, len(words))):
            for k in range(len(words), start + 1, -1):
                name = " ".join(words[start:k]).rstrip(" -")
                if _NO_ACRONYM.fullmatch(name) and initials_spell(abbr, name):
                    end = apposed.start("name") + apposed.group("name").index(name) + len(name)
                    return f"{written}{after[:end]}", name
    clause = _CLAUSE_END.split(after, maxsplit=1)[0][:240]
    last_comma = clause.rfind(",")  # a list has two items at least
    first = acronym_letters(abbr)[:1]
    for word in _CAPITAL_WORD.finditer(clause, 0, last_comma):
        if word.group()[0].lower() != first:
            continue  # the list's first item gives the first letter
        items = list_items(clause[word.start() :])
        for n in range(len(items), 1, -1):
            if all(i[:1].isupper() for i in items[:n]) and list_expansion(", ".join(items[:n]), abbr):
                shown = ", ".join(items[: n - 1]) + ", " + items[n - 1].split()[0]
                return f"{written} … {shown}", shown
    return None


def _dash_before(before: str) -> re.Match[str] | None:
    """`_DASH_BEFORE` at the end of `before`, searched for only from the white space before its last
    character (a `$`-anchored search from the start of a long line tries every position)."""
    trail = before.rstrip(" \t")
    if len(trail) == len(before) or trail[-1:] not in ("-", "–", "—", ","):
        return None
    return _DASH_BEFORE.search(before, len(trail[:-1].rstrip(" \t")))


def _a_name(words: str) -> bool:
    """Capitalised words (small words aside) and no acronym among them: `Goal Completion Rate` before
    `, GCR` is a name; `knowledge management, KM` or `PLDI, OOPSLA, POPL` is not."""
    found = words.split()
    return _NO_ACRONYM.fullmatch(words) is not None and all(
        w[0].isupper() or w.lower() in ("of", "and", "for", "the", "in", "on", "to", "with", "by", "a", "an")
        for w in found
    )


def _holds_required(long_form: str, abbr: str, table: AcronymTable) -> bool:
    """Whether a group's expansion holds the protocol's required words for `abbr` (if it has any)."""
    required = table.required.get(abbr)
    if required is None:
        return True
    words = long_form.split()
    return any(same_words(" ".join(words[: k + 1]), required) for k in range(len(words)))


def _own_expansion(written: str, after: str, abbr: str, table: AcronymTable) -> str | None:
    """The expansion this use begins, when it is the first word of a recursive name followed by
    `(ABBR)` in the same clause ("YAML Ain't Markup Language (YAML)", "SPARQL Protocol and RDF Query
    Language (SPARQL)"); None otherwise."""
    later = after.find(f"({abbr})", 0, 240)
    if later < 0:
        return None
    long_form = written_expansion(written + after[:later], abbr, table.missing_letters)
    if long_form is None:
        return None
    words = long_form.split()  # (written_expansion held a recursive name's other words to its letters)
    if len(words) < 2 or words[0].strip("*_\"'") != written:
        return None
    required = table.required.get(abbr)
    return long_form if required is None or same_words(long_form, required) else None
