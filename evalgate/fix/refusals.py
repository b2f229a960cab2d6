"""Edits `evalgate fix` refuses although they would touch only prose, because the words around them
would be damaged: an expansion nested in a parenthesis ("(CI/Continuous Delivery (CD))"), glued into a
compound ("JSON-Remote Procedure Call (RPC)"), written into a link's text or a quoted or italic title
(a name the document cites), into a line that talks about the acronyms (an audit note such as "GDPR:
not expanded in this document"), next to words that already spell it out ("Create, Read, Update,
Delete (CRUD) (Create, ...)"), or on a line holding an invisible format character. Each refusal is
a reason the author reads ("left for the author").

Pure functions of the line (as written, and with its non-prose blanked by the check's masking) and the
columns of the edit; the article before an insertion is evalgate/fix/articles.py's.
"""

from __future__ import annotations

import re
import unicodedata

# Single emphasis (a title in italics, `*Nature*`), bold markers set aside first.
_ITALIC = re.compile(
    r"(?<![*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?![*\w])|(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?![\w_])"
)
_LINK_TEXT = re.compile(r"!?\[([^\[\]]*)\](?=[(\[])")
_CURLY = (("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"))
_WORDS = re.compile(r"[^\W_]+")


def invisible(raw: str) -> str | None:
    """The first invisible format character on a line as written (Unicode's category Cf: U+200B ZERO
    WIDTH SPACE, U+200C, U+2060 WORD JOINER, U+00AD SOFT HYPHEN, a bidirectional control), named as
    `U+200B ZERO WIDTH SPACE`; None when there is none. `fix` edits the file as written, while the
    check may read the line without such characters: the words and columns it reports need not be
    the ones in the file, and an edit there could split or hide what the author cannot see."""
    if raw.isascii():
        return None
    for ch in raw:
        if ch > "\x7f" and unicodedata.category(ch) == "Cf":
            return f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".rstrip()
    return None


def why_not(raw: str, masked: str, start: int, end: int) -> str | None:
    """Why an edit of columns [start, end) of a line (`raw`; `masked` is its prose) must be left for
    the author, or None. The edit replaces an acronym, its reversed parenthesis or `ABBR (Full Name)`."""
    depth = _depth(masked, start)
    if depth > 0:
        return "inside a parenthesis: an expansion there would nest one parenthesis in another"
    compound = _compound(raw, start, end)
    if compound is not None:
        return f'part of the name "{compound}": an expansion would be glued into it'
    return cited(raw, masked, start, end)


def cited(raw: str, masked: str, start: int, end: int) -> str | None:
    """Why columns [start, end) of a line are inside a link's text, a quotation or an italic title
    (a name or title written as its source writes it), or None."""
    if "[" in raw and any(m.start(1) <= start and end <= m.end(1) for m in _LINK_TEXT.finditer(raw)):
        return "inside a link's text (a cited title or a name)"
    return _quoted(masked, start, end)


def _depth(masked: str, column: int) -> int:
    """How many parentheses are open at `column` (code and URLs blanked, so theirs do not count)."""
    depth = 0
    for ch in masked[:column]:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
    return depth


def _compound(raw: str, start: int, end: int) -> str | None:
    """The compound (`JSON-RPC`, `CI/CD`, `Q-D3`) when the text at [start, end) is glued to a word or
    another token by `-` or `/` on either side; None otherwise."""
    before = raw[start - 1] if start > 0 else ""
    after = raw[end] if end < len(raw) else ""
    glued_before = before in ("-", "/", "\u2013") and start > 1 and raw[start - 2].isalnum()
    glued_after = after in ("-", "/", "\u2013") and end + 1 < len(raw) and raw[end + 1].isalnum()
    if not (glued_before or glued_after):
        return None
    left, right = start, start  # the compound around the acronym (not the whole edit: `EA/APM (...)`)
    while left > 0 and (raw[left - 1].isalnum() or raw[left - 1] in "-/\u2013"):
        left -= 1
    while right < len(raw) and (raw[right].isalnum() or raw[right] in "-/\u2013"):
        right += 1
    return raw[left:right].strip("-/\u2013")


def _quoted(masked: str, start: int, end: int) -> str | None:
    """Why [start, end) is inside a quotation or an italic title, or None."""
    if masked[:start].count('"') % 2 == 1 and '"' in masked[end:]:
        return "inside a quotation (a quoted name or title)"
    for opening, closing in _CURLY:
        at = masked.rfind(opening, 0, start)
        if at >= 0 and closing not in masked[at:start] and closing in masked[end:]:
            if (
                opening == "\u2018"
                and masked[at + 1 : start].count("\u2019") == 0
                and _apostrophe(masked, at)
            ):
                continue
            return "inside a quotation (a quoted name or title)"
    plain = masked.replace("**", "  ").replace("__", "  ")
    for m in _ITALIC.finditer(plain):
        if m.start() < start and end < m.end():
            return "inside italics (a cited title)"
    return None


def _apostrophe(masked: str, at: int) -> bool:
    """Whether a `‘` is used as an apostrophe (a letter right before it)."""
    return at > 0 and masked[at - 1].isalnum()


def audit_note(raw: str, words: tuple[str, ...]) -> bool:
    """Whether the line talks about acronyms or expanding them (one of `words`, any case): the
    `fix_leaves_lines_with` param."""
    lowered = raw.lower()
    return any(word.lower() in lowered for word in words)


def duplicated(line: str, expansion: str) -> bool:
    """Whether the expansion's words appear more than once in the line (case, hyphens and spacing
    aside): the edit would write out an expansion the line already holds."""
    want = " ".join(w.lower() for w in _WORDS.findall(expansion))
    have = " ".join(w.lower() for w in _WORDS.findall(line))
    return bool(want) and have.count(want) > 1
