"""Command line: parse arguments -> run(config) -> render -> exit code.

Exit codes: 0 every file passed; 1 any file failed or could not be evaluated; 2 usage or configuration
error (including a results file that could not be written).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from evalgate import __version__
from evalgate.config import (
    Config,
    ConfigError,
    add_run_options,
    config_from_args,
    config_json_schema,
    load_config,
)
from evalgate.report.render import FORMATS, render
from evalgate.results import EXIT_FAIL, EXIT_PASS, EXIT_USAGE, FileResult, GateOn, exit_code
from evalgate.rubric import RubricError, load_rubric, rubric_json_schema

if TYPE_CHECKING:
    from evalgate.github.baseline import GitBaseline


class UsageError(Exception):
    """Bad arguments or configuration: printed as one message, exit 2."""


def build_parser(for_command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line. Given `for_command`, the command that runs, only its subparser: the
    other commands are neither imported (those in their own module pull in the judging stack) nor
    built (a subparser is an ArgumentParser of its own: the eleven others were ~1% of a one-file
    check's instructions). Given another word or none (`evalgate --help`), every command, those in
    their own module only listed with their help."""
    parser = argparse.ArgumentParser(prog="evalgate", description="Gate CI on research documents.")
    parser.add_argument("--version", action="version", version=f"evalgate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    known = for_command in BUILT_IN_COMMANDS or for_command in MODULE_COMMANDS
    for name, (add_options, help_text) in BUILT_IN_COMMANDS.items():
        if not known or for_command == name:
            add_options(sub.add_parser(name, help=help_text))
    for name, (module, help_text) in MODULE_COMMANDS.items():
        if for_command is None or for_command == name:
            importlib.import_module(module).register(sub, help_text)
        elif not known:
            sub.add_parser(name, help=help_text)  # listed in --help; its options come with its module
    return parser


def _check_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files, directories (recursed for *.md, *.markdown in any case) or globs",
    )
    add_run_options(check)
    check.add_argument("--format", choices=FORMATS, default="text")
    check.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    check.add_argument("-v", "--verbose", action="store_true", help="text: show every dimension")
    check.add_argument(
        "--gate-on",
        choices=("new", "all"),
        help="new: fail only on what differs from --base (findings the change adds, judged scores "
        "that drop); all: every finding (the default)",
    )
    check.add_argument("--base", metavar="REV", help="with --gate-on new: the commit to compare with")


def _prompt_options(prompt: argparse.ArgumentParser) -> None:
    prompt.add_argument("file")
    prompt.add_argument("--rubric")
    prompt.add_argument("--seed", type=int, default=0)
    prompt.add_argument(
        "--judge-index",
        type=int,
        default=0,
        metavar="N",
        help="the judge's place in the --judge list, 0 for the first (the criteria order depends on it)",
    )


def _changed_options(changed: argparse.ArgumentParser) -> None:
    changed.add_argument("--base", required=True)
    changed.add_argument("--head", default="HEAD")
    changed.add_argument("--paths", default=None, help="glob (default Research/completed/**/*.md)")
    changed.add_argument("--repo", default=".")
    changed.add_argument(
        "--three-dot", action="store_true", help="diff from the merge base (as a pull request)"
    )


def _schema_options(schema: argparse.ArgumentParser) -> None:
    schema.add_argument("which", choices=("rubric", "config", "pilot-record", "pilot-summary"))


# The commands this module runs (COMMANDS below): each adds its options to its subparser.
BUILT_IN_COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], str]] = {
    "check": (_check_options, "evaluate markdown files (files, directories, globs)"),
    "prompt": (_prompt_options, "print the rendered judge prompt for a file"),
    "changed": (_changed_options, "print the files a revision range would evaluate"),
    "schema": (
        _schema_options,
        "print the JSON schema of a rubric file, .evalgate.yml, or a pilot's outputs",
    ),
}


# Commands that live with their own concept, in their own module, whose register() adds the
# subparser and its handler. A module is imported only when its command runs: nearly every run is
# `check`, and these modules pull in the judging stack (Jinja2, asyncio, an HTTP client), which was a
# third of the CLI's start-up.
MODULE_COMMANDS: dict[str, tuple[str, str]] = {
    "calibrate": ("evalgate.validity.calibrate_command", "measure the judges against the labelled gold set"),
    "canary": ("evalgate.validity.canary", "re-judge frozen fixtures and fail on score drift"),
    "compare": ("evalgate.validity.compare", "pairwise preference of two files, asked in both orders"),
    "history": ("evalgate.validity.history_view", "read a score history: `history show FILE`"),
    "merge": (
        "evalgate.github.merge",
        "combine shard results files (check --shard I/N --format json) into one report",
    ),
    "pilot": ("evalgate.validity.pilot", "run a multiplier pilot: tasks x cells judged blind by a trio"),
    "glossary": ("evalgate.checks.glossary", "print the Expansion (ABBR) pairs files use, as glossary YAML"),
    "fix": ("evalgate.fix.command", "fix acronym findings in place (--diff: show them, write nothing)"),
}


