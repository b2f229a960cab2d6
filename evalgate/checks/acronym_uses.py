"""Where an acronym token stands in its (masked) line, for the acronym_expansion check: whether it is part
of a name (`EUR-Lex`, `KG-RAG`, `Factcheck-GPT`, `NZ/Australia`, `OWL 2 RL`) rather than a use of the
acronym, whether it sits in a parenthesised group (`(CI/CD)`, `(ISO/IEC)`, `(JSON-LD)`, `(AI RMF)`),
and whether its line is an audit note that talks about acronyms (`- GDPR: not expanded in this
document`, or an item of a list such a line introduces). Functions of a line's text and a column, and
`DocumentUses` for what the check asks of the whole document.

A name part is a use only where the same acronym also stands alone somewhere in the document (the
check asks that of the whole document once per acronym): "RAG" in "KG-RAG" counts when the document
also writes "RAG", "Lex" is never asked about and "EUR" in "EUR-Lex" alone is no use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from evalgate.checks.acronym_prose import Prose, inside_spans
from evalgate.checks.acronym_table import AcronymTable
from evalgate.checks.acronym_tokens import token_regex
from evalgate.document import Document

# The other side of a `/`: an acronym (CI/CD, ECB/EBA: both are uses) or a word (NZ/Australia: a name).
_ACRONYM_PART = re.compile(r"[A-Z][A-Z0-9]*[A-Z0-9]s?|[A-Z][a-z]?[A-Z][A-Za-z0-9]*")
_ALNUM_BEFORE = re.compile(r"[^\W_]+$")
_ALNUM_AFTER = re.compile(r"[^\W_]+")
# A name with a version right before the token: `OWL 2 RL`, `OWL2 QL`, `ITIL 4 ECAB` (a profile or an
# edition of that name: one or two digits, so a year such as `METR 2025 RCT` is not one).
_VERSIONED = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*[A-Z] ?[0-9]{1,2}(?:\.[0-9]+)? $")
# A compound around a token: letters and digits joined by `-` or `/` (for the message).
_COMPOUND = re.compile(r"[^\W_][\w.]*(?:[-/][^\W_][\w.]*)*")
# A parenthesised group: two to six parts joined by `/`, `-`, `+` or `&` (`CI/CD`, `JSON-LD`,
# `Multi-AZ`, `PAP/PDP/PEP`), or acronyms side by side (`AI RMF`, `US CDC`); no list commas, and no
# words beside a space (`(rather than JSON files)` is a remark, not a group).
_JOINED = r"[^\W_][\w'.]*(?:(?:[ \t]*[/+&][ \t]*|-)[^\W_][\w'.]*)*"
_GROUP = re.compile(rf"[ \t]*{_JOINED}(?:[ \t]+{_JOINED}){{0,5}}[ \t]*")
_SIDE_BY_SIDE = re.compile(r"[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*s?")
_GROUP_MAX = 60


def _glued_word(side: str) -> bool:
    """Whether the alphanumeric run beside a `/` is a word (a name) rather than an acronym."""
    return _ACRONYM_PART.fullmatch(side) is None


def name_part(masked: str, start: int, end: int) -> tuple[str, int, int] | None:
    """The compound (`KG-RAG`, `OWL 2 RL`) and its span in `masked` when the token at [start, end) is
    part of a name: glued by `-` to a word or another token on either side, glued by `/` to a word
    (not to an acronym: `CI/CD` is two uses), or right after a name and its version. None when it
    stands alone."""
    before = masked[start - 1] if start > 0 else ""
    after = masked[end] if end < len(masked) else ""
    glued = False
    if before in ("-", "/") and start > 1 and masked[start - 2].isalnum():
        glued = before == "-" or _glued_word(_ALNUM_BEFORE.search(masked, 0, start - 1).group())  # type: ignore[union-attr]
    if not glued and after in ("-", "/") and end + 1 < len(masked) and masked[end + 1].isalnum():
        glued = after == "-" or _glued_word(_ALNUM_AFTER.match(masked, end + 1).group())  # type: ignore[union-attr]
    if glued:
        return _compound_around(masked, start, end)
    if before == " " and start > 2 and masked[start - 2].isdigit():
        found = _VERSIONED.search(masked, max(0, start - 16), start)
        if found is not None:
            return masked[found.start() : end], found.start(), end
    return None


def _compound_around(masked: str, start: int, end: int) -> tuple[str, int, int]:
    left = start
    while left > 0 and (masked[left - 1].isalnum() or masked[left - 1] in "-/"):
        left -= 1
    found = _COMPOUND.match(masked, left)
    if found is None or found.end() < end:
        return masked[start:end], start, end
    text = found.group().rstrip(".")
    return text, left, left + len(text)


def paren_group(masked: str, start: int, end: int) -> tuple[int, str, bool] | None:
    """For a token inside a parenthesised group of two or more parts (`(CI/CD)`, `(AI RMF)`,
    `(JSON-LD)`): the `(`'s column, the group's text and whether the token begins a part of its own
    (right after the `(` or a space) rather than following a `/`, `-`, `+` or `&`. None otherwise."""
    opening = masked.rfind("(", max(0, start - _GROUP_MAX), start)
    if opening < 0 or ")" in masked[opening:start]:
        return None
    closing = masked.find(")", end, start + _GROUP_MAX)
    if closing < 0 or "(" in masked[end:closing]:
        return None
    text = masked[opening + 1 : closing]
    chunks = text.split()
    if len(chunks) == 1:  # asked first: most parentheses asked about hold one acronym alone, `(LLM)`
        chunk = chunks[0]
        if not ("/" in chunk or "-" in chunk or "+" in chunk or "&" in chunk):
            return None
    if _GROUP.fullmatch(text) is None:
        return None
    if len(chunks) > 1 and not all(_SIDE_BY_SIDE.fullmatch(c) for c in chunks):
        return None
    own = start == opening + 1 or masked[start - 1] in " \t"
    return opening, text.strip(), own


def profile_of(masked: str, start: int, names: str) -> bool:
    """Whether the token at `start` follows one of `names` (a regex alternation) and an optional
    version: `OWL 2 RL`, `OWL2 RL`, `OWL RL` (a profile of OWL, not the acronym RL)."""
    return _profile_regex(names).search(masked, max(0, start - 24), start) is not None


@lru_cache(maxsize=64)
def _profile_regex(names: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{names})(?: ?[0-9]{{1,2}}(?:\.[0-9]+)?)? $")


def audit_note(line: str, phrases: tuple[str, ...], keys: tuple[str, ...] | None = None) -> bool:
    """Whether a line holds one of the audit phrases (lower case; any case in the line): it talks about
    the acronyms. `keys`, when given, are the phrases' `audit_keys`, looked for first."""
    lowered = line.lower()
    if keys is not None:  # most lines hold none of the keys: 4 searches where the phrases took 10
        for key in keys:
            if key in lowered:
                break
        else:
            return False
    return any(phrase in lowered for phrase in phrases)


