"""Case-insensitive search for ASCII needles on UTF-8 bytes.

`str.lower()` of a 60 KB item with any non-ASCII character (an em dash is enough, and most items have
one) is several times slower than `bytes.lower()` of its UTF-8, which lowers A-Z only. For an ASCII
needle the two agree: every non-ASCII character lowers to non-ASCII characters, whose UTF-8 bytes are
all >= 0x80 and so never take part in an ASCII match, except two whose lower case holds an ASCII
letter (U+0130 `İ` -> `i` + U+0307, U+212A KELVIN SIGN -> `k`). Where either is in the text, callers
fall back to `str.lower()`.
"""

from __future__ import annotations

LOWER_TO_ASCII = ("\u0130", "\u212a")


def ascii_lowered(text: str, utf8: bytes | None = None, table: bytes | None = None) -> bytes | None:
    """The UTF-8 bytes of `text` with A-Z lowered, or None when the text holds a character whose lower
    case is ASCII (then only `text.lower()` answers exactly). `utf8`, when given, is text's UTF-8
    encoding already at hand (a file as read), so the text is not encoded again. `table`, when given,
    is a `bytes.translate` table applied instead of `bytes.lower()`: one that lowers A-Z and maps other
    ASCII bytes to ASCII bytes too, in the same pass."""
    if LOWER_TO_ASCII[0] in text or LOWER_TO_ASCII[1] in text:
        return None
    data = text.encode("utf-8") if utf8 is None else utf8
    return data.lower() if table is None else data.translate(table)
