"""acronym_expansion: every acronym is written `Full Name (ABBR)` at its first use in the whole document.

The rule is the research protocol's (research-prompt.md, "Critical: acronym expansion audit" and its
"Reversed-order check"): expand at the first use in the entire document, not per section; `ABBR` alone
thereafter; its table of most-failed abbreviations is checked with the expansions it requires; the
reversed order `(ABBR, Full Name)` is wrong. What counts as an acronym and what does not is decided in
docs/acronyms.md; the data (the protocol's table, the not-an-acronym lists) is in acronyms.yml.

How: one pass. Non-prose (front matter, code blocks, code spans, HTML comments and tags, URLs and link
targets) is blanked to spaces in a copy of the text, so offsets and line numbers stay those of the file
and a paragraph reflowed across lines reads the same. One precompiled regex then finds every acronym
token in document order; only the first use of each (and any use right after `(`, for the reversed
order) looks at its context.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from evalgate.checks import CheckOutcome
from evalgate.checks.acronym_forms import (
    expansion_before,
    expansion_within,
    initials_spell,
    same_words,
)
from evalgate.checks.acronym_prose import comment_spans, prose_line, skipped_lines
from evalgate.checks.acronym_table import AcronymTable, Shorthand, load_table, with_params
from evalgate.checks.acronym_tokens import token_finder
from evalgate.checks.readable import CAPPED_SCORE, disguise_findings
from evalgate.document import Document, normalise_title
from evalgate.results import Finding
from evalgate.rubrics.params import AcronymExpansionParams

__all__ = [
    "AcronymProblem",
    "AcronymTable",
    "Shorthand",
    "check",
    "find_problems",
    "load_table",
    "prose_line",
    "score_for",
]

ProblemKind = Literal["unexpanded", "late", "defined_after", "wrong_expansion", "shorthand", "reversed"]


@dataclass(frozen=True)
class AcronymProblem:
    """One acronym whose first use breaks the rule (or a reversed expansion), at a file line."""

    acronym: str
    kind: ProblemKind
    line: int
    message: str
    suggestion: str | None = None  # the expansion the message suggests, when one is known
    column: int = -1  # where the use starts in its line (0-based; `evalgate fix` edits there)
    written: str = ""  # the token as written there (LLMs, GPT-4)


# --- recognising acronyms and expansions ------------------------------------------------------------

_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")
# RQ1, H2, KF3, Q4, P95, and zero-padded catalogue ids (OWASP's LLM01, ASI03): labels, not acronyms
_REFERENCE_ID = re.compile(r"[A-Z]{1,2}[0-9]+|[A-Z]+0[0-9]+")
_WORD = re.compile(r"[A-Za-z0-9]+")
# `(AI RMF)`: an acronym that follows other acronyms inside a just-opened parenthesis is in it too.
_OPEN_GROUP = re.compile(r"\((?:[A-Z][A-Za-z0-9-]*[ \t]+){1,3}$")
_BLOCK_START = re.compile(r"[ \t]*(?:[-*+|>#]|\d+[.)])")  # a line that starts a block does not continue one
_LINK_TEXT = re.compile(r"\[[^\[\]]*\]\(")  # no `[` inside: a link's text starts at its last `[` (linear)
# Only a use right after `(` or after `(Capitalised Words ` (_OPEN_GROUP, over the 40 characters before
# it) can be a reversed expansion; both need a `(` followed by a capital in the raw text before it
# (masking blanks characters, it never makes them), the use's own first letter included.
_PAREN_CAPITAL = re.compile(r"\([A-Z]")
_PAREN_AFTER = re.compile(r"[ \t]*\(([^()]*)\)")  # `ABBR (Full Name)`: a parenthesis right after
# `(ABBR, Full Name)`: what follows the acronym in a reversed expansion (compiled here: `re.match` with a
# pattern string looks it up in re's cache at each of the ~8,500 uses right after a `(`)
_REVERSED_TAIL = re.compile(r"[ \t]*(?:,|:|\s[-–—=])[ \t]*([^()]*)\)")


def prose_lines(document: Document) -> Iterator[tuple[int, str]]:
    """(line number, the line with non-prose blanked) for every line that is prose at all."""
    prose = _Prose(document)
    for number in range(1, len(document.lines) + 1):
        line = prose.line(number)
        if line.strip():
            yield number, line


def _suggested(abbr: str, table: AcronymTable, in_document: str | None) -> str | None:
    """The expansion to suggest (see AcronymTable.suggestion for the order). The document's own is
    offered only when its words' initials spell the acronym."""
    if in_document is not None and not initials_spell(abbr, in_document):
        in_document = None
    return table.suggestion(abbr, in_document)


