"""What a Sources entry says about why it was not consulted: source_consultation's shipped phrase
lists (the research-loop rubric's `reasons` and `not_consulted_labels` params, which replace them)
and how a list of phrases is matched.

The protocol asks that access failures and source decisions be recorded ("If a source is
inaccessible, note it", "Failed primary-source searches must be recorded explicitly in §2",
research-prompt.md), and authors record them on the entry itself: "checked, but the accessible page
exposed metadata only and was not used", "returned 403 in this session", "superseded by ...". The
lists were drawn up by reading every unticked entry of the 453-item corpus (docs/checks.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Heading or label lines over a group of entries that were not consulted (the shipped
# `not_consulted_labels`).
NOT_CONSULTED_LABELS = (
    "not consulted",
    "unconsulted",
    "not used",
    "unused",
    "not accessed",
    "not directly accessed",
    "not directly consulted",
    "not obtained",
    "not accessible",
    "inaccessible",
    "not available",
    "unavailable",
)

# What an unconsulted entry says to explain itself (the shipped `reasons`; the rubric's list
# replaces it). Access failures, use decisions and replacements, as the protocol asks them recorded.
REASONS = (
    *NOT_CONSULTED_LABELS,
    "not separately consulted",
    "not directly",
    "not retriev*",
    "not fetched",
    "fetch failed",
    "not reachable",
    "unreachable",
    "not machine-readable",
    "not quoted",
    "not quotable",
    "could not",
    "couldn't",
    "unable to",
    "failed to",
    "paywall*",
    "access-gated",
    "access restricted",
    "restricted access",
    "access denied",
    "access remained",
    "blocked",
    "login required",
    "requires login",
    "requires authentication",
    "without authentication",
    "private repo*",
    "status code",
    "returned 401",
    "returned 403",
    "returned 404",
    "returned 429",
    "returned 500",
    "returned 503",
    "HTTP 401",
    "HTTP 403",
    "HTTP 404",
    "HTTP 429",
    "page not found",
    "page-not-found",
    "dead link",
    "broken link",
    "JavaScript-rendered",
    "JS-rendered",
    "superseded",
    "replaced by",
    "replaced with",
    "replacement for",
    "substitute*",
    "instead",
    "rather than",
    "rely on",
    "relies on",
    "no stable URL",
    "no URL",
    "metadata only",
    "no extractable",
    "did not yield",
    "did not resolve",
    "unrelated",
    "not indexed",
    "not yet",
    "out of scope",
    "checked",
    "identified but",
    "attempted",
    "accessed via",
    "referenced via",
    "covered via",
    "via secondary",
    "via prior",
    "locator only",
    "bibliographic locator",
    "for provenance",
    "in this session",
    "in this runtime",
    "in this environment",
    "not for",
    "placeholder",
    "no directly relevant",
    "no relevant",
    "more specific",
    "not content-rich",
    "completed version",
)


# A body line that records a failed or redirected access ("Access note: ... returned 403 in this
# session; the item uses ... instead"): the URLs on it are not cited as evidence (the shipped
# `access_notes`). Rule 2d1 does not ask for their Sources entry, and a source whose URL the body
# names only in such notes is not consulted, and says why.
ACCESS_NOTES = (
    "access note",
    "failed_primary_search",
    "failed primary search",
    "returned 401",
    "returned 403",
    "returned 404",
    "returned 410",
    "returned 429",
    "returned 500",
    "returned 502",
    "returned 503",
    "returned HTTP",
    "returned status",
    "in this session",
    "during this session",
    "in this runtime",
    "in this environment",
    "from this environment",
    "at retrieval time",
    "redirects to",
    "redirected to",
    "was inaccessible",
    "were inaccessible",
    "could not be retrieved",
    "could not be read",
    "could not be accessed",
    "could not be fetched",
    "page not found",
    "dead link",
    "search note",
    "source correction",
    "source replacement",
    "source_replacement",
    "pointed to an unrelated",
    "resolves to an unrelated",
    "resolved to an unrelated",
)


_TOKEN = re.compile(r"\w+")
# UTF-8 bytes to their words' bytes: A-Z lowered, a-z, 0-9 and `_` kept, every other byte a space, so
# that bytes.split() gives the runs of [a-z0-9_] (in C, without a match object per word)
_WORD_BYTES = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or 48 <= b <= 57 or b == 95 else 32 for b in range(256)
)


class Phrases:
    """A list of phrases, matched in any case as whole words: white space and punctuation between
    words are flexible (`identified but` matches "identified, but"), and a word ending in `*` takes
    any ending. One regex alternation of many phrases tries every character (~40 us on a long
    line) and most texts hold no phrase, so `search` first asks whether the text's words (runs of
    `\\w`, lower-cased) hold every whole word piece of one phrase (a match holds each as a word of
    its own), or the start of a word that ends in `*` for a phrase of nothing else. For phrases in
    ASCII the words are read from the text's UTF-8 bytes, A-Z lowered: a word of the phrase is a run
    of ASCII letters there too, between bytes that are not (where the text holds none of FOLDS)."""

    def __init__(self, phrases: tuple[str, ...]) -> None:
        alternatives = []
        needs: dict[str, set[frozenset[str]]] = {}  # a phrase's whole words, by its longest
        starts: set[str] = set()
        for phrase in sorted(set(phrases), key=len, reverse=True):
            words = phrase.split()
            alternatives.append(_alternative(words))
            whole: list[str] = []
            partial: list[str] = []
            for word in words:
                pieces = _TOKEN.findall(word.rstrip("*").lower())
                if word.endswith("*") and pieces:
                    partial.append(pieces.pop())
                whole += pieces
            if whole:
                needs.setdefault(max(whole, key=len), set()).add(frozenset(whole))
            else:
                starts.add(max(partial, key=len))
        self._source = r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)"
        self._pattern: re.Pattern[str] | None = None
        self.anchors = frozenset(needs)
        self._needs = {anchor: tuple(words) for anchor, words in needs.items()}
        self.starts = tuple(sorted(starts))
        self._bytes = None  # the same three as bytes, for phrases in ASCII
        if all(word.isascii() for group in needs.values() for words in group for word in words) and all(
            start.isascii() for start in starts
        ):
            self._bytes = (
                frozenset(anchor.encode() for anchor in needs),
                {
                    anchor.encode(): tuple(frozenset(w.encode() for w in ws) for ws in group)
                    for anchor, group in needs.items()
                },
                tuple(start.encode() for start in sorted(starts)),
            )

    @property
    def pattern(self) -> re.Pattern[str]:
        """The phrases as one pattern (`re.I`), compiled when first asked: compiling the three shipped
        lists takes ~7 ms, and a document none of whose texts passes the words' filter never needs it."""
        if self._pattern is None:
            self._pattern = re.compile(self._source, re.I)
        return self._pattern

    def search(self, text: str) -> bool:
        """Whether one of the phrases occurs in `text`."""
        if folds(text):  # the words' filter, which reads the lower case, would miss "conſulted"
            return self.pattern.search(text) is not None
        if self._bytes is not None:
            anchors, needs, starts = self._bytes
            data = text.encode("utf-8").translate(_WORD_BYTES)  # (a start is a run of word bytes)
            words = set(data.split())
            if not any(w <= words for a in anchors.intersection(words) for w in needs[a]) and not any(
                s in data for s in starts
            ):
                return False
            return self.pattern.search(text) is not None
        lowered = text.lower()
        tokens = set(_TOKEN.findall(lowered))
        if not any(
            words <= tokens for anchor in self.anchors.intersection(tokens) for words in self._needs[anchor]
        ) and not any(s in lowered for s in self.starts):
            return False
        return self.pattern.search(text) is not None


def _alternative(words: list[str]) -> str:
    """A phrase's words as a pattern: white space and `,;:` between them, `*` taking any ending."""
    return r"[\s,;:]+".join(re.escape(w.rstrip("*")) + (r"\w*" if w.endswith("*") else "") for w in words)


# What `re.I` matches to an ASCII letter but does not lower to it (ı, ſ), or lowers to two characters
# (İ), or lowers to an ASCII letter that its UTF-8 bytes lowered do not hold (K, KELVIN SIGN): no other
# character does any of these (tests/checks/test_source_citations.py reads every code point).
FOLDS = "\u0130\u0131\u017f\u212a"


def folds(text: str) -> bool:
    """Whether `text` holds one of FOLDS. (Four `in` tests: a str of Latin-1 cannot hold them, so each
    answers at once, where a regex class tested every character.)"""
    return any(character in text for character in FOLDS)


@lru_cache(maxsize=32)
def phrase_pattern(phrases: tuple[str, ...]) -> Phrases:
    """The phrases as a `Phrases` matcher, made once per list."""
    return Phrases(phrases)
