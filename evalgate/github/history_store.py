"""The score history kept on a branch of the repository, through GitHub's REST API only.

Every CI run starts on a fresh machine, so a history file on disk is always empty there. The action
(input `history-branch`) instead keeps the JSONL on a branch, the way github-action-benchmark keeps its
data: it reads the file through the contents API, appends this run's records and writes the file back
with the blob sha it read. No git push, no credentials on disk, no checkout of the branch.

Two runs at once: the second write carries a sha that is no longer the file's, GitHub answers 409
(or 422), and the run reads the file again and retries, a bounded number of times, so neither run's
records are lost. The first run creates the branch (from the commit it evaluated) and the file.

History is best effort. A fork PR, a read-only token, an API that is down or a conflict that outlasts
the retries is a notice in the log; the run's verdict, results file and exit code never depend on it.
"""

from __future__ import annotations

import base64
import random
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from evalgate.github.api import DEFAULT_API_URL, ApiResponse, GitHubClient, RetryPolicy
from evalgate.github.workflow import workflow_command, write_step_summary
from evalgate.results import Report
from evalgate.validity.history import HistoryRecord, history_records, parse_history, record_line, trend_alerts
from evalgate.validity.history_view import history_markdown

HISTORY_PATH = "evalgate/history.jsonl"
WRITE_ATTEMPTS = 5  # reads + writes when another run keeps writing first; then a notice, never a loop
# 5xx and connection errors: three tries (the publisher's default is four); history is best effort and
# an API that is down should not hold the job longer than it must
HISTORY_RETRY = RetryPolicy(attempts=3)


class HistoryUnavailable(Exception):
    """The history could not be read or written this run; the message says why (no token in it)."""


@dataclass(frozen=True)
class StoredHistory:
    """The history as written this run: every record on the branch, this run's included."""

    records: tuple[HistoryRecord, ...]
    created_branch: bool
    attempts: int  # writes tried (1 unless another run wrote first)


