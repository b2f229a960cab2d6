"""A loopback GitHub REST API that holds every request to GitHub's own OpenAPI description.

`FakeGitHub` serves the routes evalgate's reporter uses (check runs, statuses, issue comments) on
127.0.0.1. Each request body is validated with `jsonschema` against the operation's requestBody schema
in api.github.com.subset.json (all `$ref`s resolved against the whole document; OpenAPI's
`nullable: true` turned into a JSON-Schema `null` type). A body that violates it gets 422, like GitHub,
and is recorded in `violations`, which a test asserts is empty. Missing API headers are violations too.

Faults are scripted per route: `fault("POST", "/repos/{owner}/{repo}/check-runs", 403, times=1)`.
`url_prefix="/api/v3"` plays a GitHub Enterprise Server. Calling `stop()` makes the API "down".

The token has an identity, as on GitHub: by default the `github-actions` app's installation token (the
GITHUB_TOKEN), which creates check runs as that app and posts comments as `github-actions[bot]`;
`act_as_user("octocat")` plays a personal token, which GitHub refuses check runs (403) and which posts
as that user. Check runs, statuses and comments are answered with the contract's whole objects (`app`,
`creator`, `user`), and those responses are validated against the contract's schemas too.

Branches and files are state too (`refs`, `files`): the git ref and contents endpoints create a branch,
read a file (base64, with its blob sha) and write it only when the request carries the sha the file
has now, else 409 as GitHub answers a stale write (422 when a sha is missing for an existing file).
Their responses are checked against the contract's response schemas as well (`STATEFUL_ROUTES`).
`gather_reads(n)` makes n runs read the file at the same moment, so their writes really collide.

Pull requests' reviews and review comments, with the diff their lines must be in, are
tests/support/github_pulls.py's (`pulls`: `open_pull`, `push_pull`, `refused`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import jsonschema

from tests.support.github_pulls import PULL_ROUTES, PullRequests

CONTENTS = "/repos/{owner}/{repo}/contents/{path}"
CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
CHECK_RUN = "/repos/{owner}/{repo}/check-runs/{check_run_id}"
STATUSES = "/repos/{owner}/{repo}/statuses/{sha}"
ISSUE_COMMENTS = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
ISSUE_COMMENT = "/repos/{owner}/{repo}/issues/comments/{comment_id}"
GITHUB_ACTIONS_APP_ID = 15368  # the app whose installation token is a workflow's GITHUB_TOKEN
STAMP = "2026-12-03T12:00:00Z"
GIT_REF = "/repos/{owner}/{repo}/git/ref/{ref}"
GIT_REFS = "/repos/{owner}/{repo}/git/refs"
STATEFUL_ROUTES = {CONTENTS, GIT_REF, GIT_REFS}
REQUIRED_HEADERS = {
    "Accept": "application/vnd.github+json",
    "X-GitHub-Api-Version": "2022-11-28",
}


def _nullable_to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 `nullable: true` has no meaning to JSON Schema; express it as a `null` type."""
    if isinstance(node, list):
        return [_nullable_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _nullable_to_json_schema(value) for key, value in node.items()}
    if out.pop("nullable", False) is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
        if "enum" in out:  # an enum lists the allowed values: null is one of them too
            out["enum"] = [*out["enum"], None]
    return out


@dataclass(frozen=True)
class Call:
    """One request the server received."""

    method: str
    path: str  # without the prefix and query, e.g. /repos/o/r/check-runs
    route: str  # the OpenAPI path template it matched, e.g. /repos/{owner}/{repo}/check-runs
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]  # names lower-cased
    body: Any


@dataclass
class Fault:
    status: int
    times: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted fault"


