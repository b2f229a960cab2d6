"""`evalgate merge`: shard results files -> one report, one summary, one check run.

A large run is split across a job matrix with `evalgate check --shard I/N --format json`; each job
uploads its results file, and one job downloads them all and merges them here. The merged report is
what a single unsharded run would have produced, apart from timings and the order of results (merged
results are sorted by path, so the order does not depend on which shard finished first):

- every shard must use the same rubric id and version, and the same judges: scores from two rubric
  versions, or from different judges, are not comparable, so that is an error (exit 2), not a merge;
- a path may appear in one shard only: a path in two shards means overlapping or repeated shard files
  (the same artifact twice, or shards of different N), and merging would count it twice. The one
  exception is a target problem (an ERROR result with no dimensions, such as "glob matched no files"):
  every shard sees the same command-line targets, so each reports it, identically;
- judge agreement is recomputed over the merged results (kappa over the union is not a mean of the
  shards' kappas); notes are kept once each, in order.

The exit code is the merged verdict's, as for `check` (0 pass, 1 fail or error), or 2 for a merge
that cannot be made. With `--publish`, the merged report is posted as in the action
(`publish_merged`): one check run with annotations, the job summary, step outputs and, given `--pr`,
the sticky comment.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgate.report.load import ReportLoadError, load_report
from evalgate.report.render import FORMATS, render
from evalgate.results import EXIT_USAGE, FileResult, Report, Verdict, exit_code
from evalgate.usage import RunBudget

if TYPE_CHECKING:  # publishing imports the HTTP client; only --publish needs it
    from evalgate.github.comment import CommentMode
    from evalgate.github.publish import PublishOutcome


class MergeError(Exception):
    """Shard results that cannot be merged into one report; the message says which and why."""


def _target_problem(result: FileResult) -> bool:
    return result.verdict is Verdict.ERROR and not result.dimensions


def merge_reports(reports: Sequence[Report], sources: Sequence[str] | None = None) -> Report:
    """Combine shard reports into one. `sources` names each report in error messages (file paths).

    Raises MergeError for no reports, different rubric versions or judges, or a path in two shards.
    """
    names = list(sources) if sources is not None else [f"report {i + 1}" for i in range(len(reports))]
    if not reports:
        raise MergeError("nothing to merge: name at least one results file")
    first, first_name = reports[0], names[0]
    for report, name in zip(reports[1:], names[1:], strict=True):
        if report.rubric != first.rubric:
            raise MergeError(
                f"{name} was evaluated with rubric {report.rubric.describe()}, "
                f"{first_name} with {first.rubric.describe()}: scores from different rubric or prompt "
                "versions cannot be merged (re-run the shards with one rubric and one prompt)"
            )
        if report.gate_on != first.gate_on:
            said = [r.gate_on.describe() if r.gate_on else "no gate-on mode" for r in (report, first)]
            raise MergeError(
                f"{name} was decided with {said[0]}, {first_name} with {said[1]}: the shards of one run "
                "must gate on the same findings against the same base"
            )
        if report.judges and first.judges and report.judges != first.judges:
            raise MergeError(
                f"{name} was judged by {', '.join(report.judges)}, {first_name} by "
                f"{', '.join(first.judges)}: the shards of one run must use the same judges"
            )

    _check_shards(reports, names)
    by_path: dict[str, tuple[FileResult, str]] = {}
    for report, name in zip(reports, names, strict=True):
        for result in report.results:
            seen = by_path.get(result.path)
            if seen is None:
                by_path[result.path] = (result, name)
            elif not (seen[0] == result and _target_problem(result)):
                raise MergeError(
                    f"{result.path} is in both {seen[1]} and {name}: each file must be in one shard "
                    "(the same results file given twice, or shards of different counts?)"
                )

    judges = next((r.judges for r in reports if r.judges), ())
    notes = tuple(dict.fromkeys(note for r in reports for note in r.notes))
    results = tuple(by_path[path][0] for path in sorted(by_path))
    merged = Report(
        rubric=first.rubric,
        results=results,
        judges=judges,
        notes=notes,
        gate_on=first.gate_on,
        # every shard read the same configuration: one calibration; each shard had its own budget
        calibration=next((r.calibration for r in reports if r.calibration is not None), None),
        budget=_budgets([r.budget for r in reports if r.budget is not None]),
    )
    if len(judges) > 1:
        from evalgate.judging.agreement import agreement_by_dimension

        merged = replace(merged, agreement=agreement_by_dimension(merged, scale=_scale(first)))
    return merged


def _budgets(budgets: Sequence[RunBudget]) -> RunBudget | None:
    """The shards' judging budgets as one: each shard spent its own (`budget:` is per run), added."""
    if not budgets:
        return None
    return replace(
        budgets[0],
        calls_made=sum(b.calls_made for b in budgets),
        usd_spent=sum(b.usd_spent for b in budgets),
        reached=any(b.reached for b in budgets),
        not_judged=sum(b.not_judged for b in budgets),
        unknown_cost_calls=sum(b.unknown_cost_calls for b in budgets),
    )


