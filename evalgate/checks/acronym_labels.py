"""Which capitalised tokens are no acronyms in a document, for the acronym_expansion check: the data's
words and names (acronyms.yml), a capitalised word the document never expands, Roman numerals, a
person's initials (`JB` beside a citation `Manchak, JB (2025)`), reference ids and numbered labels
(`RQ1`, `LLM01`, `PMC8103230`, `LLM10` beside `LLM09`); and an acronym run together with its
version (`OWL2`), which counts as the acronym where the document also writes it alone. Decided once
per document and token, from the token and the text only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evalgate.checks.acronym_table import AcronymTable
from evalgate.checks.acronym_written import written_expansion

_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")
# RQ1, H2, KF3, Q4, P95, and zero-padded catalogue ids (OWASP's LLM01, ASI03): labels, not acronyms
# ... and PMC8103230, and a numbered label with a letter after (RBNZ's BS2A; W3C and A3C stay acronyms)
_REFERENCE_ID = re.compile(r"[A-Z]{1,2}[0-9]+|[A-Z]{2}[0-9]+[A-Z]|[A-Z]+0[0-9]+|[A-Z]+[0-9]{4,}")
# OWASP's LLM10 beside LLM09, BPR160 beside BPR100: a numbered label when a sibling is in the document
_NUMBERED = re.compile(r"[A-Z]+[0-9]{2,}")


def no_acronym(abbr: str, text: str, table: AcronymTable, initials: frozenset[str]) -> bool:
    """Whether the token `abbr` is no acronym anywhere in the document `text` (`initials`: the
    text's `cited_initials`)."""
    return (
        abbr in table.not_acronyms
        or (abbr in table.capitalised_words and not _expanded_somewhere(abbr, text, table))
        or abbr in initials
        # a Roman numeral is made of I, V and X; a reference id or numbered label holds a digit
        or (not abbr.strip("IVX") and _ROMAN.fullmatch(abbr) is not None)
        or (not abbr.isalpha() and _is_reference_id(abbr, text, table))
    )


# `, JB (2025`: a token (letters, digits and `/`) holds no space, comma or parenthesis, so every
# token a citation writes so is found. Searched from the year: `(` is a literal the regex engine
# jumps to, where `, ` stopped it at each of the corpus's 150,000 commas and ` (` at each space
# (24 and 35 ms over the corpus, against 9 ms).
_YEAR = re.compile(r"\((?:1[5-9]|20)[0-9][0-9]\b")
_NOT_IN_TOKEN = re.compile(r"[\s,(]")
# the surname before it, as a word of its own (`Manchak`)
_SURNAME = re.compile(r"\b[A-Z][a-z][\w'’-]*\Z")


def cited_initials(text: str) -> frozenset[str]:
    """The tokens a citation in `text` writes as a person's initials between a surname and a year:
    `Manchak, JB (2025)`; the document's `JB Manchak` is then a name."""
    # Searched for each token as one pattern from the surname on, which has no literal the regex
    # engine can jump to, it was tried at every position of the text: 6.4 s of CPU over the corpus
    # for 6,349 tokens. One scan from the comma gives every token, and the surname is checked on
    # its line before the comma (it holds no space or line break). The same tokens over the corpus.
    # The token before ` (YEAR` is `[^\s,(]+` after `, `: it starts after the last space before the
    # year (it holds none), and `, TOKEN (YEAR` is the whole match of `, ([^\s,(]+) \(YEAR`, of which
    # no two overlap (only its start holds a comma), so this finds what that pattern's finditer finds.
    found: set[str] = set()
    for year in _YEAR.finditer(text):
        end = year.start() - 1  # the space before the `(`
        if end < 0 or text[end] != " ":
            continue
        space = text.rfind(" ", 0, end)
        if (
            space < 1
            or space + 1 == end
            or text[space - 1] != ","
            or _NOT_IN_TOKEN.search(text, space + 1, end) is not None
        ):
            continue
        at = space - 1
        if _SURNAME.search(text, text.rfind("\n", 0, at) + 1, at) is not None:
            found.add(text[space + 1 : end])
    return frozenset(found)


def _expanded_somewhere(abbr: str, text: str, table: AcronymTable) -> bool:
    """Whether the document writes `Full Name (WORD)` for a word that is usually no acronym
    (acronyms.yml's capitalised_words): a `(WORD)` the words before it spell, not a mention such as
    "return UNSOLVABLE ... at plan-search time (UNSOLVABLE)"."""
    at = text.find(f"({abbr})")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if written_expansion(text[start:at], abbr, table.missing_letters) is not None:
            return True
        at = text.find(f"({abbr})", at + 1)
    return False


def versioned_stem(abbr: str, text: str, table: AcronymTable) -> str:
    """`OWL2`, `GPT4`, `SOC2`: an acronym and its version run together count as the acronym when the
    document also writes the acronym alone (else `FTS5` stays a name of its own)."""
    stem = abbr.rstrip("0123456789")
    if len(stem) < 2 or len(abbr) - len(stem) > 2 or stem in table.not_acronyms:
        return abbr
    return stem if _alone_regex(stem).search(text) is not None else abbr


@lru_cache(maxsize=256)
def _alone_regex(stem: str) -> re.Pattern[str]:
    return re.compile(rf"{stem}(?<![\w.@$%&\\-]{stem})(?![\w@&-])")


def _is_reference_id(abbr: str, text: str, table: AcronymTable) -> bool:
    """RQ1, H2, KF3, Q4, PMC8103230: labels, not acronyms. D3 is in the protocol's table, so it is a
    label only when a sibling (D1, D2, D4, ...) is in the document too; so is a longer numbered one
    (OWASP's LLM10 beside LLM09)."""
    stem = abbr.rstrip("0123456789")
    if _REFERENCE_ID.fullmatch(abbr) is None:
        numbered = _NUMBERED.fullmatch(abbr) is not None
        return numbered and sibling_regex(stem, abbr[len(stem) :]).search(text) is not None
    if abbr not in table.required and abbr not in table.checked:
        return True
    return sibling_regex(stem, abbr[len(stem) :]).search(text) is not None


@lru_cache(maxsize=256)
def sibling_regex(stem: str, digits: str) -> re.Pattern[str]:
    """`stem` and a number other than `digits`, as a word of its own (D1 or D12 for D3). The stem
    comes first so the engine jumps between its occurrences; the look-behind after it checks the
    character before it (a look-behind in front would be tried at every position of the text)."""
    return re.compile(rf"{stem}(?<![\w-]{stem})(?!{digits}\b)[0-9]+\b")