class BranchHistory:
    """One JSONL file on one branch, read and written through the contents and git refs endpoints."""

    def __init__(
        self,
        client: GitHubClient,
        repository: str,
        branch: str,
        path: str = HISTORY_PATH,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client, self.repository, self.branch, self.path = client, repository, branch, path
        self._sleep = sleep
        self._repo = f"/repos/{quote(repository, safe='/')}"
        self._ref = f"{self._repo}/git/ref/heads/{quote(branch, safe='/')}"
        self._file = f"{self._repo}/contents/{quote(path, safe='/')}"

    def _fail(self, what: str, response: ApiResponse) -> HistoryUnavailable:
        return HistoryUnavailable(f"{what}: {response.error}")

    def ensure_branch(self, start_sha: str) -> bool:
        """Create the branch at `start_sha` when it does not exist; True when this call created it."""
        ref = self.client.request("GET", self._ref)
        if ref.ok:
            return False
        if ref.status != 404:
            raise self._fail(f"cannot read branch {self.branch!r}", ref)
        if not start_sha:
            raise HistoryUnavailable(f"branch {self.branch!r} does not exist and GITHUB_SHA is not set")
        created = self.client.request(
            "POST", f"{self._repo}/git/refs", json={"ref": f"refs/heads/{self.branch}", "sha": start_sha}
        )
        if created.ok:
            return True
        if created.status == 422 and self.client.request("GET", self._ref).ok:
            return False  # another run created it a moment ago
        raise self._fail(f"cannot create branch {self.branch!r}", created)

    def read(self) -> tuple[str, str | None]:
        """The file's text and blob sha; ("", None) when the file does not exist yet."""
        got = self.client.request("GET", self._file, params={"ref": self.branch})
        if got.status == 404:
            return "", None
        if not got.ok:
            raise self._fail(f"cannot read {self.path} on {self.branch!r}", got)
        data = got.data if isinstance(got.data, dict) else {}
        if data.get("type") != "file" or not isinstance(data.get("sha"), str):
            raise HistoryUnavailable(f"{self.path} on {self.branch!r} is not a file")
        if data.get("encoding") != "base64":
            # the contents API leaves `content` empty above 1 MB: never overwrite what was not read
            raise HistoryUnavailable(
                f"{self.path} on {self.branch!r} is too large for the contents API (over 1 MB): "
                "lower history_keep in .evalgate.yml and cut the file once by hand"
            )
        try:
            text = base64.b64decode(str(data.get("content", ""))).decode("utf-8", "replace")
        except ValueError:
            raise HistoryUnavailable(f"{self.path} on {self.branch!r}: content is not base64") from None
        return text, data["sha"]

    def append(self, lines: list[str], keep: int, message: str) -> StoredHistory:
        """Append JSONL lines, keep the last `keep`, and write back; re-read and retry on a stale sha."""
        for attempt in range(WRITE_ATTEMPTS):
            text, sha = self.read()
            kept = ([line + "\n" for line in text.splitlines() if line.strip()] + lines)[-keep:]
            content = "".join(kept)
            body: dict[str, Any] = {
                "message": message,
                "content": base64.b64encode(content.encode("utf-8")).decode("ascii"),
                "branch": self.branch,
            }
            if sha:
                body["sha"] = sha
            wrote = self.client.request("PUT", self._file, json=body)
            if wrote.ok:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # a hand-edited bad line stays in the file, unread
                    records = parse_history(content, f"{self.branch}:{self.path}")
                return StoredHistory(tuple(records), False, attempt + 1)
            if not _stale(wrote):
                raise self._fail(f"cannot write {self.path} on {self.branch!r}", wrote)
            if attempt + 1 < WRITE_ATTEMPTS:
                # jittered, so two runs that collided do not collide again in lockstep
                self._sleep(random.uniform(0.1, 0.4) * (attempt + 1))
        raise HistoryUnavailable(
            f"{self.path} on {self.branch!r} kept changing under this run: "
            f"{WRITE_ATTEMPTS} writes met a newer file (HTTP 409/422), this run's records are not kept"
        )


def _stale(response: ApiResponse) -> bool:
    """Another run wrote first. GitHub says "is at X but expected Y" (409), or "sha wasn't supplied"
    (422) when the file appeared since it was read; any other 422 is a real refusal."""
    if response.status == 409:
        return True
    return response.status == 422 and "sha" in (response.error or "")


def _fork_pull_request(event_path: str | None, repository: str) -> bool:
    """A pull_request whose head lives in another repository: its token is read-only."""
    if not event_path:
        return False
    from evalgate.github.events import load_event

    try:
        _, payload = load_event(Path(event_path))
    except Exception:  # the run already loaded it; a second read failing is no reason to fail here
        return False
    head = ((payload.get("pull_request") or {}).get("head") or {}).get("repo") or {}
    return bool(head.get("full_name")) and head.get("full_name") != repository


def run_id(env: Mapping[str, str]) -> str | None:
    """GITHUB_RUN_ID, with the attempt when a run is re-run (each attempt writes its own records)."""
    run, attempt = env.get("GITHUB_RUN_ID"), env.get("GITHUB_RUN_ATTEMPT", "1")
    if not run:
        return None
    return run if attempt in ("", "1") else f"{run}.{attempt}"


@dataclass(frozen=True)
class HistoryBranchSettings:
    """Where the action keeps the history: `history-branch`, `history-path`, and `history_keep`."""

    branch: str
    path: str = HISTORY_PATH
    keep: int = 1000


def keep_history_on_branch(
    report: Report,
    env: Mapping[str, str],
    out: TextIO,
    settings: HistoryBranchSettings,
    token: str,
    commit: str | None = None,
) -> StoredHistory | None:
    """The action's history step: store this run's records on `branch`, then alerts become warnings
    and (from the second run on) the trend joins the job summary. Never raises; a problem is a notice."""

    def notice(message: str) -> None:
        out.write(workflow_command("notice", f"evalgate history: {message}") + "\n")

    repository = env.get("GITHUB_REPOSITORY", "")
    if not token or not repository:
        notice("skipped: no github-token or GITHUB_REPOSITORY, so the history branch cannot be reached")
        return None
    if _fork_pull_request(env.get("GITHUB_EVENT_PATH"), repository):
        notice("skipped on a pull request from a fork (its token is read-only); the verdict is unaffected")
        return None
    commit = commit or env.get("GITHUB_SHA") or None
    new = history_records(report, run=run_id(env), commit=commit)
    if not new:
        return None  # nothing evaluated (e.g. a push that changed no document): no empty commit
    client = GitHubClient(token, env.get("GITHUB_API_URL") or DEFAULT_API_URL, HISTORY_RETRY)
    branch, path = settings.branch, settings.path
    store = BranchHistory(client, repository, branch, path)
    try:
        created = store.ensure_branch(env.get("GITHUB_SHA", ""))
        message = f"evalgate history: {len(new)} record(s) from run {run_id(env) or '?'} [skip ci]"
        stored = store.append([record_line(r) for r in new], settings.keep, message)
    except HistoryUnavailable as exc:
        notice(f"not kept this run ({exc}); the verdict and results are unaffected")
        return None
    except Exception as exc:  # a history bug must never change a decided verdict
        notice(f"not kept this run ({type(exc).__name__}: {exc})")
        return None
    if created:
        notice(f"created branch {branch!r} for the score history ({path})")
    for alert in trend_alerts(stored.records):
        out.write(workflow_command("warning", f"evalgate trend alert: {alert.message}") + "\n")
    section = history_markdown(stored.records)
    summary = env.get("GITHUB_STEP_SUMMARY")
    if section and summary:
        try:
            write_step_summary(Path(summary), "\n" + section)
        except OSError as exc:
            notice(f"trend not added to the job summary: {exc.strerror or exc}")
    out.flush()
    return StoredHistory(stored.records, created, stored.attempts)