def _command_word(argv: Sequence[str]) -> str:
    """The command the arguments name when they start with it, or '' (`--help` before a command
    asks for the whole command line, every command listed)."""
    return argv[0] if argv and not argv[0].startswith("-") else ""


def _progress_bar(total_hint: bool) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """A progress bar on stderr, only when stderr is a terminal."""
    if not total_hint or not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)  # stdout carries the report
    task = bar.add_task("evaluating", total=None)
    started: list[bool] = []

    def update(done: int, total: int) -> None:
        # Started at the first update, after the run has started its worker processes: the bar's
        # refresh thread would make forking them unsafe (evalgate.run._structural_workers).
        if not started:
            bar.start()
            started.append(True)
        bar.update(task, completed=done, total=total)

    def stop() -> None:
        if started:
            bar.stop()

    return update, stop


def cmd_check(args: argparse.Namespace) -> int:
    from evalgate.run import run

    config = config_from_args(args)
    paths = args.paths or [config.paths]
    update, stop = _progress_bar(True)
    if getattr(args, "whole_process", False):  # set by main(); False for any other caller
        # This process ends with this command, and what it has imported by now lives until then:
        # frozen, the collector no longer walks it (on the corpus a full collection during the report
        # and the one at exit cost ~57 M instructions, 3% of the main process).
        gc.freeze()
    # --format json: each result's line, rendered while the workers read on, and encoded as the report
    # is written (half the memory of text for the corpus's lines)
    lines: list[bytes] = []
    encoding = ("utf-8", "strict") if args.output else _stdout_encoding()
    if args.format == "json":
        from evalgate.report.jsonfile import encoded_pieces, result_line

        def each(result: FileResult) -> None:
            lines.append(result_line(result).encode(*encoding))

    with _gate_on(args, config) as (baseline, gate_on):
        try:
            report = run(
                config,
                paths,
                progress=update,
                each=each if args.format == "json" else None,
                baseline=baseline,
            )
        finally:
            stop()
    if gate_on is not None:
        report = replace(report, gate_on=gate_on)
    if config.history:
        from evalgate.validity.history import record_run

        for alert in record_run(report, config.history).alerts:
            print(f"evalgate: trend alert: {alert}", file=sys.stderr)
    # --format json: the report in pieces (no 2 MB copy of it made and encoded again)
    pieces = (
        encoded_pieces(report, lines, *encoding)
        if args.format == "json"
        else [render(report, args.format, verbose=args.verbose, rubric=config.rubric).encode(*encoding)]
    )
    if args.output:
        try:
            with open(args.output, "wb") as out:
                out.writelines(pieces)
        except OSError as exc:
            sys.stdout.writelines(piece.decode("utf-8") for piece in pieces)
            print(f"evalgate: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_USAGE
    else:
        _write_stdout(pieces, encoding[0])
    return exit_code(report)


@contextmanager
def _gate_on(args: argparse.Namespace, config: Config) -> Iterator[tuple[GitBaseline | None, GateOn | None]]:
    """`--gate-on new --base REV`: each document's version at REV, to compare with (removed after the
    run); otherwise no baseline, and the mode to state when one was asked for."""
    mode = args.gate_on or config.gate_on
    if mode != "new":
        if args.base:
            raise UsageError("--base REV is the commit --gate-on new compares with; add --gate-on new")
        yield None, GateOn("all", "--gate-on all") if mode == "all" else None
        return
    if not args.base:
        if args.gate_on == "new":
            raise UsageError(
                "--gate-on new compares each document with its version at a commit: give --base REV"
            )
        yield None, GateOn("all", "gate-on: new in the configuration needs --base REV on the command line")
        return
    from evalgate.discover import repository_root
    from evalgate.github.baseline import GitBaseline
    from evalgate.github.changes import ChangeDetectionError, resolve_commit

    repo = repository_root(Path.cwd())
    why = "--gate-on new" if args.gate_on else "gate-on in the configuration"
    try:
        sha = resolve_commit(repo, args.base)
        baseline = GitBaseline(
            repo, sha, why, paths=config.paths, max_bytes=int(config.max_file_mb * 1024 * 1024)
        )
    except ChangeDetectionError as exc:
        raise UsageError(f"--base {args.base}: {exc}") from None
    with baseline:
        yield baseline, None


def _stdout_encoding() -> tuple[str, str]:
    """How stdout encodes text: its encoding and error handler (UTF-8 for a stand-in that has none,
    such as a caller's StringIO, whose pieces are decoded again)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    return encoding, getattr(sys.stdout, "errors", None) or "strict"


def _write_stdout(pieces: list[bytes], encoding: str) -> None:
    """Pieces of a report encoded as stdout encodes text, on stdout: as bytes where it has a buffer,
    as text where it has none (a caller's StringIO)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.writelines(piece.decode(encoding) for piece in pieces)
        return
    sys.stdout.flush()
    buffer.writelines(pieces)


def cmd_prompt(args: argparse.Namespace) -> int:
    from evalgate.document import DocumentError, read_document
    from evalgate.judging.prompt import render_judge_prompt

    rubric = load_rubric(args.rubric or load_config(None).rubric)
    try:
        document = read_document(Path(args.file))
    except DocumentError as exc:
        raise UsageError(str(exc)) from None
    prompt = render_judge_prompt(rubric, document, seed=args.seed, judge=args.judge_index)
    sys.stdout.write(prompt.text)
    return EXIT_PASS


def cmd_changed(args: argparse.Namespace) -> int:
    from evalgate.config import DEFAULT_PATHS
    from evalgate.github.changes import ChangeDetectionError, changed_files, format_changes

    try:
        changes = changed_files(
            Path(args.repo), args.base, args.head, args.paths or DEFAULT_PATHS, three_dot=args.three_dot
        )
    except ChangeDetectionError as exc:
        raise UsageError(str(exc)) from None
    text = format_changes(changes)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_PASS


def cmd_schema(args: argparse.Namespace) -> int:
    if args.which.startswith("pilot-"):
        from evalgate.validity.pilot_schema import SCHEMAS

        schema = SCHEMAS[args.which]()
    else:
        schema = rubric_json_schema() if args.which == "rubric" else config_json_schema()
    sys.stdout.write(json.dumps(schema, indent=2) + "\n")
    return EXIT_PASS


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "check": cmd_check,
    "prompt": cmd_prompt,
    "changed": cmd_changed,
    "schema": cmd_schema,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `evalgate` console script."""
    argv_given = argv is not None  # None: the process's own command line, run once before it exits
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(for_command=_command_word(argv))
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    handler = getattr(args, "func", None) or COMMANDS[args.command]
    args.whole_process = not argv_given
    try:
        code = handler(args)
    except (UsageError, ConfigError, RubricError) as exc:
        print(f"evalgate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("evalgate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`evalgate check | head`): stop quietly, as other command-line tools do,
        # and point stdout at /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
    except Exception as exc:
        # imported only now: a structural run never loads the judging stack (tests/test_cli.py)
        from evalgate.judging.backends import JudgeSpecError

        if not isinstance(exc, JudgeSpecError):
            raise
        print(f"evalgate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.whole_process:
        # The process exits next: what the command built (a judged run's documents, Jinja2, the HTTP
        # stack) is frozen as well, so the interpreter's last full collection does not walk it: a
        # judged run's exit took 23-37 ms, 8-15 ms with this.
        gc.freeze()
        code = _end_process(code)
    return code


def _end_process(code: int) -> int:
    """End the process now with `code`, doing what the interpreter's exit does except tearing down
    every module and object one by one, which the operating system's reclaiming of the memory makes
    moot (mypy's command line ends the same way): the exit functions run (`atexit`, which is where
    libraries flush logs, remove temporary directories, stop worker processes) and stdout and stderr
    are flushed. That teardown was 18 ms of a 155 ms one-file check, ~20 ms of the corpus command and
    ~30 ms after a judged run's last reply (bench/speed.py's commands, interleaved A/B runs).

    Returns (and the interpreter exits as usual) when a thread other than a daemon is still running,
    which the interpreter's exit would wait for, or when stdout cannot be flushed."""
    import atexit
    import threading
    from contextlib import suppress

    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return code
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: as main() treats it during the command
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
    except (OSError, ValueError):  # stdout closed or failing: the interpreter reports it at exit
        return code
    with suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