@lru_cache(maxsize=8)
def audit_keys(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """Words of which every line holding one of `phrases` holds one: each phrase's longest word, less
    any that holds another (`unexpanded` holds `expanded`, from `not expanded`)."""
    longest = {max(phrase.split() or [phrase], key=len) for phrase in phrases}  # (a blank one: itself)
    return tuple(sorted(w for w in longest if not any(o != w and o in w for o in longest)))


_ITEM = re.compile(r"[ \t]*(?:[-*+][ \t]|\||\d{1,9}[.)][ \t])")


def audit_block_start(lines: Sequence[str], number: int, known: dict[int, int | None]) -> int | None:
    """For a list item or table row (1-based line `number`), the line that introduces its list or table:
    the line just before the run of items and rows it belongs to (one blank line may sit between), or
    the table's header row. An audit list ("**Acronym check:**" then "- TCO — not used") or table
    ("| Acronym | First use |") talks about the acronyms on every line. None for other lines. `known`
    keeps the answers for the lines of blocks already walked (a long table is walked once)."""
    if number in known:
        return known[number]
    if _ITEM.match(lines[number - 1]) is None:
        return None
    walked = [number]
    first = number
    while (
        first > 1
        and lines[first - 2].strip()
        and (_ITEM.match(lines[first - 2]) is not None or lines[first - 2][:1] in " \t")
    ):
        first -= 1
        if first in known:
            lead = known[first]
            break
        walked.append(first)
    else:
        if lines[first - 1].lstrip().startswith("|"):
            lead = first  # the header row
        else:
            lead = first - 1
            if lead >= 1 and not lines[lead - 1].strip():
                lead -= 1
            lead = lead if lead >= 1 else None
    for line in walked:
        known[line] = lead
    return lead


def group_name(text: str) -> str:
    """The group's parts that carry letters of their own: a later part that is an earlier one plus a
    version (`HCL/HCL2`) is that part again, and its letters are not looked for twice."""
    parts = re.split(r"[ \t]*[/+&][ \t]*|[ \t]+", text)
    seen: list[str] = []
    for part in parts:
        if part and part.rstrip("0123456789") not in seen:
            seen.append(part)
    return "/".join(seen)


class DocumentUses:
    """What the acronym_expansion check's pass asks of the whole document beyond one token: whether a
    line is an audit note, and whether an acronym stands alone somewhere (so its part of a name such as
    `KG-RAG` is a use). Each answer is found once per document."""

    def __init__(
        self, document: Document, prose: Prose, comments: list[tuple[int, int]], table: AcronymTable
    ):
        self.text = document.text
        self.lines = document.lines
        self.prose = prose
        self.comments = comments
        self.table = table
        self.token = token_regex(table.mixed_case, tuple(table.shorthand))
        self._audit: dict[int, bool] = {}
        self._leads: dict[int, int | None] = {}
        self._phrases: dict[int, bool] = {}
        self._alone: dict[str, bool] = {}
        self._keys = audit_keys(table.audit_phrases)

    def audit(self, line: int) -> bool:
        """Whether the line is an audit note: it holds an audit phrase, or it is an item of a list or a
        row of a table that a line holding one introduces (the `audit_phrases` param)."""
        found = self._audit.get(line)
        if found is None:
            found = self._phrased(line)
            if not found:
                lead = audit_block_start(self.lines, line, self._leads)
                found = lead is not None and self._phrased(lead)
            self._audit[line] = found
        return found

    def _phrased(self, line: int) -> bool:
        found = self._phrases.get(line)
        if found is None:
            found = self._phrases[line] = audit_note(
                self.lines[line - 1], self.table.audit_phrases, self._keys
            )
        return found

    def stands_alone(self, abbr: str) -> bool:
        """Whether `abbr` is used somewhere in the prose outside a name (not glued to a word)."""
        found = self._alone.get(abbr)
        if found is None:
            found = self._alone[abbr] = self._find_alone(abbr)
        return found

    def _find_alone(self, abbr: str) -> bool:
        text = self.text
        line, counted_to = 1, 0  # the line of offset `counted_to` (the search goes forward)
        at = text.find(abbr)
        while at >= 0:
            m = self.token.match(text, at)
            if (
                m is not None
                and m.group(1) == abbr
                and not (self.comments and inside_spans(self.comments, at))
            ):
                line += text.count("\n", counted_to, at)
                counted_to = at
                line_start = text.rfind("\n", 0, at) + 1
                column = at - line_start
                masked = self.prose.line(line)
                profiles = self.table.profiles.get(abbr)
                if (  # the audit note last: it costs the most, and most uses asked about are names
                    masked
                    and masked[column] != " "
                    and not (profiles and profile_of(masked, column, profiles))
                    and name_part(masked, column, m.end() - line_start) is None
                    and not self.audit(line)
                ):
                    return True
            at = text.find(abbr, at + 1)
        return False
