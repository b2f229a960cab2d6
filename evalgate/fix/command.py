"""`evalgate fix PATH... [--diff]`: fix files in place (atomically) or print a unified diff.

Every byte the fix does not change is kept: the BOM, each line's ending (LF or CRLF, a lone CR),
the final newline or its absence; the line count never changes. A file is replaced by renaming a
finished temporary file over it (same directory, same permissions), so it is either the old file or
the new one, never half written; one that cannot be read or written (or is read-only: no write
permission bit, which a rename would otherwise bypass) is an error naming the file, and the other
files go on. The `--diff` output counts lines as `patch` and `git apply` do, so it applies as
printed. Exit codes: 0 done (or, with --diff, nothing to fix); 1 with --diff when there are fixes to
apply; 2 when a file could not be read or written, or the configuration is bad.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgate.checks.acronym_expansion import AcronymProblem
from evalgate.config import Config, load_config
from evalgate.document import DocumentError, normalise_text, read_document
from evalgate.fix.acronyms import FixResult, Left, fix_text
from evalgate.fix.em_dashes import NAME as DASH
from evalgate.fix.em_dashes import DashLeft, fix_em_dashes
from evalgate.results import EXIT_PASS, EXIT_USAGE
from evalgate.rubric import Rubric, load_rubric
from evalgate.rubrics.params import AcronymExpansionParams, CheckParams, EmDashesParams

EXIT_PENDING = 1


class FixError(Exception):
    """A file could not be read or written; the message names it."""


@dataclass(frozen=True)
class FileFix:
    """One file: its old and new bytes and the account of what was fixed."""

    display: str
    path: Path
    old: bytes
    new: bytes
    result: FixResult


@dataclass(frozen=True)
class DashPlan:
    """The em-dash fixes a rubric asks for (its `em_dashes` dimension's params) and the dimensions
    they must not move."""

    params: EmDashesParams | None
    others: list[tuple[str, CheckParams | None]]


def fix_bytes(
    raw: bytes,
    params: AcronymExpansionParams | None,
    others: list[tuple[str, CheckParams | None]],
    dashes: DashPlan | None = None,
) -> tuple[bytes, FixResult]:
    """The fixed bytes of a UTF-8 file. The text is fixed in its LF form (what the checks read), then
    each line gets back its own ending: lines keep their number, so line i's ending is line i's. The
    acronyms are fixed first, then (with `dashes`) the em-dashes."""
    text = raw.decode("utf-8")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    raw_lines = body.split("\n")
    result = fix_text(normalise_text(body), params, others)
    if dashes is not None:
        dashed = fix_em_dashes(result.text, dashes.params, dashes.others)
        result = FixResult(dashed.text, result.fixed + dashed.fixed, result.left + dashed.left)
    if not result.fixed:
        return raw, result
    fixed_lines = result.text.split("\n")
    assert len(fixed_lines) == len(raw_lines), "a fix never adds or removes a line"
    out = []
    for old, new in zip(raw_lines, fixed_lines, strict=True):
        if old.removesuffix("\r").replace("\r", " ") == new:
            out.append(old)  # untouched: every byte as it was (lone CRs included)
        elif "\r" in old.removesuffix("\r"):  # a lone CR the checks read as a space: not rewritten
            return raw, FixResult(body, [], [*result.left, *_lone_cr(result)])
        else:
            out.append(new + ("\r" if old.endswith("\r") else ""))
    return (bom + "\n".join(out)).encode("utf-8"), result


def _lone_cr(result: FixResult) -> list[tuple[Left, str]]:
    why = "the file has a lone carriage return on a line to fix: fix it by hand"
    left: list[Left] = [
        DashLeft(e.line, e.column)
        if e.acronym == DASH
        else AcronymProblem(e.acronym, "unexpanded", e.line, "")
        for e in result.fixed
    ]
    return [(problem, why) for problem in left]


def replace_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path` with its mode (and owner, where allowed) and
    rename it over `path` (a symlink's target is what is replaced, so the link stays a link)."""
    target = path.resolve()
    tmp: str | None = None
    try:
        st = target.stat()
        mode = st.st_mode & 0o7777
        if not mode & 0o222:  # renaming over it would succeed where writing it would not
            raise FixError(f"{path}: the file is read-only; it is unchanged")
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".evalgate-fix", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            # the file's owner and group, not the fixer's (root in a container over a checkout);
            # only root (or a member of the group) may give them, so otherwise the fixer's stay
            with contextlib.suppress(PermissionError):
                os.chown(tmp, st.st_uid, st.st_gid)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        why = exc.strerror or str(exc)
        raise FixError(f"{path}: cannot write the fixed file ({why}); it is unchanged") from None


def fix_plan(
    rubric: Rubric, config: Config
) -> tuple[AcronymExpansionParams | None, list[tuple[str, CheckParams | None]]]:
    """acronym_expansion's params (the glossary merged in, as `check` does) and the other checks."""
    from evalgate.run import structural_checks

    checks = structural_checks(rubric, config)
    params = next((p for dim, _, p in checks if dim == "acronym_expansion"), None)
    others = [(dim, p) for dim, _, p in checks if dim != "acronym_expansion"]
    return (params if isinstance(params, AcronymExpansionParams) else None), others


def dash_plan(rubric: Rubric, config: Config) -> DashPlan | None:
    """The em-dash fixes when the rubric has an `em_dashes` dimension (research-review), else None."""
    from evalgate.run import structural_checks

    checks = structural_checks(rubric, config)
    if not any(dim == "em_dashes" for dim, _, _ in checks):
        return None
    params = next(p for dim, _, p in checks if dim == "em_dashes")
    others = [(dim, p) for dim, _, p in checks if dim != "em_dashes"]
    return DashPlan(params if isinstance(params, EmDashesParams) else None, others)


def _account(fix: FileFix) -> list[str]:
    edits = sorted(fix.result.fixed, key=lambda e: (e.line, e.column))
    fixed = ", ".join(f"{e.acronym} (line {e.line})" for e in edits)
    lines = [f"{fix.display}: fixed {len(fix.result.fixed)}" + (f": {fixed}" if fixed else "")]
    for problem, why in fix.result.left:
        lines.append(f"{fix.display}:{problem.line}: left for the author: {problem.acronym}: {why}")
    return lines


def _diff(fix: FileFix) -> str:
    old, new = _diff_lines(fix.old), _diff_lines(fix.new)
    a, b = _quoted(f"a/{fix.display}"), _quoted(f"b/{fix.display}")
    return "".join(difflib.unified_diff(old, new, a, b))


def _quoted(name: str) -> str:
    """A diff header's file name, C-quoted as git writes one that holds a control character, a
    quote or a backslash (a line break in it would otherwise end the header)."""
    if name.isprintable() and '"' not in name and "\\" not in name:
        return name
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}
    quoted = "".join(
        escapes.get(c) or (c if c.isprintable() else "".join(f"\\{b:03o}" for b in c.encode())) for c in name
    )
    return f'"{quoted}"'