def _expected(abbr: str, suggestion: str | None) -> str:
    return f"{suggestion or 'Full Name'} ({abbr})"


def _unknown_hint(abbr: str) -> str:
    return (
        f" (its expansion is unknown to evalgate: add `{abbr}: Full Name` under `acronyms: expansions:`"
        " in .evalgate.yml, or list it under `acronyms: understood:` if readers know it)"
    )


# --- the pass over the document ----------------------------------------------------------------------


class _Prose:
    """The document's lines, masked to prose on demand (most lines never need it)."""

    def __init__(self, document: Document, sections: tuple[str, ...] = ()) -> None:
        self.lines = document.lines
        self.skip = skipped_lines(document)
        if sections:  # only these sections (and their subsections) are scanned
            keep = bytearray(len(self.skip))
            for title in sections:
                found = document.find_section(normalise_title(title))
                if found is not None:
                    keep[found.line : found.end_line + 1] = b"\x01" * (found.end_line + 1 - found.line)
            self.skip = bytearray(s | (k ^ 1) for s, k in zip(self.skip, keep, strict=True))
        self._masked: dict[int, str] = {}
        section = document.find_section("sources")
        self.sources = (section.line, section.end_line) if section is not None else (0, -1)

    def line(self, number: int) -> str:
        if self.skip[number]:
            return ""
        masked = self._masked.get(number)
        if masked is None:
            masked = self._masked[number] = prose_line(self.lines[number - 1])
        return masked

    def before(self, number: int, column: int) -> str:
        """Prose before `column` of a line, with up to three earlier lines while the paragraph wraps."""
        parts = [self.line(number)[:column]]
        while len(parts) < 4 and number > 1 and not _BLOCK_START.match(parts[-1]):
            number -= 1
            previous = self.line(number)
            if not previous.strip() or previous.lstrip().startswith("#"):
                break
            parts.append(previous)
        return " ".join(reversed(parts))


@dataclass
class _FirstUse:
    """Mutable bookkeeping during the pass; never leaves this module."""

    written: str  # the token as written (GPT-4, LLMs)
    line: int
    kind: ProblemKind | None  # None: the first use is expanded correctly
    detail: str = ""
    expanded_at: int | None = None
    long_form: str | None = None
    column: int = -1


