"""Reading a research item: bytes on disk -> `Document` (front matter, a section tree with line spans,
lists, tables and the Findings part), by composing the parsers of this package.

Line numbers everywhere are 1-based lines of the original file (CRLF and a BOM are normalised away
before parsing but never shift a line).

CONTRACT (shared by checks/, judging/ and report/; the types are in `evalgate.document.model`):
- `parse_document(text, path="", *, utf8=None) -> Document` never raises on any str input.
- `read_document(path) -> Document` raises `DocumentError` (a clear, per-file message) for files that
  cannot be evaluated at all: missing, not a regular file, not UTF-8, binary (NUL bytes), too large.

How it parses (speed matters: the structural pass over the 453-item corpus must take about a second,
and a full markdown-it-py parse of it takes ~10 s): one cheap line scan finds fenced code and every
heading exactly (a `#` line inside a fence is not a heading); markdown-it-py then parses block
structure only (its inline pass disabled) and only for the regions whose lists a check reads
(Sources, Key Findings), and only where a region is more than paragraphs, headings and lists of
paragraphs (`evalgate.document.blocks.plain_lists` reads those, every such region of the corpus, and
tests hold it to markdown-it-py); the Evidence Map's table is read by a line scan. The Findings part
is extracted from those blocks in `evalgate.document.findings`.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import yaml

from evalgate.document.disguise import may_hold, may_refer, referenced, undisguised
from evalgate.document.findings import attach
from evalgate.document.hidden import blanked, hidden_spans, raw_html
from evalgate.document.model import Document, DocumentError, FrontMatter, Section
from evalgate.document.scan import scan_lines
from evalgate.yamlsafe import MAX_NESTING, nests_deeper, safe_load

# ---------------------------------------------------------------------------------------------
# Reading

MAX_BYTES = 5 * 1024 * 1024  # the largest corpus item is 107 KB; 5 MB is clearly not a research item


def read_document(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES, display: str | None = None
) -> Document:
    """Read and parse one markdown file; raise DocumentError with a clear message if it cannot be,
    naming the file as `display` (the path as the user gave it) when given."""
    name = os.fspath(path)
    shown = display or name
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise DocumentError(f"{shown}: no such file") from None
    except OSError as exc:
        raise DocumentError(f"{shown}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise DocumentError(f"{shown}: not a regular file")
    if st.st_size > max_bytes:
        raise DocumentError(f"{shown}: {st.st_size} bytes is larger than the {max_bytes}-byte limit")
    try:
        # unbuffered: the file is read whole, so a BufferedReader and its buffer are only cost
        with open(name, "rb", buffering=0) as file:
            raw = file.read()
    except OSError as exc:
        raise DocumentError(f"{shown}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > max_bytes:  # grew between stat and read
        raise DocumentError(f"{shown}: {len(raw)} bytes is larger than the {max_bytes}-byte limit")
    nul = raw.find(b"\0")
    if nul >= 0:
        raise DocumentError(f"{shown}: binary file (NUL byte at offset {nul}), not markdown")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"{shown}: not UTF-8 (invalid byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None
    return parse_document(text, path=name, utf8=raw)


# ---------------------------------------------------------------------------------------------
# Parsing


def normalise_text(text: str) -> str:
    """Drop a BOM and make line ends LF. A lone CR becomes a space: git and editors count lines
    by LF, so turning it into a line break would shift every line after it."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", " ")
    return text


def split_lines(text: str) -> tuple[str, ...]:
    """Lines of LF-normalised text; a final newline does not make an extra empty line."""
    if not text:
        return ()
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return tuple(lines)


def parse_document(text: str, path: str = "", *, utf8: bytes | None = None) -> Document:
    """Parse markdown text into a Document. Never raises on any str input. `utf8`, when given, is the
    text's UTF-8 encoding (the file as read); it is kept if normalising changes nothing."""
    normalised = normalise_text(text)
    if normalised is not text:
        utf8 = None
    text = normalised
    lines = split_lines(text)
    front = parse_front_matter(lines)
    first_body = front.end_line + 1 if front.end_line else 1
    scan = scan_lines(lines, first_body)
    # The readers' view (evalgate.document.hidden, .disguise): the lines the checks read are the
    # file's with what a reader never sees blanked and disguised tokens read as readers read them;
    # lines and their numbers stay the file's. Most files need neither (two quick tests).
    hidden = hidden_spans(text, lines, first_body, scan)
    disguised: tuple = ()
    file_lines = None
    refers = may_refer(text)
    raw = any(kind in (1, 6, 7) for _, _, kind in scan.html_blocks)
    if hidden or refers or raw or may_hold(text, utf8):
        file_lines = lines
        view = blanked(lines, hidden) if hidden else list(lines)
        if raw:  # `<div>` then `## h`: raw HTML's text, no heading, list or table
            view = raw_html(view, scan.html_blocks)
        if refers:  # `LL&#x200b;M` renders as `LLM` with an invisible character inside
            view = referenced(tuple(view), first_body, scan.code_blocks)
        if may_hold(text, utf8) or (refers and may_hold("".join(view))):
            view, found = undisguised(tuple(view), first_body)
            disguised = tuple(found)
        lines = tuple(view)
        if lines == file_lines:
            file_lines = None
        else:
            text = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
            utf8 = None
            if hidden or raw:  # what looked like headings or fences inside a comment is gone
                scan = scan_lines(lines, first_body)
    sections = build_sections(lines, scan.headings)
    doc = Document(
        path=path,
        text=text,
        lines=lines,
        front_matter=front,
        sections=sections,
        code_blocks=scan.code_blocks,
        utf8=utf8,
        hidden=hidden,
        disguised=disguised,
        file_lines=file_lines,
    )
    return attach(doc)


