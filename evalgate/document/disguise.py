"""Words written so that checks read them differently from readers: invisible characters and look-alike
letters inside a token.

Takes the lines of a document's body; gives the lines as a reader reads them (every invisible format
character removed, and in a disguised token each look-alike letter replaced by the Latin letter it
looks like) and one `DisguisedToken` for each token that held such a character.

- Invisible: Unicode's format characters (category Cf: U+200B-U+200F, U+2060-U+2064, U+FEFF, the
  soft hyphen U+00AD, the bidi controls U+202A-U+202E and U+2066-U+2069, ...) and the fillers that
  render as nothing (U+034F, U+115F, U+1160, U+3164, U+FFA0). `L<U+200B>LM` shows as `LLM` and
  must read as `LLM`. A token holds one when it sits between two word characters of which one is ASCII
  or a look-alike: the joiners inside an emoji sequence or a Persian word are writing, not disguise.
- Look-alike: a Cyrillic or Greek letter drawn like a Latin one (`А` U+0410 in `АPI`), or a
  full-width Latin letter or digit, in a token that also holds ASCII letters or digits; or a token of
  two or more such capitals alone (`АРІ`) on a line that holds ASCII letters too. Greek letters used
  as symbols (α, λ, Σ: 108 uses in the corpus, none inside a Latin word) are not look-alikes here.

Both are findings (evalgate.checks.readable); the lines the checks read are normalised whatever the
token, so an acronym is matched as readers see it.
"""

from __future__ import annotations

import html
import re
import unicodedata

from evalgate.document.model import DisguisedToken

