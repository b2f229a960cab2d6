"""The em-dash fixes `evalgate fix` applies for a rubric with the `em_dashes` dimension (the
research-review pack): the review prompt's "Em-dashes must be replaced with a comma, colon, or
restructured sentence", made where the sentence decides which, within one line:

- two em-dashes around a phrase of one sentence become parentheses: `the two concerns — state and
  metadata — stay apart` -> `the two concerns (state and metadata) stay apart`;
- one em-dash after a list item's label (a link, bold, italic or code, or a few words) becomes a
  colon: `- [Guide](https://...) — the vendor's rules` -> `- [Guide](https://...): the vendor's rules`;
- one em-dash before a connecting word (which, who, where, while, but, and, including, e.g., not, a
  word in -ing ...) becomes a comma: `... item types — which is not our case` -> `..., which ...`;
- one em-dash after a clause of three words or more, before the rest of its sentence, becomes a
  colon (what follows explains or lists; a comma there could splice two clauses):
  `a hard stop — the owner must approve it` -> `a hard stop: the owner must approve it`.

Everything else is left for the author, with the reason: three or more em-dashes in a sentence, a
pair around words that hold a parenthesis, a colon or a quotation, a pair inside parentheses, one
between digits (a range: an en dash or "to"), one alone in a table cell (a placeholder), one that
opens or ends its sentence or stands by other punctuation, one that its sentence does not decide.
Never touched (the prompt allows no exception, but these are written as their source wrote them or
would break): code (blocks and spans), URLs and link targets, HTML and its entities (`&mdash;`),
headings (their anchors), front matter, block quotes, a link's text, a quotation or an italic title
(evalgate/fix/regions.py and refusals.py decide where), and a line holding an invisible character.
As for acronyms, an edit after which another dimension's result would change is undone and left.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from evalgate.checks.acronym_prose import prose_line
from evalgate.checks.em_dashes import EM_DASH, em_dash_columns
from evalgate.checks.review_prose import table_cells
from evalgate.document import Document, normalise_title, parse_document
from evalgate.document.prose import sentence_ends
from evalgate.fix.acronyms import Checks, Edit, FixResult, apply_edits, one_at_a_time, other_results
from evalgate.fix.refusals import cited, invisible
from evalgate.fix.regions import Guard
from evalgate.rubrics.params import EmDashesParams

NAME = "em-dash"
_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_QUOTE_LINE = re.compile(r"[ \t]{0,3}>")
_WORD = re.compile(r"[^\W_][\w'’.-]*")
# After one em-dash, a word that joins what follows to the clause before: a comma fits.
CONNECTORS = frozenset(
    {
        *("which", "who", "whose", "whom", "where", "while", "whereas", "but", "and", "or", "nor", "so"),
        *("yet", "although", "though", "including", "especially", "particularly", "notably", "not"),
        *("unlike", "except", "e.g.", "i.e.", "for", "plus", "rather", "instead"),
    }
)
_LABEL_END = ("`", "**", "__", "*", "_", ")", "]")
_UNDECIDED = "its sentence does not say whether a comma, a colon or parentheses fits: rewrite it"
_STOPS = (",", ".", ";", ":", ")", "]", "!", "?")
_LABEL_WORDS = 6  # a list item's lead of at most this many words is its label
_CLAUSE_WORDS = 3  # a clause before a colon has at least this many words
_PAIR_WORDS = 25  # a phrase between two em-dashes of at most this many words becomes a parenthetical
MAX_PER_LINE = 40  # more em-dashes on one line are all left (the corpus's most is 10)


@dataclass(frozen=True)
class DashLeft:
    """An em-dash left for the author (`acronym` is what the account names: "em-dash")."""

    line: int
    column: int
    acronym: str = NAME


def _scope(document: Document, sections: tuple[str, ...]) -> set[int]:
    if not sections:
        return set(range(1, len(document.lines) + 1))
    found = [document.find_section(normalise_title(title)) for title in sections]
    return {n for s in found if s is not None for n in range(s.line, s.end_line + 1)}


def _line_refusal(document: Document, number: int, raw: str, headings: set[int]) -> str | None:
    """Why no em-dash of this line is edited, or None."""
    fm = document.front_matter
    if fm.start_line is not None and fm.end_line is not None and fm.start_line <= number <= fm.end_line:
        return "in the front matter (a field's value, such as the title): edit it by hand"
    if any(first <= number <= last for first, last in document.code_blocks):
        return "inside a code block (code is quoted as written): edit it by hand"
    if number in headings:
        return "in a heading (its anchor would change): edit it by hand"
    if _QUOTE_LINE.match(raw):
        return "in a block quote (a source's words): edit it by hand"
    hidden = invisible(raw)
    if hidden is not None:
        return f"the line holds an invisible character ({hidden}): remove it, then run fix again"
    if number in document.altered_lines:
        return "on a line the readers' view changes (a hidden comment or character): edit it by hand"
    return None


def _segments(raw: str) -> tuple[list[tuple[int, int]], int | None]:
    """The sentences of a line (a table row: its cells' sentences) as (start, end) columns, and where
    a list item's text starts (after its marker and box), or None on a line that starts no item."""
    item = _ITEM.match(raw)
    if raw.lstrip().startswith("|"):
        cells, start_at = table_cells(raw), None
    else:
        start_at = item.end() if item is not None else None
        cells = [(start_at or 0, len(raw))]
    spans = []
    for first, last in cells:
        start = first
        for end in [first + e for e in sentence_ends(raw[first:last])] + [last]:
            if end > start:
                spans.append((start, end))
                start = end
    return spans, start_at


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _spaced(raw: str, column: int) -> tuple[int, int]:
    """The em-dash at `column` with the spaces around it, and a run of hyphens written after it as
    part of one separator (`— - description`: 1,498 times in the corpus): (start, end)."""
    start, end = column, column + 1
    while start > 0 and raw[start - 1] in " \t":
        start -= 1
    while end < len(raw) and raw[end] in " \t":
        end += 1
    hyphens = end
    while hyphens < len(raw) and raw[hyphens] == "-":
        hyphens += 1
    if hyphens > end and end > column + 1 and raw[hyphens : hyphens + 1] in (" ", "\t"):
        end = hyphens
        while end < len(raw) and raw[end] in " \t":
            end += 1
    return start, end


def _single(
    raw: str, prose: str, first: int, last: int, column: int, item: int | None
) -> tuple[str | None, str]:
    """(the replacement text for the dash and its spaces, or None; why not) for one em-dash; `item`:
    where the list item's text starts, when the sentence opens one."""
    before, after = prose[first:column], prose[column + 1 : last]
    after_words = _words(after)
    if not after_words:
        return None, "it ends its sentence: rewrite the sentence"
    if not raw[first:column].strip(" \t*_"):
        return None, "it opens its sentence: rewrite the sentence"
    # a label: the sentence opens its line, list item or table cell, and what comes before the dash
    # is marked up (a link, bold, italics, code, a URL) or a few plain words
    opens = first == (item or 0) or not raw[:first].strip() or raw[first - 1 : first] == "|"
    label = raw[first:column].rstrip()
    short = len(_words(before)) <= _LABEL_WORDS and not re.search(r"[,;:.!?]", before)
    colon = ":" not in prose[first:last]  # a second colon in one sentence reads badly
    head = after_words[0].lower()
    clause = len(_words(before)) >= _CLAUSE_WORDS
    if opens and label.endswith(_LABEL_END):  # a marked-up label takes a colon or nothing
        return (": ", "") if colon else (None, _UNDECIDED)
    if head in CONNECTORS or (clause and head.endswith("ing") and len(head) > 4):
        return ", ", ""
    if opens and short:  # a label in a few words ("Q4b", "Context rot")
        return (": ", "") if colon else (None, _UNDECIDED)
    if clause and colon:
        return ": ", ""
    return None, _UNDECIDED


def _pair(raw: str, prose: str, a: int, b: int) -> tuple[str | None, str]:
    """(the parenthetical replacing raw[a..b] with the spaces around, or None; why not)."""
    inner = raw[a + 1 : b].strip()
    if not _words(inner) or len(_words(inner)) > _PAIR_WORDS:
        return None, "the words between the two em-dashes are too many for parentheses: rewrite it"
    if any(ch in inner for ch in '():;"“”'):
        return None, "the words between the two em-dashes hold a parenthesis, colon or quotation: rewrite it"
    if prose[:a].count("(") > prose[:a].count(")"):
        return None, "inside a parenthesis: parentheses would nest: rewrite it"
    return f" ({inner}) ", ""


def _decide(
    raw: str, prose: str, first: int, last: int, columns: list[int], item: int | None
) -> tuple[list[Edit], str | None]:
    """The edits for the em-dashes of one sentence, or why they are left."""
    if raw[first:last].strip() == EM_DASH:
        return [], "alone in a table cell (a placeholder): write n/a or leave the cell empty"
    for column in columns:
        before = raw[column - 1 : column] if column > 0 else ""
        after = raw[column + 1 : column + 2]
        if before.isdigit() and after.isdigit():
            return [], "between digits (a range): write an en dash (–) or 'to' by hand"
        start, end = _spaced(raw, column)
        if raw[end : end + 1] in _STOPS or raw[start - 1 : start] in ("(", "["):
            return [], "next to other punctuation: rewrite it"
    if len(columns) >= 3:
        return [], f"{len(columns)} em-dashes in one sentence: rewrite it"
    if len(columns) == 2:
        a, b = columns
        new, why = _pair(raw, prose, a, b)
        if new is None:
            return [], why
        start, end = _spaced(raw, a)[0], _spaced(raw, b)[1]
        if end == len(raw) or raw[end] in "|":
            new = new.rstrip() + (" " if end < len(raw) else "")
        return [Edit(0, start, raw[start:end], new, NAME)], None
    (column,) = columns
    new, why = _single(raw, prose, first, last, column, item)
    if new is None:
        return [], why
    start, end = _spaced(raw, column)
    if end == len(raw) or raw[end] == "|":
        new = new.rstrip() + (" " if end < len(raw) else "")
    return [Edit(0, start, raw[start:end], new, NAME)], None


def _refusal(guard: Guard, number: int, raw: str, prose: str, column: int) -> str | None:
    """Why the em-dash at `column` is left where it stands, or None."""
    if raw[column] != EM_DASH:
        return "an HTML entity: write a comma, a colon or parentheses by hand"
    if prose[column] != EM_DASH:
        return "inside code, a URL or markup: edit it by hand"
    why = guard.why_not(number, column, column + 1)  # its reasons speak of expanding an acronym
    return why.replace("expand it", "edit it") if why is not None else cited(raw, prose, column, column + 1)


def _line_edits(guard: Guard, number: int, raw: str) -> tuple[list[Edit], list[tuple[DashLeft, str]]]:
    """The edits for one line's em-dashes, and those left with the reason."""
    columns = em_dash_columns(raw)
    if len(columns) > MAX_PER_LINE:  # each is weighed against its whole line: bounded, so linear
        many = f"{len(columns)} em-dashes on one line: rewrite it by hand"
        return [], [(DashLeft(number, c), many) for c in columns]
    prose = prose_line(raw)
    edits: list[Edit] = []
    left: list[tuple[DashLeft, str]] = []
    spans, item = _segments(raw)
    for first, last in spans:
        mine = columns[bisect.bisect_left(columns, first) : bisect.bisect_left(columns, last)]
        if not mine:
            continue
        why = next((r for c in mine if (r := _refusal(guard, number, raw, prose, c)) is not None), None)
        found: list[Edit] = []
        if why is None:
            found, why = _decide(raw, prose, first, last, mine, item)
        if why is not None:
            left += [(DashLeft(number, c), why) for c in mine]
        edits += [Edit(number, e.column, e.old, e.new, e.acronym) for e in found]
    return edits, left


def fix_em_dashes(text: str, params: EmDashesParams | None, others: Checks) -> FixResult:
    """Fix the em-dashes of LF-normalised `text` whose sentence decides the replacement (see the
    module's docstring); `others` are the other deterministic dimensions, which must not move."""
    result = FixResult(text)
    document = parse_document(text)
    guard = Guard(document)
    headings = set(document.heading_lines)
    lines = text.split("\n")
    edits: list[Edit] = []
    for number in sorted(_scope(document, params.sections if params is not None else ())):
        raw = lines[number - 1]
        if EM_DASH not in raw and "&" not in raw:
            continue
        columns = em_dash_columns(raw)
        if not columns:
            continue
        why = _line_refusal(document, number, raw, headings)
        if why is not None:
            result.left += [(DashLeft(number, c), why) for c in columns]
            continue
        found, left = _line_edits(guard, number, raw)
        edits += found
        result.left += left
    if not edits:
        return result
    baseline = other_results(document, others)
    fixed = apply_edits(text, edits)
    if other_results(parse_document(fixed), others) != baseline:
        kept_text, kept = one_at_a_time(text, edits, others, baseline, set())
        why = "fixing it would change another dimension's result: rewrite it by hand"
        for edit in edits:
            if edit not in kept:  # each of its em-dashes (a pair's two)
                dashes = [edit.column + i for i, ch in enumerate(edit.old) if ch == EM_DASH]
                result.left += [(DashLeft(edit.line, column), why) for column in dashes]
        fixed, edits = kept_text, kept
    result.text, result.fixed = fixed, edits
    return result
