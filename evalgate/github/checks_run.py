"""A check run with line annotations, and the commit-status fallback when checks cannot be written.

The Checks API takes at most 50 annotations per request: the first 50 go with the POST that creates
the run, the rest in PATCHes of 50 each (a PATCH appends annotations, it does not replace them). A
fork PR's token is read-only, so the POST gets 403; the caller then posts a commit status instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from evalgate.github.api import ApiResponse, GitHubClient
from evalgate.report.escape import neutralise_mentions, plain_line
from evalgate.report.reasons import EXISTED, is_notice
from evalgate.report.summary import render_summary
from evalgate.results import EXIT_PASS, FileResult, Report, Verdict, exit_code

AnnotationLevel = Literal["notice", "warning", "failure"]
ANNOTATIONS_PER_REQUEST = 50
CHECK_OUTPUT_LIMIT = 65535  # characters in output.summary / output.text
MESSAGE_LIMIT = 64 * 1024  # bytes in an annotation message; we cut in characters, which is stricter
TITLE_LIMIT = 255
STATUS_DESCRIPTION_LIMIT = 140


@dataclass(frozen=True)
class Annotation:
    """One line annotation, already made safe to show (mentions neutralised, lengths capped)."""

    path: str
    start_line: int
    end_line: int
    level: AnnotationLevel
    message: str
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level,
            "message": self.message,
        }
        if self.title:
            out["title"] = self.title
        return out


@dataclass(frozen=True)
class CheckRunOutcome:
    """What happened to the check run: its id, how many annotations went in how many requests."""

    check_run_id: int | None
    html_url: str | None
    annotations_sent: int
    requests: int
    forbidden: bool = False  # 403 without rate-limit signs: the token may not write checks
    error: str | None = None
    created: Any = None  # the check run GitHub created, as it answered (its `app` says who posted it)


def _level(result: FileResult, dimension_id: str, score: int | None) -> AnnotationLevel:
    failing = {d.id for d in result.failing_dimensions}
    if dimension_id in failing:
        return "failure"
    return "warning" if score is not None and score <= 3 else "notice"


def _annotation(
    path: str, line: int, end: int | None, level: AnnotationLevel, title: str, message: str
) -> Annotation:
    start = max(line, 1)
    return Annotation(
        path=path,
        start_line=start,
        end_line=max(end or start, start),
        level=level,
        message=plain_text(message, MESSAGE_LIMIT) or "(no message)",
        title=plain_text(title, TITLE_LIMIT),
    )


def plain_text(text: str, limit: int) -> str:
    """Untrusted text for a plain-text field: mentions neutralised, cut to `limit` characters."""
    safe = neutralise_mentions(text)
    return safe if len(safe) <= limit else safe[: limit - 1] + "…"


def annotations_for(report: Report, limit: int | None = None) -> tuple[Annotation, ...]:
    """Every finding as an annotation (failures first), plus a file-level error at line 1. A
    notice is a `notice` annotation whatever its dimension scored.

    Dimension errors without a line (a judge that timed out) are in the summary, not here: an
    annotation must point at a line.
    """
    found: list[Annotation] = []
    for result in report.results:
        if result.error:
            found.append(_annotation(result.path, 1, 1, "failure", "evalgate: file error", result.error))
        for dim in result.dimensions:
            level = _level(result, dim.id, dim.score)
            score = f" (score {dim.score})" if dim.score is not None else ""
            for finding in dim.findings:
                found.append(
                    _annotation(
                        result.path,
                        finding.line,
                        finding.end_line,
                        # a notice did not lower the score; one that existed before is not the change's
                        "notice" if is_notice(finding) else level,
                        f"{dim.id}{score}",
                        f"{finding.message} ({EXISTED})" if finding.existed else finding.message,
                    )
                )
    order = {"failure": 0, "warning": 1, "notice": 2}
    found.sort(key=lambda a: order[a.level])  # stable: file and line order kept within a level
    return tuple(found if limit is None else found[:limit])


def conclusion(report: Report) -> str:
    """The check-run conclusion for the run's verdict (decided by the gate, only mapped here). Files
    the judging budget left unjudged (NOT_JUDGED, nothing failed) are `neutral` under `on-budget:
    skip`, which a required check accepts as GitHub does a skipped job, and `failure` otherwise."""
    if report.verdict is Verdict.NOT_JUDGED:
        return "neutral" if exit_code(report) == EXIT_PASS else "failure"
    return "success" if report.verdict is Verdict.PASS else "failure"


def headline(report: Report) -> str:
    """One line for a check-run title or a commit-status description."""
    summary = report.summary()
    if report.verdict is Verdict.PASS:
        text = f"{summary['passed']} of {summary['evaluated']} file(s) pass"
    elif report.verdict is Verdict.NOT_JUDGED:
        text = f"{summary['not_judged']} of {summary['evaluated']} file(s) not judged: budget reached"
    else:
        text = f"{summary['failed']} of {summary['evaluated']} file(s) fail"
        if summary["errors"]:
            text += f", {summary['errors']} error(s)"
        if summary["not_judged"]:
            text += f", {summary['not_judged']} not judged"
    if report.not_evaluated:  # a file the gate did not read must never hide behind "0 of 0 pass"
        text += f", {len(report.not_evaluated)} changed file(s) not evaluated"
    gate = summary.get("gate_on")
    if gate is not None and gate["mode"] == "new":
        text += f" (gate-on new: {gate['new_findings']} new, {gate['existing_findings']} existed before)"
    elif gate is not None:
        text += " (gate-on all)"
    if summary["uncounted_judged_failures"]:
        uncounted = summary["uncounted_judged_failures"]
        text += f" ({uncounted} with judged failures not counted: judge not calibrated)"
    return text


def publish_check_run(
    client: GitHubClient,
    repository: str,
    head_sha: str,
    name: str,
    report: Report,
    annotations: tuple[Annotation, ...],
    details_url: str | None = None,
) -> CheckRunOutcome:
    """Create a completed check run with the first 50 annotations, then PATCH the rest in fifties."""
    batches = [
        annotations[i : i + ANNOTATIONS_PER_REQUEST]
        for i in range(0, len(annotations), ANNOTATIONS_PER_REQUEST)
    ] or [()]
    title = plain_line(f"evalgate: {headline(report)}", TITLE_LIMIT)
    summary = render_summary(report, name, limit=CHECK_OUTPUT_LIMIT)

    def output(batch: tuple[Annotation, ...]) -> dict[str, Any]:
        return {"title": title, "summary": summary, "annotations": [a.to_json() for a in batch]}

    body: dict[str, Any] = {
        "name": name,
        "head_sha": head_sha,
        "status": "completed",
        "conclusion": conclusion(report),
        "output": output(batches[0]),
    }
    if details_url:
        body["details_url"] = details_url
    created = client.request("POST", f"/repos/{repository}/check-runs", json=body)
    if not created.ok:
        return CheckRunOutcome(None, None, 0, 1, forbidden=created.status == 403, error=created.error)
    run_id = int(created.data["id"])
    sent, requests = len(batches[0]), 1
    for batch in batches[1:]:
        patched = client.request(
            "PATCH", f"/repos/{repository}/check-runs/{run_id}", json={"output": output(batch)}
        )
        requests += 1
        if not patched.ok:
            return CheckRunOutcome(
                run_id,
                created.data.get("html_url"),
                sent,
                requests,
                error=patched.error,
                created=created.data,
            )
        sent += len(batch)
    return CheckRunOutcome(run_id, created.data.get("html_url"), sent, requests, created=created.data)


def post_commit_status(
    client: GitHubClient,
    repository: str,
    sha: str,
    context: str,
    report: Report,
    target_url: str | None = None,
) -> ApiResponse:
    """The fallback when checks cannot be written: one commit status with the verdict."""
    states = {Verdict.PASS: "success", Verdict.FAIL: "failure", Verdict.ERROR: "error"}
    # a status has no `neutral`: files left unjudged under `on-budget: skip` are a success with the
    # headline saying so, and a failure otherwise
    state = states.get(report.verdict) or ("success" if exit_code(report) == EXIT_PASS else "failure")
    body: dict[str, Any] = {
        "state": state,
        "context": context,
        "description": plain_line(headline(report), STATUS_DESCRIPTION_LIMIT),
    }
    if target_url:
        body["target_url"] = target_url
    return client.request("POST", f"/repos/{repository}/statuses/{sha}", json=body)