def _diff_lines(data: bytes) -> list[str]:
    """Lines as `patch` and `git apply` count them: split at LF only (not at a form feed or U+2028,
    as str.splitlines does), a last line without one marked `\\ No newline at end of file`."""
    parts = data.decode("utf-8").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1] + "\n\\ No newline at end of file\n")
    return lines


def cmd_fix(args: argparse.Namespace) -> int:
    from evalgate.discover import discover, repository_root

    config = load_config(args.config, required=args.config is not None)
    rubric = load_rubric(args.rubric or config.rubric)
    params, others = fix_plan(rubric, config)
    dashes = dash_plan(rubric, config)
    base = Path.cwd()
    targets, problems = discover(list(args.paths or [config.paths]), repository_root(base), base=base)
    failed = bool(problems)
    for problem in problems:
        print(f"evalgate: {problem.display}: {problem.message}", file=sys.stderr)
    pending = False
    for target in targets:
        try:
            document = read_document(
                target.path, max_bytes=int(config.max_file_mb * 1024 * 1024), display=target.display
            )
            del document  # read for its checks (size, UTF-8, not binary); the fix works on the bytes
            raw = target.path.read_bytes()
        except (DocumentError, OSError) as exc:
            print(f"evalgate: {exc}", file=sys.stderr)
            failed = True
            continue
        new, result = fix_bytes(raw, params, others, dashes)
        fix = FileFix(target.display, target.path, raw, new, result)
        pending = pending or new != raw
        if args.diff:
            sys.stdout.write(_diff(fix))
        elif new != raw:
            try:
                replace_atomically(target.path, new)
            except FixError as exc:
                print(f"evalgate: {exc}", file=sys.stderr)
                failed = True
                continue
        for line in _account(fix):
            print(line, file=sys.stderr if args.diff else sys.stdout)
    if failed:
        return EXIT_USAGE
    return EXIT_PENDING if args.diff and pending else EXIT_PASS


def register(subparsers: Any, help_text: str) -> None:
    """Add `fix` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    p = subparsers.add_parser("fix", help=help_text)
    p.add_argument("paths", nargs="*", metavar="PATH", help="files, directories (recursed for *.md) or globs")
    p.add_argument(
        "--diff", action="store_true", help="print a unified diff and write nothing (exit 1 if any)"
    )
    p.add_argument("--rubric", help="rubric pack name or a YAML path (default: the configuration's)")
    p.add_argument("--config", help="configuration file (default: .evalgate.yml if present)")
    p.set_defaults(func=cmd_fix)