def _route_pattern(template: str, operation: dict[str, Any], components: dict[str, Any]) -> re.Pattern[str]:
    """The template as a regex; a parameter marked `x-multi-segment` (a file path, a ref) spans slashes."""
    multi = set()
    for parameter in operation.get("parameters", []):
        if "$ref" in parameter:
            parameter = components["parameters"][parameter["$ref"].rsplit("/", 1)[1]]
        if parameter.get("x-multi-segment"):
            multi.add(parameter["name"])

    def segment(match: re.Match[str]) -> str:
        return ".+" if match.group(1) in multi else "[^/]+"

    return re.compile("^" + re.sub(r"\\\{([^}]+)\\\}", segment, re.escape(template)) + "$")


class GitHubContract:
    """The request-body validators of every operation in the OpenAPI description."""

    def __init__(self, contract_path: Path) -> None:
        document = _nullable_to_json_schema(json.loads(contract_path.read_text(encoding="utf-8")))
        self.routes: list[tuple[str, str, re.Pattern[str]]] = []
        self._validators: dict[tuple[str, str], jsonschema.protocols.Validator] = {}
        self._responses: dict[tuple[str, str, int], jsonschema.protocols.Validator] = {}
        for template, operations in document["paths"].items():
            for method, operation in operations.items():
                pattern = _route_pattern(template, operation, document["components"])
                self.routes.append((method.upper(), template, pattern))
                for status, response in operation.get("responses", {}).items():
                    schema = response.get("content", {}).get("application/json", {}).get("schema")
                    if schema and status.isdigit() and int(status) < 300:
                        full = {**schema, "components": document["components"]}
                        self._responses[(method.upper(), template, int(status))] = jsonschema.Draft7Validator(
                            full
                        )
                body = operation.get("requestBody", {}).get("content", {}).get("application/json")
                if body:
                    # embed the components so "#/components/..." refs resolve from the schema's root
                    schema = {**body["schema"], "components": document["components"]}
                    self._validators[(method.upper(), template)] = jsonschema.Draft7Validator(schema)

    def route(self, method: str, path: str) -> str | None:
        for route_method, template, pattern in self.routes:
            if route_method == method and pattern.match(path):
                return template
        return None

    def response_violations(self, method: str, template: str, status: int, body: Any) -> list[str]:
        validator = self._responses.get((method, template, status))
        if validator is None:
            return []
        return [
            f"response {'/'.join(map(str, e.absolute_path)) or '<body>'}: {e.message}"
            for e in validator.iter_errors(body)
        ]

    def violations(self, method: str, template: str, body: Any) -> list[str]:
        validator = self._validators.get((method, template))
        if validator is None:
            return []
        return [
            f"{'/'.join(map(str, e.absolute_path)) or '<body>'}: {e.message}"
            for e in validator.iter_errors(body)
        ]


