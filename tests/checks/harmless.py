"""Edits that never change what a structural check decides (shared by the check tests)."""

from __future__ import annotations

import re


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def bom(text: str) -> str:
    return "\ufeff" + text


def trailing_spaces(text: str) -> str:
    return "\n".join(line + "   " for line in text.split("\n"))


def paren_markers(text: str) -> str:
    return re.sub(r"^(\d+)\. ", r"\1) ", text, flags=re.M)


def reflow(text: str) -> str:
    """Break every long list item after its eighth word, with a continuation indent."""

    def wrap(m: re.Match[str]) -> str:
        words = m.group(2).split(" ")
        return m.group(1) + " ".join(words[:8]) + "\n   " + " ".join(words[8:])

    return re.sub(r"^(\d+\. )(.{80,})$", wrap, text, flags=re.M)


HARMLESS = [crlf, bom, trailing_spaces, paren_markers, reflow]