def _check_shards(reports: Sequence[Report], names: Sequence[str]) -> None:
    """When the reports say which shard they are, every shard 1..n of one count must be there, once."""
    shards = [(r.shard, name) for r, name in zip(reports, names, strict=True) if r.shard]
    if not shards:
        return
    if len(shards) != len(reports):
        unmarked = [name for r, name in zip(reports, names, strict=True) if not r.shard]
        raise MergeError(
            f"{', '.join(unmarked)} are not shard results but the others are: merge one run's shards"
        )
    counts = {int(shard.split("/")[1]) for shard, _ in shards}
    if len(counts) != 1:
        raise MergeError(
            f"shards of different counts ({', '.join(s for s, _ in shards)}): merge one run's shards"
        )
    count = counts.pop()
    seen: dict[str, str] = {}
    for shard, name in shards:
        if shard in seen:
            raise MergeError(f"shard {shard} is given twice ({seen[shard]} and {name})")
        seen[shard] = name
    missing = [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in seen]
    if missing:
        raise MergeError(
            f"missing shard result(s) {', '.join(missing)}: the merged report would lose their files"
        )


def _scale(report: Report) -> tuple[int, int]:
    """The rubric's score scale, as the run used it for weighted kappa (1-5 if it cannot be loaded)."""
    from evalgate.rubric import RubricError, load_rubric

    try:
        rubric = load_rubric(report.rubric.id)
    except (RubricError, OSError):
        return (1, 5)
    return (rubric.scale.min, rubric.scale.max)


def merge_files(paths: Sequence[str | Path]) -> Report:
    """Load every results file and merge them (ReportLoadError or MergeError on a bad input)."""
    return merge_reports([load_report(p) for p in paths], [str(p) for p in paths])


def publish_merged(
    report: Report,
    env: Mapping[str, str],
    *,
    token: str,
    head_sha: str | None = None,
    check_name: str = "evalgate",
    pr_number: int | None = None,
    comment_mode: CommentMode = "on-failure",
    results_file: str | None = None,
) -> PublishOutcome:
    """Publish a merged report from a workflow job, as the action publishes a run: `env` is the
    runner's environment (GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, ...).

    `head_sha` is the commit the check run belongs to (on pull_request events the PR head, not
    GITHUB_SHA, which is the merge commit). Errors come back in the outcome; nothing raises.
    """
    from evalgate.github.publish import context_from_env, publish

    overrides: dict[str, Any] = {
        "token": token,
        "check_name": check_name,
        "pr_number": pr_number,
        "comment_mode": comment_mode,
        "results_file": results_file,
    }
    if head_sha:
        overrides["head_sha"] = head_sha
    return publish(report, context_from_env(env, **overrides))


def register(subparsers: Any, help_text: str) -> None:
    """Add `merge` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    p = subparsers.add_parser("merge", help=help_text)
    p.add_argument("results", nargs="+", metavar="RESULTS", help="results files (.json or .jsonl)")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--output", metavar="FILE", help="write the merged report here instead of stdout")
    p.add_argument("-v", "--verbose", action="store_true", help="text: show every dimension")
    publishing = p.add_argument_group("publishing (in a GitHub Actions job)")
    publishing.add_argument(
        "--publish",
        action="store_true",
        help="post one check run, job summary and outputs (token from GITHUB_TOKEN)",
    )
    publishing.add_argument("--check-name", default="evalgate")
    publishing.add_argument("--head-sha", help="commit to report on (a PR's head sha; default GITHUB_SHA)")
    publishing.add_argument("--pr", type=int, metavar="NUMBER", help="pull request for the sticky comment")
    publishing.add_argument("--comment", choices=("on-failure", "always", "never"), default="on-failure")
    p.set_defaults(func=cmd_merge)


def _write(text: str, output: str | None, publishing: bool) -> bool:
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"evalgate: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
            return False
        return True
    if publishing:
        # The log of an Actions job runs workflow commands; findings quote document text, so a line
        # such as `::add-mask::` or `::error::` in a document must stay text.
        resume = uuid.uuid4().hex
        text = f"::stop-commands::{resume}\n{text}::{resume}::\n"
    sys.stdout.write(text)
    return True


def cmd_merge(args: argparse.Namespace) -> int:
    """The `merge` subcommand: load, merge, render, optionally publish; exit with the merged verdict."""
    try:
        report = merge_files(args.results)
    except (ReportLoadError, MergeError) as exc:
        print(f"evalgate: merge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Results first, then publishing, so a failed post loses nothing.
    if not _write(render(report, args.format, verbose=args.verbose), args.output, args.publish):
        return EXIT_USAGE
    if args.publish:
        outcome = publish_merged(
            report,
            os.environ,
            token=os.environ.get("GITHUB_TOKEN", ""),
            head_sha=args.head_sha,
            check_name=args.check_name,
            pr_number=args.pr,
            comment_mode=args.comment,
            results_file=args.output,
        )
        for problem in outcome.errors:
            print(f"evalgate: could not publish: {problem}", file=sys.stderr)
    return exit_code(report)