class FakeGitHub:
    """A threaded loopback GitHub API with state, a call log, contract checks and scripted faults."""

    def __init__(self, contract_path: Path, url_prefix: str = "", per_page: int = 30) -> None:
        self.contract = GitHubContract(contract_path)
        self.url_prefix = url_prefix.rstrip("/")
        self.default_per_page = per_page
        self.calls: list[Call] = []
        self.violations: list[str] = []
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.statuses: list[dict[str, Any]] = []
        self.comments: dict[int, dict[str, Any]] = {}  # id -> {"id", "body", "issue", "user"}
        self.app: dict[str, Any] | None = app_object("github-actions", GITHUB_ACTIONS_APP_ID)
        self.actor: dict[str, Any] = user_object("github-actions[bot]", "Bot")  # who the token posts as
        self.refs: dict[str, str] = {}  # "heads/main" -> commit sha
        self.files: dict[tuple[str, str], tuple[bytes, str]] = {}  # (branch, path) -> (content, blob sha)
        self.commits: list[dict[str, Any]] = []  # every contents write: {"branch", "path", "message", "sha"}
        self._faults: dict[tuple[str, str], list[Fault]] = {}
        self._next_id = 1000
        self._lock = threading.Lock()
        self.pulls = PullRequests(lambda: self.url, self._take_id, per_page)
        self._read_barrier: threading.Barrier | None = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    # ---- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Shut the server down; later requests get connection refused (the API is down)."""
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.url_prefix}"

    # ---- scripting -------------------------------------------------------------------------------
    def fault(
        self, method: str, route: str, status: int, times: int = 1, headers: dict[str, str] | None = None
    ) -> None:
        """Answer the next `times` calls to `method route` with `status` (and `headers`)."""
        self._faults.setdefault((method, route), []).append(Fault(status, times, headers or {}))

    def gather_reads(self, parties: int) -> None:
        """Hold the next `parties` file reads until all have arrived, then answer them together: runs
        started at once then read the same sha, and all but one of their writes must meet a 409."""
        self._read_barrier = threading.Barrier(parties, timeout=60)

    def _gathered_read(self, method: str, raw_path: str) -> threading.Barrier | None:
        """The barrier a file read must wait at before its answer is sent, if reads are being gathered."""
        if method != "GET" or "/contents/" not in raw_path:
            return None
        return self._read_barrier

    def _release_gathered_read(self, barrier: threading.Barrier) -> None:
        if barrier.wait() == 0:  # one of the released threads ends the gathering
            self._read_barrier = None

    def act_as_user(self, login: str) -> None:
        """The token is a user's (a personal access token): check runs are refused, as GitHub refuses
        them to anything but an app, and statuses and comments are that user's."""
        self.app, self.actor = None, user_object(login, "User")

    def act_as_app(self, slug: str, app_id: int) -> None:
        """The token is another GitHub App's installation token: it posts as `<slug>[bot]`."""
        self.app, self.actor = app_object(slug, app_id), user_object(f"{slug}[bot]", "Bot")

    def add_comment(self, issue: int, body: str, by: str = "octocat") -> int:
        """Seed an existing comment on an issue / PR, written by `by` (a user, or a `name[bot]`)."""
        with self._lock:
            comment_id = self._take_id()
            kind = "Bot" if by.endswith("[bot]") else "User"
            self.comments[comment_id] = {
                "id": comment_id,
                "body": body,
                "issue": issue,
                "user": user_object(by, kind),
            }
        return comment_id

    def calls_to(self, method: str, route: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and c.route == route]

    # ---- internals -------------------------------------------------------------------------------
    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _pending_fault(self, method: str, route: str) -> Fault | None:
        queue = self._faults.get((method, route), [])
        while queue:
            fault = queue[0]
            if fault.times > 0:
                fault.times -= 1
                return fault
            queue.pop(0)
        return None

    def _handle(
        self, method: str, raw_path: str, headers: Mapping[str, str], raw_body: bytes
    ) -> tuple[int, dict[str, str], Any]:
        parts = urlsplit(raw_path)
        path = parts.path
        if not path.startswith(self.url_prefix):
            return 404, {}, {"message": "Not Found"}
        path = path[len(self.url_prefix) :]
        route = self.contract.route(method, path)
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = "<invalid json>"
        lowered = {name.lower(): value for name, value in headers.items()}
        with self._lock:
            self.calls.append(Call(method, path, route or "", parse_qs(parts.query), lowered, body))
            for name, expected in REQUIRED_HEADERS.items():
                if lowered.get(name.lower()) != expected:
                    self.violations.append(f"{method} {path}: header {name} is {lowered.get(name.lower())!r}")
            if not lowered.get("authorization", "").startswith("Bearer ") or "user-agent" not in lowered:
                self.violations.append(f"{method} {path}: no bearer token or User-Agent")
            if route is None:
                return 404, {}, {"message": "Not Found"}
            problems = (
                self.contract.violations(method, route, body) if method in {"POST", "PATCH", "PUT"} else []
            )
            if problems:
                self.violations.extend(f"{method} {route}: {p}" for p in problems)
                return 422, {}, {"message": "Validation Failed", "errors": problems}
            fault = self._pending_fault(method, route)
            if fault:
                return fault.status, fault.headers, {"message": fault.message}
            query = parse_qs(parts.query)
            if route in PULL_ROUTES:
                status, out_headers, payload = self.pulls.serve(method, route, path, query, body, self.actor)
            else:
                serve = self._serve_git if route in STATEFUL_ROUTES else self._serve
                status, out_headers, payload = serve(method, route, path, query, body)
            self.violations.extend(
                f"{method} {route}: {p}"
                for p in self.contract.response_violations(method, route, status, payload)
            )
            return status, out_headers, payload

    def _serve(
        self, method: str, route: str, path: str, query: Mapping[str, list[str]], body: Any
    ) -> tuple[int, dict[str, str], Any]:
        segments = path.strip("/").split("/")
        if route == CHECK_RUNS:
            if self.app is None:
                return 403, {}, {"message": "You must authenticate via a GitHub App."}
            run_id = self._take_id()
            output = dict(body.get("output") or {})
            output["annotations"] = list(output.get("annotations", []))
            self.check_runs[run_id] = {**body, "id": run_id, "output": output}
            return 201, {}, self._check_run_object(self.check_runs[run_id])
        if route == CHECK_RUN and method == "PATCH":
            run = self.check_runs.get(int(segments[-1]))
            if run is None:
                return 404, {}, {"message": "Not Found"}
            output = body.get("output") or {}
            run["output"]["annotations"].extend(output.get("annotations", []))  # PATCH appends
            return 200, {}, self._check_run_object(run)
        if route == STATUSES:
            self.statuses.append({**body, "sha": segments[-1]})
            return 201, {}, self._status_object(body)
        if route == ISSUE_COMMENTS and method == "POST":
            comment_id = self._take_id()
            comment = {"id": comment_id, "body": body["body"], "issue": int(segments[-2]), "user": self.actor}
            self.comments[comment_id] = comment
            return 201, {}, self._comment_object(comment)
        if route == ISSUE_COMMENTS:
            return self._list_comments(path, int(segments[-2]), query)
        if route == ISSUE_COMMENT:
            comment = self.comments.get(int(segments[-1]))
            if comment is None:
                return 404, {}, {"message": "Not Found"}
            comment["body"] = body["body"]
            return 200, {}, self._comment_object(comment)
        return 404, {}, {"message": f"{method} {route} is not played by the fake"}

    # ---- branches and files (git refs, contents) -------------------------------------------------
    def seed_file(self, branch: str, path: str, content: bytes) -> str:
        """Put a file on a branch (creating the branch); returns its blob sha."""
        with self._lock:
            self.refs.setdefault(f"heads/{branch}", _sha(b"seed " + branch.encode()))
            sha = _blob_sha(content)
            self.files[(branch, path)] = (content, sha)
        return sha

    def file_text(self, branch: str, path: str) -> str | None:
        entry = self.files.get((branch, path))
        return None if entry is None else entry[0].decode("utf-8")

    def _git_ref(self, ref: str) -> dict[str, Any]:
        sha = self.refs[ref]
        url = f"{self.url}/repos/o/r/git/refs/{ref}"
        return {
            "ref": f"refs/{ref}",
            "node_id": "REF_" + sha[:8],
            "url": url,
            "object": {"type": "commit", "sha": sha, "url": f"{self.url}/repos/o/r/git/commits/{sha}"},
        }

    def _serve_git(
        self, method: str, route: str, path: str, query: Mapping[str, list[str]], body: Any
    ) -> tuple[int, dict[str, str], Any]:
        repo_path = "/".join(path.strip("/").split("/")[:3])  # repos/OWNER/NAME
        rest = path.strip("/")[len(repo_path) + 1 :]
        if route == GIT_REF:
            ref = unquote(rest.removeprefix("git/ref/"))
            return (200, {}, self._git_ref(ref)) if ref in self.refs else (404, {}, {"message": "Not Found"})
        if route == GIT_REFS:
            if not body["ref"].startswith("refs/") or body["ref"].count("/") < 2:
                return 422, {}, {"message": "Reference name is not fully qualified"}
            if not re.fullmatch(r"[0-9a-f]{40}", body["sha"]):
                return 422, {}, {"message": "Object does not exist"}
            ref = body["ref"].removeprefix("refs/")
            if ref in self.refs:
                return 422, {}, {"message": "Reference already exists"}
            self.refs[ref] = body["sha"]
            return 201, {}, self._git_ref(ref)
        file_path = unquote(rest.removeprefix("contents/"))
        if method == "GET":
            return self._get_file(query.get("ref", ["main"])[0], file_path)
        return self._put_file(file_path, body)

    def _get_file(self, branch: str, path: str) -> tuple[int, dict[str, str], Any]:
        if f"heads/{branch}" not in self.refs or (branch, path) not in self.files:
            return 404, {}, {"message": "Not Found"}
        content, sha = self.files[(branch, path)]
        url = f"{self.url}/repos/o/r/contents/{path}?ref={branch}"
        return (
            200,
            {},
            {
                "type": "file",
                "encoding": "base64",
                "size": len(content),
                "name": path.rsplit("/", 1)[-1],
                "path": path,
                "content": base64.encodebytes(content).decode("ascii"),
                "sha": sha,
                "url": url,
                "git_url": None,
                "html_url": None,
                "download_url": None,
                "_links": {"git": None, "html": None, "self": url},
            },
        )

    def _put_file(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        branch = body.get("branch", "main")
        if f"heads/{branch}" not in self.refs:
            return 404, {}, {"message": f"Branch {branch} not found"}
        try:
            content = base64.b64decode(body["content"], validate=True)
        except ValueError:
            self.violations.append(f"PUT contents/{path}: content is not base64")
            return 422, {}, {"message": "content is not valid Base64"}
        current = self.files.get((branch, path))
        if current is not None and "sha" not in body:
            return 422, {}, {"message": 'Invalid request.\n\n"sha" wasn\'t supplied.'}
        if current is not None and body["sha"] != current[1]:
            return 409, {}, {"message": f"{path} does not match {body['sha']}"}
        if current is None and "sha" in body:
            return 409, {}, {"message": f"{path} does not match {body['sha']}"}
        blob = _blob_sha(content)
        commit = _sha(f"{branch}:{path}:{blob}:{len(self.commits)}".encode())
        self.files[(branch, path)] = (content, blob)
        self.refs[f"heads/{branch}"] = commit
        self.commits.append({"branch": branch, "path": path, "message": body["message"], "sha": commit})
        return (
            (201 if current is None else 200),
            {},
            {
                "content": {"name": path.rsplit("/", 1)[-1], "path": path, "sha": blob, "size": len(content)},
                "commit": {"sha": commit, "message": body["message"]},
            },
        )

    def _list_comments(
        self, path: str, issue: int, query: Mapping[str, list[str]]
    ) -> tuple[int, dict[str, str], Any]:
        per_page = min(int(query.get("per_page", [self.default_per_page])[0]), self.default_per_page)
        page = int(query.get("page", ["1"])[0])
        items = [c for c in sorted(self.comments.values(), key=lambda c: c["id"]) if c["issue"] == issue]
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            headers["Link"] = f'<{self.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"'
        return 200, headers, [self._comment_object(c) for c in chunk]

    # ---- the contract's objects ----------------------------------------------------------------------
    def _check_run_object(self, run: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.url}/repos/o/r/check-runs/{run['id']}"
        output = run["output"]
        return {
            "id": run["id"],
            "node_id": f"CR_{run['id']}",
            "head_sha": run["head_sha"],
            "name": run["name"],
            "url": url,
            "html_url": f"https://github.com/o/r/runs/{run['id']}",
            "details_url": run.get("details_url"),
            "status": run.get("status", "completed"),
            "conclusion": run.get("conclusion"),
            "started_at": STAMP,
            "completed_at": STAMP,
            "external_id": None,
            "check_suite": {"id": 1},
            "output": {
                "title": output.get("title"),
                "summary": output.get("summary"),
                "text": output.get("text"),
                "annotations_count": len(output["annotations"]),
                "annotations_url": f"{url}/annotations",
            },
            "app": self.app,
            "pull_requests": [],
        }

    def _status_object(self, body: dict[str, Any]) -> dict[str, Any]:
        status_id = self._take_id()
        return {
            "url": f"{self.url}/repos/o/r/statuses/{status_id}",
            "avatar_url": None,
            "id": status_id,
            "node_id": f"SC_{status_id}",
            "state": body["state"],
            "description": body.get("description"),
            "target_url": body.get("target_url"),
            "context": body.get("context", "default"),
            "created_at": STAMP,
            "updated_at": STAMP,
            "creator": self.actor,
        }

    def _comment_object(self, comment: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.url}/repos/o/r/issues/comments/{comment['id']}"
        return {
            "id": comment["id"],
            "node_id": f"IC_{comment['id']}",
            "url": url,
            "html_url": f"https://github.com/o/r/pull/{comment['issue']}#issuecomment-{comment['id']}",
            "issue_url": f"{self.url}/repos/o/r/issues/{comment['issue']}",
            "body": comment["body"],
            "user": comment["user"],
            "created_at": STAMP,
            "updated_at": STAMP,
            "author_association": "NONE" if comment["user"]["type"] == "User" else "CONTRIBUTOR",
            "performed_via_github_app": None,
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _respond(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                gathered = fake._gathered_read(self.command, self.path)
                status, headers, payload = fake._handle(self.command, self.path, dict(self.headers), raw)
                if gathered is not None:
                    # every gathered read is answered from the state before any of them is sent, so no
                    # run can write between them, however late the machine schedules a thread
                    fake._release_gathered_read(gathered)  # outside the lock: they gather
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = _respond

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

        return Handler


def user_object(login: str, kind: str) -> dict[str, Any]:
    """A `simple-user` as GitHub returns it (a bot's login ends in `[bot]`, its type is Bot)."""
    base = f"https://api.github.com/users/{login}"
    user_id = int(hashlib.sha1(login.encode()).hexdigest()[:7], 16)
    return {
        "login": login,
        "id": user_id,
        "node_id": f"U_{user_id}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user_id}",
        "gravatar_id": "",
        "url": base,
        "html_url": f"https://github.com/{login}",
        **{
            f"{name}_url": f"{base}/{name}"
            for name in ("followers", "subscriptions", "organizations", "repos")
        },
        **{f"{name}_url": f"{base}/{name}{{/other}}" for name in ("following", "gists", "starred")},
        "events_url": f"{base}/events{{/privacy}}",
        "received_events_url": f"{base}/received_events",
        "type": kind,
        "site_admin": False,
    }


def app_object(slug: str, app_id: int) -> dict[str, Any]:
    """A GitHub App (`integration`) as a check run's `app` carries it."""
    return {
        "id": app_id,
        "slug": slug,
        "node_id": f"A_{app_id}",
        "owner": user_object("github", "Organization"),
        "name": slug.replace("-", " ").title(),
        "description": None,
        "external_url": f"https://github.com/apps/{slug}",
        "html_url": f"https://github.com/apps/{slug}",
        "created_at": STAMP,
        "updated_at": STAMP,
        "permissions": {"checks": "write", "issues": "write", "metadata": "read"},
        "events": [],
    }


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _blob_sha(content: bytes) -> str:
    """The git blob id of `content`, as GitHub reports a file's sha."""
    return _sha(b"blob %d\0" % len(content) + content)
