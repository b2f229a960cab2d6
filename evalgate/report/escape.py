"""Escaping untrusted text for every place a report puts it.

File names, finding messages, judge reasoning and document text are written by people (or models) we do
not trust. Each sink has its own grammar, so each gets its own function:

- workflow commands (`::error file=...::message`) are parsed line by line by the runner: a newline or a
  `::` in a file name could start a command of its own, so `%`, CR and LF are percent-encoded, and in
  properties also `:` and `,` (the runner's own escaping rules);
- markdown (job summary, PR comment, check-run summary) renders HTML and notifies `@mentions`, so text
  is HTML-escaped, markdown punctuation is backslash-escaped and mentions get a zero-width space;
- anything with a size limit is truncated on a character boundary with a visible note.
"""

from __future__ import annotations

import re

ZERO_WIDTH_SPACE = "\u200b"

# `@user`, `@org/team`: GitHub notifies on these in comments and summaries. A zero-width space after the
# `@` keeps the text readable and stops the notification. An e-mail address (`a@b.c`) is not a mention.
_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9])")
# Characters that format or link inside running text. Text always follows a bullet or sits in a cell,
# so line-start syntax (`#`, `-`, `1.`) cannot trigger; `[`/`]` are enough to stop links and images.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def command_message(text: str) -> str:
    """Escape the message part of a workflow command (after the final `::`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """Escape a workflow-command property value (`file=`, `title=`): also `:` and `,` end a property."""
    return command_message(text).replace(":", "%3A").replace(",", "%2C")


def neutralise_mentions(text: str) -> str:
    """Stop `@user` / `@org/team` in untrusted text from notifying anyone."""
    return _MENTION.sub("@" + ZERO_WIDTH_SPACE, text)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markdown_text(text: str) -> str:
    """Untrusted text as one line of inert markdown: no HTML, no formatting, no mentions, no newlines."""
    one_line = " ".join(text.split())
    return neutralise_mentions(_MARKDOWN_SPECIAL.sub(r"\\\1", _html(one_line)))


def markdown_cell(text: str) -> str:
    """Untrusted text inside a markdown table cell (pipes and newlines would break the row)."""
    return markdown_text(text)


def markdown_code(text: str, in_table: bool = False) -> str:
    """Untrusted text as inline code (e.g. a file path), safe whatever backticks it contains.

    Inline code shows text literally, so mentions and HTML are already inert there; the only risks are
    a backtick closing the span early and a newline (or, in a table, a pipe) breaking the row. The
    fence is made longer than the longest backtick run inside, as CommonMark allows. GitHub splits
    table cells on `|` even inside code, so there it is escaped; elsewhere `\\|` would show literally.
    """
    one_line = " ".join(text.split())
    if in_table:
        one_line = one_line.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") or not one_line else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"


def visible_name(path: str) -> str:
    """A file name as written, or quoted with escapes (Python's repr) when white space or control
    characters in it would not show: inline code collapses a trailing space, a log line a newline."""
    plain = path.isprintable() and " ".join(path.split()) == path
    return path if plain and all(part == part.strip() for part in path.split("/")) else repr(path)


def plain_line(text: str, limit: int) -> str:
    """Collapse whitespace to one line and cut to `limit` characters with an ellipsis."""
    one_line = " ".join(text.split())
    if len(one_line) <= limit:
        return one_line
    return one_line[: max(limit - 1, 0)] + "…"


def utf8_len(text: str) -> int:
    """Length in bytes as GitHub counts the step summary limit."""
    return len(text.encode("utf-8"))


def truncate_utf8(text: str, limit: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding fits in `limit` bytes."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode("utf-8", errors="ignore")