def find_problems(
    document: Document, table: AcronymTable | None = None, *, sections: tuple[str, ...] = ()
) -> tuple[AcronymProblem, ...]:
    """Every acronym whose first use is not `Full Name (ABBR)`, and every reversed expansion; with
    `sections`, in those sections only."""
    table = table or load_table()
    text = document.text  # "\n".join(lines), and maybe one more "\n": the same offsets
    line, counted_to = 1, 0  # the line of offset `counted_to` (matches come in document order)
    comments = comment_spans(text)
    prose = _Prose(document, sections)
    title = next((s.line for s in document.sections if s.level == 1), None)
    tokens = token_finder(table.mixed_case, tuple(table.shorthand))
    first: dict[str, _FirstUse] = {}
    reversed_: list[AcronymProblem] = []
    judged: set[str] = set()  # tokens already found to be acronyms (see not_acronym below)
    not_acronym: set[str] = set()  # and not: decided once per document, by the token and the text only
    settled: set[str] = set()  # acronyms whose later uses matter only right after a `(` (_no_news)
    # Searched for at every later use of a settled acronym (~55,000 in the corpus): bound once, and
    # the window's start without a call to max() (those calls were 2% of the check's instructions).
    paren_capital = _PAREN_CAPITAL.search
    for m in tokens(text, document.utf8):
        abbr = m.group(1)  # the `abbr` group
        # Most of the ~87k matches in the corpus are later uses of a settled acronym or of a token that
        # is no acronym (13,000 matches): those go first, before anything else is looked at (whatever
        # else would decide, they change nothing).
        if abbr in not_acronym:
            continue
        at = m.start()
        if abbr in settled and paren_capital(text, at - 40 if at > 40 else 0, at + 1) is None:
            continue
        if abbr not in judged:
            if (
                abbr in table.not_acronyms
                or (abbr in table.capitalised_words and f"({abbr})" not in text)
                or _ROMAN.fullmatch(abbr) is not None
                or _is_reference_id(abbr, text, table)
            ):
                not_acronym.add(abbr)
                continue
            judged.add(abbr)
        use = first.get(abbr)
        if use is not None and abbr not in settled and _no_news(use, abbr, table):
            settled.add(abbr)  # for good: _no_news never turns false again for an acronym
            if paren_capital(text, at - 40 if at > 40 else 0, at + 1) is None:
                continue  # a later use outside any parenthesis cannot change this acronym's outcome
        line += text.count("\n", counted_to, at)
        counted_to = at
        line_start = text.rfind("\n", 0, at) + 1
        column = at - line_start
        masked = prose.line(line)
        if not masked or masked[column] == " " or (comments and _inside(comments, at)):
            continue
        after = masked[m.end() - line_start :]
        opened = column > 0 and (
            masked[column - 1] == "("
            or (
                masked[column - 1] == " "
                and _OPEN_GROUP.search(masked, max(0, column - 40), column) is not None
            )
        )
        if opened:
            problem = _reversed(after, abbr, line, table)
            if problem is not None:
                reversed_.append(replace(problem, column=column, written=m.group()))
                first.setdefault(abbr, _FirstUse(m.group(), line, "reversed"))
                continue
        if use is not None and (use.kind is None or use.expanded_at is not None):
            continue  # settled: later uses of an acronym may stand alone
        before = prose.before(line, masked.rfind("(", 0, column)) if opened else ""
        kind, detail, long_form = _classify(before, after, abbr, opened, table)
        if use is None:
            if kind not in (None, "wrong_expansion") and (
                line == title or _in_source_title(prose, line, column)
            ):
                continue  # a title is a label or a quotation; the author's own first use must expand it
            first[abbr] = _FirstUse(m.group(), line, kind, detail, long_form=long_form, column=column)
        elif kind is None:
            use.expanded_at, use.long_form = line, long_form
    problems = [
        _first_use_problem(abbr, use, table)
        for abbr, use in first.items()
        if use.kind not in (None, "reversed")
    ]
    return tuple(sorted(problems + reversed_, key=lambda p: (p.line, p.acronym)))


def _no_news(use: _FirstUse, abbr: str, table: AcronymTable) -> bool:
    """Whether a later use of `abbr` that is not right inside a parenthesis can change nothing: it is
    no reversed expansion (that needs a `(` and a capital after it within the 40 characters
    `_OPEN_GROUP` looks back over, and masking only blanks characters, so the raw text holds them too:
    `_PAREN_CAPITAL`), and it can only settle the
    acronym as a shorthand followed by an accepted word. Most of the ~87k matches in the corpus are
    such uses, and skipping them before the line is masked saves most of the check's Python time."""
    return use.kind is None or use.expanded_at is not None or abbr not in table.shorthand