def build_sections(lines: tuple[str, ...], headings: tuple[tuple[int, int, str], ...]) -> tuple[Section, ...]:
    """Sections from (line, level, title) headings: each ends before the next heading of the same
    or a higher level, trailing blank lines excluded."""
    n = len(lines)
    # One pass with a stack of still-open headings: a heading closes every open one of the same or
    # a deeper level. Linear in the number of headings (a rescan per heading was quadratic: 50,000
    # headings took ~10 s).
    ends = [n] * len(headings)
    open_headings: list[tuple[int, int]] = []  # (level, index)
    for i, (line, level, _title) in enumerate(headings):
        while open_headings and open_headings[-1][0] >= level:
            ends[open_headings.pop()[1]] = line - 1
        open_headings.append((level, i))
    out: list[Section] = []
    for (line, level, title), end in zip(headings, ends, strict=True):
        while end > line and not lines[end - 1].strip():
            end -= 1
        out.append(Section(level, title, line, end))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Front matter

MAX_FRONT_MATTER_BYTES = 64 * 1024
MAX_YAML_NESTING = MAX_NESTING  # libyaml overflows the C stack on very deep nesting (a crash, not an error)
MAX_YAML_VALUES = 20_000  # alias bombs build small graphs that explode when walked


def parse_front_matter(lines: tuple[str, ...]) -> FrontMatter:
    """YAML between a first-line `---` and the next `---` (or `...`). Broken YAML is an error
    value, not an exception; only plain data is built (safe loading refuses `!!python` tags)."""
    if not lines or lines[0].rstrip() != "---":
        return FrontMatter(data=None)
    end = None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            end = i + 1
            break
    if end is None:
        return FrontMatter(None, start_line=1, error="front matter has no closing '---' line", error_line=1)
    source = "\n".join(lines[1 : end - 1])
    data, error, error_line = load_yaml(source)
    if error is not None:
        return FrontMatter(None, start_line=1, end_line=end, error=error, error_line=error_line)
    return FrontMatter(data=data, start_line=1, end_line=end)


def read_front_matter(path: str | os.PathLike[str]) -> FrontMatter | None:
    """The front matter of a file, read from its first bytes only (what `parse_document` reads of
    them); None when the file cannot be read as text, which reading it whole then reports."""
    try:
        with open(os.fspath(path), "rb") as file:
            head = file.read(MAX_FRONT_MATTER_BYTES + 4096)
    except OSError:
        return None
    if b"\0" in head:
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of what was read
            return None
        text = head[: exc.start].decode("utf-8")
    return parse_front_matter(split_lines(normalise_text(text)))


def front_matter_warning(document: Document) -> str | None:
    """A per-file message when the front matter could not be loaded (broken or hostile YAML), else
    None. The document is still evaluated without it; this says why its front matter was ignored."""
    front = document.front_matter
    if front.error is None:
        return None
    return f"front matter ignored (line {front.error_line or 1}): {front.error}"


def load_yaml(source: str) -> tuple[dict[str, Any] | None, str | None, int | None]:
    """(data, error, error_line) with error_line counted from the file's first line (the opening
    `---` is line 1, so YAML line 0 is file line 2)."""
    if len(source.encode("utf-8", "replace")) > MAX_FRONT_MATTER_BYTES:
        return None, f"front matter is larger than {MAX_FRONT_MATTER_BYTES} bytes", 1
    if nests_deeper(source, MAX_YAML_NESTING):
        return None, f"front matter nests deeper than {MAX_YAML_NESTING} levels", 1
    try:
        data = safe_load(source, dates=False)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else 1
        return None, f"invalid YAML: {exc.problem or exc}", line
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError) as exc:
        return None, f"invalid YAML: {exc}", 1
    if data is None:
        return {}, None, None
    if not isinstance(data, dict):
        return None, f"front matter is a {type(data).__name__}, not a mapping of keys to values", 2
    if "&" in source and _too_many_values(data):
        return None, f"front matter expands to more than {MAX_YAML_VALUES} values (YAML aliases)", 1
    return data, None, None


def _too_many_values(data: Any) -> bool:
    """Walk the loaded data with a budget; aliases make shared sub-trees count every time."""
    budget = MAX_YAML_VALUES
    stack = [data]
    while stack:
        value = stack.pop()
        budget -= 1
        if budget < 0:
            return True
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False
