"""Finding acronym tokens for the acronym_expansion check: the token regex (LLM, LLMs, GPT-4, CoT, A/B),
and a search that gives exactly its `finditer` matches while trying the regex only where a match can
start.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache, partial

GLUED = r"[\w.@$%&\\]"  # \w: str.isalnum() or `_`; and `.@$%&\`


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
    # pass). Every alternative starting with a capital is factored as `[A-Z]` plus a look-behind
    # for it, so the pattern starts with a character set and the engine skips straight to capitals
    # (3x faster); the alternatives, their order and so every match stay the same.
    # A look-ahead for what any alternative can match after the capital (`[A-Z0-9]`, or the rest of
    # a special: `oT` of CoT) fails most capitals (those that start a capitalised word) at once
    # instead of after trying every alternative; every alternative matches one, so it holds wherever
    # one matches. It comes before the look-behind, which most capitals pass: 613 M instructions for
    # the scan of every third item against 664 M with the look-behind first and a look-ahead for the
    # second character only (Ma, Co and Pa started many words).
    specials = tuple(sorted((*mixed_case, *shorthand), key=len, reverse=True))
    if all(_starts_with_capital(s) for s in specials):
        alternatives = "".join(f"(?<={re.escape(s[0])}){re.escape(s[1:])}|" for s in specials)
        ahead = "".join(f"|{re.escape(rest)}" for rest in _rests(specials))
        abbr = rf"[A-Z](?=[A-Z0-9]{ahead})(?<!{GLUED}[A-Z])(?:{alternatives}[A-Z0-9]+)"
    else:  # a special that does not start with a capital (none in acronyms.yml): the slow form
        abbr = f"(?<!{GLUED})(?:" + "".join(re.escape(s) + "|" for s in specials) + "[A-Z][A-Z0-9]+)"
    return re.compile(
        rf"(?P<abbr>{abbr})"
        r"(?P<suffix>-[0-9][0-9A-Za-z.]*[0-9A-Za-z]|-[0-9])?"  # a version: GPT-4, GPT-4o, GPT-3.5
        r"(?P<plural>s)?"
        r"(?![\w@&]|\.\w|/\w)"  # not part of SQLite, README.md, an e-mail address or a path
    )


# Every capital as `A`, every digit as `0`, every other byte as a space.
_SHAPE = bytes.maketrans(
    bytes(range(256)),
    bytes(65 if 65 <= c <= 90 else 48 if 48 <= c <= 57 else 32 for c in range(256)),
)
_CAPITAL_CAPITAL = re.compile(b"AA")
_CAPITAL_DIGIT = re.compile(b"A0")


@lru_cache(maxsize=4)
def token_finder(
    mixed_case: frozenset[str], shorthand: tuple[str, ...]
) -> Callable[[str], Iterator[re.Match[str]]]:
    """`token_regex(...).finditer`, or the same matches found faster (`_tokens`) when every special
    starts with a capital (as all in acronyms.yml do)."""
    token = token_regex(mixed_case, shorthand)
    specials = (*mixed_case, *shorthand)
    if not all(_starts_with_capital(s) for s in specials):
        return token.finditer
    rests = tuple(rest.encode("latin-1", "replace") for rest in _rests(specials))
    return partial(_tokens, token, rests)


def _tokens(token: re.Pattern[str], rests: tuple[bytes, ...], text: str) -> Iterator[re.Match[str]]:
    """`token.finditer(text)`, with the regex tried only where a match can start.

    The regex starts with `[A-Z]`, so `finditer` tests every character against that set and tries
    the rest of the pattern at every capital (641,000 in the corpus, most starting a capitalised
    word): half of the check. A match starts at a capital after a character that is no letter or
    digit (the look-behind), followed by a capital, a digit or a special's rest (the look-ahead).
    In the text's shape (one byte per character: `encode` with `replace` keeps offsets) that is the
    first `AA` or `A0` of its run, which re finds as literals without testing a set; a run's later
    pairs follow a capital or digit and fail at once. A special's rest is found in the bytes
    themselves, overlaps included. Trying the regex at these places in order, after the end of the
    last match, gives finditer's matches: 645 M instructions for the scan of every third item
    against 665 M, 0.205 s of CPU against 0.225 s for the corpus.
    """
    data = text.encode("latin-1", "replace")
    shape = data.translate(_SHAPE)
    starts = [m.start() for m in _CAPITAL_CAPITAL.finditer(shape)]
    starts += [m.start() for m in _CAPITAL_DIGIT.finditer(shape)]
    for rest in rests:
        at = data.find(rest, 1)
        while at >= 0:
            starts.append(at - 1)
            at = data.find(rest, at + 1)
    starts.sort()
    match = token.match
    end = 0
    for start in starts:
        if start >= end:
            m = match(text, start)
            if m is not None:
                end = m.end()
                yield m
