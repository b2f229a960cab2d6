"""The `paths` filter: GitHub's glob patterns matched against repository paths, the directories a
pattern covers, and, for a path under them that it does not match, why not.

A pattern is one glob per line, evaluated in order like GitHub's `paths` filter (a later `!glob`
excludes what earlier lines included). A glob that ends in a markdown extension matches every markdown
extension in any letter case (`*.md` matches `x.MD` and `y.markdown`), as `evalgate check` does
(`discover.is_markdown`): a document is not skipped because of how its extension is spelled.

A path under a pattern's root that it does not match is named in the run's summary with the reason
(`explain_miss`): a directory whose letter case differs (`Research/Completed/`), a name that ends with
a space, full-width or invisible characters, or a file that is not markdown. Those are the near misses
an author can make by accident or on purpose; the summary says which one it is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from evalgate.discover import MARKDOWN_EXTENSIONS, any_case, is_markdown, markdown_extension

_MAGIC = re.compile(r"[*?+\[\\]")
# Any markdown extension, in any case: what a glob's trailing `.md` or `.markdown` stands for.
_MARKDOWN_SUFFIX = r"\.(?:" + "|".join(any_case(ext[1:]) for ext in MARKDOWN_EXTENSIONS) + ")"


def _lines(pattern: str) -> list[str]:
    return [line.strip() for line in pattern.splitlines() if line.strip()]


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate one GitHub filter pattern to a regex matched against the whole path.

    GitHub's cheat sheet: `*` any run without `/`; `**` any run; `**/` also zero directories (so
    `docs/**/*.md` matches `docs/a.md`); `?` zero or one and `+` one or more of the preceding
    character; `[a-z0-9]` one listed character; `\\` escapes the next character. A trailing markdown
    extension stands for every markdown extension in any case.
    """
    ending = markdown_extension(pattern)
    body = pattern[: -len(ending)] if ending and not pattern.endswith("\\" + ending) else pattern
    out: list[str] = []
    quantifiable = False  # whether `?`/`+` may follow the last atom (a single character or class)
    i = 0
    while i < len(body):
        char = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i, quantifiable = i + 3, False
        elif body.startswith("**", i):
            out.append(".*")
            i, quantifiable = i + 2, False
        elif char == "*":
            out.append("[^/]*")
            i, quantifiable = i + 1, False
        elif char in "?+" and quantifiable:
            out.append(char)
            i, quantifiable = i + 1, False
        elif char == "[" and "]" in body[i + 2 :]:
            end = body.index("]", i + 2)
            inside = body[i + 1 : end]
            negate = inside[0] in "!^"
            inside = inside[1:] if negate else inside
            out.append("[" + ("^" if negate else "") + re.sub(r"([\\\]\[^])", r"\\\1", inside) + "]")
            i, quantifiable = end + 1, True
        elif char == "\\" and i + 1 < len(body):
            out.append(re.escape(body[i + 1]))
            i, quantifiable = i + 2, True
        else:
            out.append(re.escape(char))
            i, quantifiable = i + 1, True
    if body != pattern:
        out.append(_MARKDOWN_SUFFIX)
    return re.compile("".join(out), re.DOTALL)


def _decision(path: str, pattern: str) -> tuple[bool, str | None]:
    """Whether `pattern` selects `path`, and the `!` line that excluded it last, if one did."""
    selected, excluded_by = False, None
    for line in _lines(pattern):
        negate = line.startswith("!")
        if _glob_regex(line[1:] if negate else line).fullmatch(path):
            selected = not negate
            excluded_by = line if negate else None
    return selected, excluded_by


def path_matches(path: str, pattern: str) -> bool:
    """Whether `path` is selected by `pattern`: one glob per line, evaluated in order like GitHub's
    `paths` filter (a later `!glob` excludes what earlier lines included). A blank pattern selects all.
    """
    if not _lines(pattern):
        return True
    return _decision(path, pattern)[0]


def glob_roots(pattern: str) -> tuple[str, ...]:
    """The directories the pattern's globs cover: each including line's literal leading directories
    (`Research/completed/**/*.md` -> `Research/completed`); "" when a glob starts with a wildcard
    (or the pattern is blank), which covers the whole repository."""
    roots: list[str] = []
    for line in _lines(pattern) or ["**"]:
        if line.startswith("!"):
            continue
        literal: list[str] = []
        for part in line.split("/")[:-1]:
            if _MAGIC.search(part):
                break
            literal.append(part)
        root = "/".join(literal)
        if root not in roots:
            roots.append(root)
    return tuple(roots)


def loose(path: str) -> str:
    """`path` as a reader would take it: invisible format characters dropped, compatibility forms
    (full-width letters) folded (NFKC), each name stripped of surrounding white space, letter case
    folded. Two paths that read the same are equal here."""
    return "/".join(_plain(part).strip().casefold() for part in path.split("/"))


def _plain(text: str) -> str:
    return unicodedata.normalize("NFKC", _visible(text))


def _visible(text: str) -> str:
    """`text` without invisible format characters (Unicode category Cf: zero-width space, joiners,
    soft hyphen, bidirectional controls)."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def under_roots(path: str, roots: tuple[str, ...]) -> bool:
    """Whether `path` lies under one of `roots` as a reader would read both (see `loose`). For a root
    that is the whole repository, only markdown files count: every other file of the repository is
    not a document anyone meant the glob to cover."""
    read = loose(path)
    for root in roots:
        if root == "":
            if is_markdown(read):
                return True
        elif read.startswith(loose(root) + "/"):
            return True
    return False


def shown(pattern: str) -> str:
    """The pattern's globs as a reason quotes them: `'a/**/*.md' or '!a/drafts/**'`."""
    return " or ".join(repr(line) for line in _lines(pattern))


def explain_miss(path: str, pattern: str) -> str:
    """Why `pattern` does not select `path`, said so its author can tell what differs."""
    selected, excluded_by = _decision(path, pattern)
    if selected or not _lines(pattern):
        return "matched by paths glob " + (shown(pattern) or "''")
    if excluded_by:
        return f"excluded by paths line {excluded_by!r}"
    reason = f"not matched by paths glob {shown(pattern)}"
    hints: list[str] = []
    visible = _visible(path)
    if visible != path:
        codes = sorted({f"U+{ord(c):04X}" for c in path if unicodedata.category(c) == "Cf"})
        hints.append(f"it holds invisible characters ({', '.join(codes)})")
    folded = unicodedata.normalize("NFKC", visible)
    if folded != visible:
        hints.append(f"it has full-width or other compatibility characters (it reads as {folded!r})")
    parts = folded.split("/")
    for part in parts:
        if part != part.rstrip():
            hints.append(f"the name {part!r} ends with {_space(part[-1])}")
        if part != part.lstrip():
            hints.append(f"the name {part!r} begins with {_space(part[0])}")
    plain = "/".join(part.strip() for part in parts)
    if not path_matches(plain, pattern):
        hints += _case_hints(plain, pattern)
    if not is_markdown(plain):
        hints.append("not markdown")
    return reason + (": " + "; ".join(hints) if hints else "")


def _space(char: str) -> str:
    return "a space" if char == " " else "white space"


def _case_hints(path: str, pattern: str) -> list[str]:
    """A directory or name of `path` that equals a root's in all but letter case."""
    names = path.split("/")
    for root in glob_roots(pattern):
        for name, wanted in zip(names, root.split("/") if root else [], strict=False):
            if name != wanted and name.casefold() == wanted.casefold():
                return [f"the directory {name!r} differs in letter case from {wanted!r}"]
            if name != wanted:
                break
    return []