def _in_source_title(prose: _Prose, line: int, column: int) -> bool:
    """Whether the column is inside the link text of an entry in the Sources section (a cited title)."""
    if not prose.sources[0] <= line <= prose.sources[1]:
        return False
    return any(m.start() < column < m.end() for m in _LINK_TEXT.finditer(prose.lines[line - 1]))


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    i = bisect.bisect_right(spans, (offset, len(spans) and 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def _is_reference_id(abbr: str, text: str, table: AcronymTable) -> bool:
    """RQ1, H2, KF3, Q4: labels, not acronyms. D3 is in the protocol's table, so it is a label only when
    a sibling (D1, D2, D4, ...) is in the document too."""
    if _REFERENCE_ID.fullmatch(abbr) is None:
        return False
    if abbr not in table.required and abbr not in table.checked:
        return True
    stem = abbr.rstrip("0123456789")
    return _sibling_regex(stem, abbr[len(stem) :]).search(text) is not None


@lru_cache(maxsize=256)
def _sibling_regex(stem: str, digits: str) -> re.Pattern[str]:
    """`stem` and a number other than `digits`, as a word of its own (D1 or D12 for D3). The stem
    comes first so the engine jumps between its occurrences; the look-behind after it checks the
    character before it (a look-behind in front would be tried at every position of the text)."""
    return re.compile(rf"{stem}(?<![\w-]{stem})(?!{digits}\b)[0-9]+\b")


def _classify(
    before: str, after: str, abbr: str, opened: bool, table: AcronymTable
) -> tuple[ProblemKind | None, str, str | None]:
    """How this use of `abbr` stands: (None = correctly expanded | problem kind, detail, long form)."""
    if abbr in table.shorthand:
        following = _WORD.search(after, 0, 40)
        ok = following is not None and following.group().lower() in table.shorthand[abbr].accept
        return (None if ok else "shorthand"), "", None
    if opened:
        long_form = expansion_before(before, abbr)
        if long_form is not None:
            required = table.required.get(abbr)
            if required is None or same_words(long_form, required):
                return None, "", long_form
            if initials_spell(abbr, long_form):  # a real expansion, but not the one the protocol requires
                return "wrong_expansion", long_form, long_form
    paren = _PAREN_AFTER.match(after)
    if paren is not None:
        inner = expansion_within(paren.group(1), abbr)
        if inner is not None:
            return "defined_after", inner, inner
    return "unexpanded", "", None


def _reversed(after: str, abbr: str, line: int, table: AcronymTable) -> AcronymProblem | None:
    """`(ABBR, Full Name)`: the protocol's grep, kept only where the words really spell the acronym
    (so a benign list such as `(API, CLI)` or `(GPU, Python 3.11)` is not a reversed expansion)."""
    sep = _REVERSED_TAIL.match(after)
    if sep is None:
        return None
    inner = expansion_within(sep.group(1), abbr)
    if inner is None:
        return None
    suggestion = _suggested(abbr, table, inner)
    wanted = _expected(abbr, suggestion)
    return AcronymProblem(
        abbr,
        "reversed",
        line,
        f'reversed expansion "({abbr}, {inner})"; write "{wanted}" instead',
        suggestion,
    )


def _first_use_problem(abbr: str, use: _FirstUse, table: AcronymTable) -> AcronymProblem:
    kind: ProblemKind = use.kind or "unexpanded"
    suggestion = None if kind == "shorthand" else _suggested(abbr, table, use.long_form)
    wanted = _expected(abbr, suggestion)
    if kind == "shorthand":
        message = f"{use.written} used as shorthand; {table.shorthand[abbr].advice} at first use"
    elif kind == "defined_after":
        message = f'{abbr} defined as "{abbr} ({use.detail})"; the protocol asks for "{wanted}" at first use'
    elif kind == "wrong_expansion":
        message = f'{abbr} expanded as "{use.detail} ({abbr})"; the protocol requires "{wanted}" at first use'
    elif use.expanded_at is not None:
        kind = "late"
        message = (
            f"{use.written} used before its expansion (expanded only at line {use.expanded_at}); "
            f'write "{wanted}" at first use'
        )
    else:
        message = f'{use.written} used without expansion; write "{wanted}" at first use'
    if suggestion is None and kind != "shorthand":
        message += _unknown_hint(abbr)
    return AcronymProblem(abbr, kind, use.line, message, suggestion, use.column, use.written)


def score_for(problems: tuple[AcronymProblem, ...]) -> int:
    """The rubric's anchors: 0 unexpanded -> 5, 1 -> 4, 2 -> 3, 3-4 -> 2, 5+ -> 1; a reversed expansion
    caps the score at 2."""
    unexpanded = len({p.acronym for p in problems if p.kind != "reversed"})
    score = (
        5
        if unexpanded == 0
        else 4
        if unexpanded == 1
        else 3
        if unexpanded == 2
        else 2
        if unexpanded <= 4
        else 1
    )
    if any(p.kind == "reversed" for p in problems):
        score = min(score, 2)
    return score


def check(document: Document, params: AcronymExpansionParams | None = None) -> CheckOutcome:
    """The acronym_expansion dimension: a score on the rubric's 1-5 anchors and one finding per problem."""
    sections = params.sections if params is not None else ()
    problems = find_problems(document, with_params(params), sections=sections)
    findings = tuple(Finding(p.line, p.message) for p in problems)
    score = score_for(problems)
    if document.disguised:  # invisible characters or look-alike letters in a word (checks.readable)
        findings += disguise_findings(document)
        score = min(score, CAPPED_SCORE)
    return CheckOutcome(score=score, findings=findings)