# Format characters (Unicode 15's Cf) and the fillers that render as nothing.
INVISIBLE = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
# Cyrillic and Greek letters drawn as a Latin letter in common fonts (Unicode's intentional
# confusables for those scripts), and the Latin letter each reads as.
LOOK_ALIKES: dict[str, str] = {
    **dict(zip("АВЕКМНОРСТХУЅІЈӀԚԜҮ", "ABEKMHOPCTXYSIJIQWY", strict=True)),
    **dict(zip("аеорсухѕіјһԁԛԝӏ", "aeopcyxsijhdqwl", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧο", "ABEZHIKMNOPTYXo", strict=True)),
    **{chr(0xFF10 + i): chr(0x30 + i) for i in range(10)},  # full-width digits
    **{chr(0xFF21 + i): chr(0x41 + i) for i in range(26)},  # full-width capitals
    **{chr(0xFF41 + i): chr(0x61 + i) for i in range(26)},  # full-width small letters
}
_INVISIBLE = re.compile(f"[{INVISIBLE}]")


def _expand(spec: str) -> frozenset[str]:
    """The characters of a character-class body of single characters and `a-b` ranges."""
    chars: set[str] = set()
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            chars.update(map(chr, range(ord(spec[i]), ord(spec[i + 2]) + 1)))
            i += 3
        else:
            chars.add(spec[i])
            i += 1
    return frozenset(chars)


_INVISIBLE_SET = _expand(INVISIBLE)
SUSPECT = _INVISIBLE_SET | frozenset(LOOK_ALIKES)
# A token: word characters and invisible characters between them.
_TOKEN = re.compile(f"[\\w{INVISIBLE}]+")
_ASCII = bytes(range(0x80))
_SHOWN = 40  # characters of the line shown on either side of the token


def may_hold(text: str, utf8: bytes | None = None) -> bool:
    """Whether the text can hold an invisible character or a look-alike letter: a quick test on its
    non-ASCII characters alone (most items hold a few hundred; deleting the ASCII bytes of the UTF-8
    leaves them whole)."""
    if text.isascii():
        return False
    data = text.encode("utf-8", "surrogatepass") if utf8 is None else utf8
    rest = data.translate(None, _ASCII).decode("utf-8", "surrogatepass")
    return not SUSPECT.isdisjoint(rest)


def visible(text: str) -> str:
    """Each invisible character and look-alike letter shown as <U+XXXX>."""
    return "".join(f"<U+{ord(c):04X}>" if c in SUSPECT else c for c in text)


# A character reference (`&#8203;`, `&#x200B;`, `&ZeroWidthSpace;`, `&Alpha;`): markdown renders it
# as its character, so `LL&#x200b;M` shows as `LLM` with an invisible character inside.
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def may_refer(text: str) -> bool:
    """Whether the text can hold a character reference beside a word (a quick test):
    `"&" in text and ";" in text and _REFERENCE.search(text) is not None`, the pattern tried at each
    `&` (found at memchr's speed; a text holds a few) instead of searched for over the whole text."""
    if ";" not in text:
        return False
    at = text.find("&")
    while at >= 0:
        if _REFERENCE.match(text, at) is not None:
            return True
        at = text.find("&", at + 1)
    return False


def referenced(lines: tuple[str, ...], first: int, code: tuple[tuple[int, int], ...]) -> list[str]:
    """The lines from 1-based `first` on with each character reference that touches a word character
    replaced by the character a reader sees, where that is a letter, a digit, an invisible
    character or a look-alike (so `L&#76;M` reads `LLM`, and `LL&#x200b;M` is then a disguised
    token); not in code blocks or code spans, where markdown shows the reference as written."""
    out = list(lines)
    in_code = bytearray(len(lines) + 2)
    for start, end in code:
        in_code[start : end + 1] = b"\x01" * (end + 1 - start)
    for number in range(first, len(lines) + 1):
        line = lines[number - 1]
        if in_code[number] or "&" not in line:
            continue
        pieces: list[str] = []
        done = 0
        for match in _REFERENCE.finditer(line):
            start, end = match.span()
            character = html.unescape(match.group())
            touches = (start and line[start - 1].isalnum()) or (end < len(line) and line[end].isalnum())
            if (
                len(character) == 1
                and (character.isalnum() or character in SUSPECT)
                and touches
                and line.count("`", 0, start) % 2 == 0  # not inside a code span
            ):
                pieces += [line[done:start], character]
                done = end
        if pieces:
            out[number - 1] = "".join(pieces) + line[done:]
    return out


def undisguised(lines: tuple[str, ...], first: int) -> tuple[list[str], list[DisguisedToken]]:
    """The lines from 1-based `first` on with invisible characters removed and disguised tokens read
    as readers read them, and those tokens."""
    out = list(lines)
    found: list[DisguisedToken] = []
    for number in range(first, len(lines) + 1):
        line = lines[number - 1]
        if line.isascii() or SUSPECT.isdisjoint(line):
            continue
        pieces: list[str] = []
        done = 0
        for match in _TOKEN.finditer(line):
            token = match.group()
            if SUSPECT.isdisjoint(token):
                continue
            reads, disguise = _read(token, line, match.start(), match.end())
            if disguise is not None:
                found.append(_token(number, match.start(), line, token, reads, disguise))
            pieces.append(line[done : match.start()])
            pieces.append(reads)
            done = match.end()
        pieces.append(line[done:])
        out[number - 1] = _INVISIBLE.sub("", "".join(pieces))
    return out, found


def _read(token: str, line: str, start: int, end: int) -> tuple[str, str | None]:
    """(the token as read, what disguises it: 'invisible', 'look-alike' or None)."""
    bare = _INVISIBLE.sub("", token)
    hidden = bare != token and _invisible_inside(token)
    ascii_word = any(c.isascii() and c.isalnum() for c in bare)
    alike = [c for c in bare if c in LOOK_ALIKES]
    if alike and (ascii_word or _capitals_alone(bare, line, start, end)):
        bare = "".join(LOOK_ALIKES.get(c, c) for c in bare)
        return bare, "invisible" if hidden else "look-alike"
    return bare, "invisible" if hidden else None


def _invisible_inside(token: str) -> bool:
    """An invisible character between two word characters, one of them ASCII or a look-alike."""
    for i, c in enumerate(token):
        if c not in _INVISIBLE_SET:
            continue
        before = next((b for b in reversed(token[:i]) if b not in _INVISIBLE_SET), "")
        after = next((a for a in token[i + 1 :] if a not in _INVISIBLE_SET), "")
        if (
            before
            and after
            and any((x.isascii() and x.isalnum()) or x in LOOK_ALIKES for x in (before, after))
        ):
            return True
    return False


def _capitals_alone(bare: str, line: str, start: int, end: int) -> bool:
    """A token of two or more look-alike capitals only (`АРІ`), on a line with ASCII letters too."""
    letters = [c for c in bare if c.isalpha()]
    return (
        len(letters) >= 2
        and all(c in LOOK_ALIKES and LOOK_ALIKES[c].isupper() for c in letters)
        and any(c.isascii() and c.isalpha() for c in line[:start] + line[end:])
    )


def _token(number: int, column: int, line: str, token: str, reads: str, disguise: str) -> DisguisedToken:
    names = tuple(
        dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED')}" for c in token if c in SUSPECT)
    )
    left = max(0, column - _SHOWN)
    right = column + len(token) + _SHOWN
    context = ("..." if left else "") + visible(line[left:right]) + ("..." if right < len(line) else "")
    return DisguisedToken(
        number, column, visible(token), reads, names, context.strip(), disguise == "invisible"
    )
