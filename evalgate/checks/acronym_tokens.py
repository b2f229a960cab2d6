"""Finding acronym tokens for the acronym_expansion check: the token regex (LLM, LLMs, GPT-4, CoT, A/B),
and a search that gives exactly its `finditer` matches while trying the regex only where a match can
start.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Set
from functools import lru_cache, partial

GLUED = r"[\w.@$%&\\]"  # \w: str.isalnum() or `_`; and `.@$%&\`
# A `(` and a capital: a token of a `settled` acronym is found only where this starts within the 40
# characters before it or at it (`paren_capital_before`).
_PAREN_CAPITAL = re.compile(r"\([A-Z]")
_WINDOW = 40

# (text, utf8, ignored, settled) -> the token regex's finditer matches, less the quiet ones (`_tokens`)
Tokens = Callable[[str, bytes | None, Set[str], Set[str]], Iterator[re.Match[str]]]


def _starts_with_capital(special: str) -> bool:
    return len(special) > 1 and "A" <= special[0] <= "Z"


def _rests(specials: tuple[str, ...]) -> list[str]:
    """What follows the capital of a special (mixed case, shorthand) when that is no capital or digit:
    `oT` of CoT, `/B` of A/B."""
    return sorted({s[1:] for s in specials if not ("A" <= s[1] <= "Z" or "0" <= s[1] <= "9")})


@lru_cache(maxsize=4)
def token_regex(mixed_case: frozenset[str], shorthand: tuple[str, ...]) -> re.Pattern[str]:
    # A capital right after a letter, digit or one of GLUED is inside a word, a file name, a handle
    # or a variable: the look-behind that refuses it comes after the first `[A-Z]` (in front, it
    # would stop the regex engine from jumping to the next capital, which triples the cost of the
    # pass). Every alternative starting with a capital is factored as `[A-Z]`, then the rest of
    # the special followed by a look-behind for the whole special (`aaS(?<=SaaS)`), so the pattern
    # starts with a character set and the engine skips straight to capitals (3x faster), and each
    # alternative starts with a literal, which the engine's alternation refuses at its first
    # character without entering it (a look-behind in front was entered at every place tried: 7%
    # of the token search); the alternatives, their order and so every match stay the same.
    # A look-ahead for what any alternative can match after the capital (`[A-Z0-9]`, or the rest of
    # a special: `oT` of CoT) fails most capitals (those that start a capitalised word) at once
    # instead of after trying every alternative; every alternative matches one, so it holds wherever
    # one matches. It comes before the look-behind, which most capitals pass: 613 M instructions for
    # the scan of every third item against 664 M with the look-behind first and a look-ahead for the
    # second character only (Ma, Co and Pa started many words).
    specials = tuple(sorted((*mixed_case, *shorthand), key=len, reverse=True))
    if all(_starts_with_capital(s) for s in specials):
        alternatives = "".join(f"{re.escape(s[1:])}(?<={re.escape(s)})|" for s in specials)
        ahead = "".join(f"|{re.escape(rest)}" for rest in _rests(specials))
        abbr = rf"[A-Z](?=[A-Z0-9]{ahead})(?<!{GLUED}[A-Z])(?:{alternatives}[A-Z0-9]++)"
    else:  # a special that does not start with a capital (none in acronyms.yml): the slow form
        abbr = f"(?<!{GLUED})(?:" + "".join(re.escape(s) + "|" for s in specials) + "[A-Z][A-Z0-9]++)"
    # `[A-Z0-9]++` keeps its whole run (a shorter one is followed by a capital or digit, which the
    # look-ahead at the end refuses, so giving characters back never led to a match), and each
    # optional group is an alternation with the empty string, the same order of tries as `(...)?`
    # without the engine's repeat bookkeeping: 17% of the regex's instructions at the places tried.
    return re.compile(
        rf"(?P<abbr>{abbr})"
        r"(?:(?P<suffix>-[0-9][0-9A-Za-z.]*[0-9A-Za-z]|-[0-9])|)"  # a version: GPT-4, GPT-4o, GPT-3.5
        r"(?:(?P<plural>s)|)"
        # not part of SQLite, README.md or an e-mail address; before `/` it is read (`CI/CD`,
        # `ECB/EBA`, `LLM/embedding`): acronym_uses.py decides which such tokens are uses
        r"(?![\w@&]|\.\w)"
    )


# The one-byte "shape" of a text, made from its UTF-8 bytes in one C pass (`bytes.translate`): every
# continuation byte (0x80-0xBF) is deleted, so each character is one byte and offsets are the text's;
# a capital becomes `A`, a digit `0`, another ASCII character a token cannot follow (a letter, `_` or
# `.@$%&\`: GLUED) `g`, and every other byte a space, except the characters of the specials' rests,
# which stay themselves.
_CONTINUATION = bytes(range(0x80, 0xC0))
_GLUED_ASCII = frozenset(c for c in range(128) if chr(c).isalnum() or chr(c) in "_.@$%&\\")


def _shape_table(kept: frozenset[int]) -> bytes:
    return bytes(
        65 if 65 <= c <= 90 else 48 if 48 <= c <= 57 else c if c in kept else 103 if c in _GLUED_ASCII else 32
        for c in range(256)
    )


def _unsure_runs(specials: tuple[str, ...]) -> frozenset[str]:
    """The runs of capitals and digits (two or more) that a special starts and goes on after with
    another character (`DB` of DBaaS): where the text has such a run, the token may be the special."""
    runs = set()
    for special in specials:
        run = re.match(r"[A-Z0-9]*", special).group()  # type: ignore[union-attr]  # `*`: always matches
        if len(run) >= 2 and run != special:
            runs.add(run)
    return frozenset(runs)


@lru_cache(maxsize=4)
def token_finder(mixed_case: frozenset[str], shorthand: tuple[str, ...]) -> Tokens:
    """`(text, utf8, ignored, settled) -> token_regex(...).finditer(text)` less its quiet matches (see
    `_quiet`), found faster (`_tokens`) when every special starts with a capital and their rests are
    ASCII (as all in acronyms.yml are). `utf8`, when given, is the text's UTF-8 encoding
    (`Document.utf8`)."""
    token = token_regex(mixed_case, shorthand)
    specials = (*mixed_case, *shorthand)
    rests = _rests(specials)
    if not all(_starts_with_capital(s) for s in specials) or not all(r.isascii() for r in rests):
        return partial(_all_tokens, token)
    kept = frozenset(c for r in rests for c in r.encode("ascii") if not (65 <= c <= 90 or 48 <= c <= 57))
    table = _shape_table(kept)
    glued = b"".join(re.escape(bytes([c])) for c in sorted({65, 48, 103} | (kept & _GLUED_ASCII)))
    ahead = b"|".join(re.escape(rest.encode("ascii").translate(table)) for rest in rests)
    # What follows the capital first (most capitals start a word, `Ag`), then the byte before it.
    behind = b"(?<![" + glued + b"]A"
    rest = b"" if not rests else b"|(?=" + ahead + b")" + behind + b")"
    # A capital followed by a capital or digit takes the rest of its run too (no place inside the run
    # can start a match: each follows a capital or digit), so the candidate's end is the run's.
    candidates = re.compile(b"A(?:[A0]" + behind + b".)[A0]*+" + rest + b")")
    return partial(_tokens, token, candidates, table, _unsure_runs(specials))


def paren_capital_before(text: str, at: int) -> bool:
    """Whether a `(` and a capital start in the 40 characters before offset `at`, or at it."""
    return _PAREN_CAPITAL.search(text, at - _WINDOW if at > _WINDOW else 0, at + 1) is not None


def _quiet(abbr: str, text: str, at: int, ignored: Set[str], settled: Set[str]) -> bool:
    """Whether the token `abbr` at offset `at` is one the caller does not want: its abbr is in
    `ignored`, or in `settled` where no `(` and capital start in the 40 characters before it or at it."""
    return abbr in ignored or (abbr in settled and not paren_capital_before(text, at))


def _all_tokens(
    token: re.Pattern[str],
    text: str,
    utf8: bytes | None = None,
    ignored: Set[str] = frozenset(),
    settled: Set[str] = frozenset(),
) -> Iterator[re.Match[str]]:
    for m in token.finditer(text):
        if not _quiet(m.group(1), text, m.start(), ignored, settled):
            yield m


def _tokens(
    token: re.Pattern[str],
    candidates: re.Pattern[bytes],
    table: bytes,
    unsure: frozenset[str],
    text: str,
    utf8: bytes | None = None,
    ignored: Set[str] = frozenset(),
    settled: Set[str] = frozenset(),
) -> Iterator[re.Match[str]]:
    """`token.finditer(text)` less its quiet matches (`_quiet`), with the regex tried only where a
    match can start, and not even there when the match would be quiet.

    The regex starts with `[A-Z]`, so `finditer` tests every character against that set and tries
    the rest of the pattern at every capital (641,000 in the corpus, most starting a capitalised
    word): half of the check. A match starts at a capital after a character that is no letter, digit
    or other GLUED character (the look-behind), followed by a capital, a digit or a special's rest
    (the look-ahead). `candidates` finds those places in the text's shape, whose first byte is the
    literal `A` (re jumps between literals without testing a set): a capital that no `A`, `0`, `g`
    or glued kept character comes before, followed by `A` or `0` (the whole run of them consumed:
    each of its later capitals follows a capital or digit, so none starts a match) or by a rest's
    shape (looked at only: a rest may hold a character after which a token can start, `/` of A/B).
    Every match starts at such a place, so trying the regex at these places in order, after the end
    of the last match (a special such as `A/BC` holds a place inside its own match), gives
    finditer's matches: one translation and one search, where encoding the text to Latin-1,
    translating it, two literal searches and one `bytes.find` per rest took three times as long.

    Most matches are quiet (a later use of an acronym the caller has settled, or of a token it found
    to be no acronym: 55,000 of the corpus's 83,000), and where a capital starts a run of capitals
    and digits, the run is the match's abbr if there is a match (no special starts there but one of
    the `unsure` runs: `DB` of DBaaS), so a quiet one is passed over without the regex. It would
    leave no place to start inside it (that needs a special's rest, `/B` of A/BC), so the next
    candidate is the next place finditer tries.
    The sets are the caller's and may grow between matches: each match is judged when it is reached.
    """
    data = text.encode("utf-8", "surrogatepass") if utf8 is None else utf8
    match = token.match
    paren_capital = _PAREN_CAPITAL.search
    end = 0
    for c in candidates.finditer(data.translate(table, _CONTINUATION)):
        start = c.start()
        if start < end:
            continue
        run = c.end()
        if run - start > 1 and (abbr := text[start:run]) not in unsure:
            if abbr in ignored or (
                abbr in settled
                and paren_capital(text, start - _WINDOW if start > _WINDOW else 0, start + 1) is None
            ):
                continue  # `_quiet`, inlined: it runs for most of the corpus's 92,000 candidates
            m = match(text, start)
            if m is not None:
                end = m.end()
                yield m
        else:
            m = match(text, start)
            if m is not None:
                end = m.end()
                if not _quiet(m.group(1), text, start, ignored, settled):
                    yield m
