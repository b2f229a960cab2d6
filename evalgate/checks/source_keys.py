"""When two addresses name the same source: the keys a URL, a DOI or an arXiv identifier is compared by.

source_consultation (and source_citations' reading of the body) and high_confidence_sources compare
addresses the same way:

- a URL is compared lower-cased, without its scheme, leading `www.`, `#fragment` and trailing `/`,
  with its %-escapes decoded and tracking parameters (`utm_*`, `si`, ...) dropped
  (`http://www.X.org/a%20b/?utm_source=x` is `https://x.org/a b`), and a repository's raw file
  (`raw.githubusercontent.com/o/r/main/a.md`) as the file on GitHub (`github.com/o/r/blob/main/a.md`);
- a DOI names its work wherever it is written: `doi:10.1145/3442188.3445922`, the doi.org link and a
  publisher's landing page or PDF whose address holds the DOI all share the key `doi:10.1145/...`;
- an arXiv identifier likewise: `arXiv:2310.06770`, `arxiv.org/abs/2310.06770v2` and
  `arxiv.org/pdf/2310.06770.pdf` share `arxiv:2310.06770` (a version suffix names the same paper).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import unquote

# A DOI: `10.` then a registrant code and a suffix; the suffix ends at white space or at what ends
# a markdown link or a sentence (trailing punctuation is trimmed after the match).
_DOI = re.compile(r"\b10\.\d{4,9}(?:/|%2[fF])[^\s\"'<>()\[\]|]+")  # `/` may be written %2F
# An arXiv identifier: new style (2310.06770, optional version) after `arxiv.org/abs|pdf|html/` or
# `arXiv:`; old style (cs/0112017 or math.GT/0309136) likewise.
_ARXIV = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)/|\barxiv:\s?)(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?",
    re.I,
)
_DOI_BYTES = re.compile(_DOI.pattern.replace(r"\b", "").encode())
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?"
# after `arxiv`: `.org/abs|pdf|html/ID` (group 1) or `:ID` (group 2, a word of its own)
_ARXIV_BYTES = re.compile(rf"arxiv(?:\.org/(?:abs|pdf|html)/{_ARXIV_ID}|:\s?{_ARXIV_ID})".encode())
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
TRIM = ".,;:!?*_"  # what urls_in trims from a URL's end (punctuation after it, emphasis)
_TRACKING = re.compile(r"(?:utm_[a-z]+|si|fbclid|gclid)(?:=|$)")

_RAW_GITHUB = "raw.githubusercontent.com/"
_NONE: frozenset[str] = frozenset()


def normalise_url(url: str) -> str:
    """A URL reduced to what identifies the page, for matching citations: lower case, no scheme,
    leading `www.`, `#fragment` or trailing `/`."""
    u = url.strip().lower()
    for scheme in ("https://", "http://"):
        if u.startswith(scheme):
            u = u[len(scheme) :]
    if u.startswith("www."):
        u = u[4:]
    return u.split("#", 1)[0].rstrip("/")


@lru_cache(maxsize=65536)  # a URL recurs in an item's Sources, body and Evidence Map
def url_key(url: str) -> str:
    """The key two ways of writing one page's URL share: `normalise_url` with %-escapes decoded and
    tracking parameters (`utm_*`, `si`, `fbclid`, `gclid`) dropped from its query."""
    key = normalise_url(url)
    if "%" in key:
        key = unquote(key)
    if "?" in key:
        address, query = key.split("?", 1)
        kept = [p for p in query.split("&") if p and not _TRACKING.match(p)]
        key = address + ("?" + "&".join(kept) if kept else "")
    if key.startswith(_RAW_GITHUB) and key.count("/") >= 3:
        # a repository's file as raw text is the file GitHub shows: under the repository's address
        owner, repository, rest = key[len(_RAW_GITHUB) :].split("/", 2)
        key = f"github.com/{owner}/{repository}/blob/{rest}"
    return key.rstrip("/")


def identifier_keys(text: str) -> frozenset[str]:
    """The DOIs (`doi:...`) and arXiv identifiers (`arxiv:...`) written in `text` (a URL or an
    entry's text), lower-cased. (Not remembered: most texts are read once, and most hold neither,
    which two `in` tests tell.)"""
    doi = "10." in text
    arxiv = "rxiv" in text.lower()
    if not doi and not arxiv:
        return _NONE
    keys: set[str] = set()
    if doi:
        keys.update(_doi_key(m.group(0)) for m in _DOI.finditer(text))
    if arxiv:
        keys.update("arxiv:" + m.group(1).lower() for m in _ARXIV.finditer(text))
    return frozenset(keys)


def _doi_key(doi: str) -> str:
    doi = unquote(doi).rstrip(TRIM).lower()
    return "doi:" + (doi[:-4] if doi.endswith(".pdf") else doi)


def lowered_identifiers(data: bytes) -> Iterator[tuple[str, int]]:
    """(key, offset) of each DOI and arXiv identifier in lower-cased UTF-8 bytes: the same as
    `identifier_keys` gives for ASCII text, found from each `10.` and `arxiv` instead of tried at
    every character."""
    at = data.find(b"10.")
    while at >= 0:
        after = at + 3
        if not _word_before(data, at):  # `\b10.`
            match = _DOI_BYTES.match(data, at)
            if match:
                yield _doi_key(match.group(0).decode("utf-8", "replace")), at
                after = match.end()  # as finditer: no match starts inside another (10.1/10.2)
        at = data.find(b"10.", after)
    at = data.find(b"arxiv")
    while at >= 0:
        after = at + 5
        match = _ARXIV_BYTES.match(data, at)
        if match and (match.group(1) is not None or not _word_before(data, at)):
            yield "arxiv:" + (match.group(1) or match.group(2)).decode("ascii"), at
            after = match.end()
        at = data.find(b"arxiv", after)


def source_keys(url: str) -> set[str]:
    """Every key a cited URL is known by: its own, and the DOI or arXiv identifier it holds."""
    return {url_key(url), *identifier_keys(url)}


def _word_before(data: bytes, at: int) -> bool:
    """Whether the character before UTF-8 offset `at` is a word character (`\\w` of a str regex):
    an ASCII letter, digit or `_`, or a character outside ASCII that is a letter or a number."""
    if at == 0:
        return False
    if data[at - 1] < 0x80:
        return data[at - 1] in _WORD_BYTES
    start = at - 1
    while start > 0 and 0x80 <= data[start] < 0xC0:  # back over continuation bytes to the lead byte
        start -= 1
    character = data[start:at].decode("utf-8", "replace")
    return character.isalnum() or character == "_"


def text_identifiers(text: str) -> list[tuple[str, int]]:
    """(key, UTF-8 byte offset) of each DOI and arXiv identifier in `text`, by regex."""
    found = [(_doi_key(m.group(0)), m.start()) for m in _DOI.finditer(text)]
    found += [("arxiv:" + m.group(1).lower(), m.start()) for m in _ARXIV.finditer(text)]
    return [(key, len(text[:at].encode("utf-8"))) for key, at in found]
